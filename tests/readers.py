"""Readers of what the CI output formats write, as their consumers read it (used by the reporter tests
and the fuzz suite)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SARIF_SCHEMA = Path(__file__).resolve().parent / "schemas" / "sarif-2.1.0.json"
JSON_REPORT_KEYS = {"version", "files", "findings", "summary", "statistics"}
_COMMAND = re.compile(r"::(?P<name>[a-z]+)(?: (?P<properties>[^:]*))?::(?P<data>.*)")


@cache
def _sarif_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def read_sarif(text: str) -> dict[str, Any]:
    """The SARIF log in ``text``, validated against the official SARIF 2.1.0 schema."""
    log: dict[str, Any] = json.loads(text)
    _sarif_validator().validate(log)
    return log


def read_json_report(text: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(text)
    assert set(document) == JSON_REPORT_KEYS and document["version"] == 1, sorted(document)
    return document


def read_junit(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == "testsuites" and [suite.get("name") for suite in root.findall("testsuite")] == ["tlint"]
    return root


def read_github(text: str) -> list[tuple[str, dict[str, str], str]]:
    """Every workflow command in ``text``: lines end at '\n' only, as the runner reads them."""
    return [read_workflow_command(line) for line in text.removesuffix("\n").split("\n")] if text else []


def read_workflow_command(line: str) -> tuple[str, dict[str, str], str]:
    """(command, properties, data) of a ``::name key=value,...::data`` line, unescaped as GitHub does."""
    match = _COMMAND.fullmatch(line)
    assert match, line
    properties = {}
    for pair in (match["properties"] or "").split(","):
        key, value = pair.split("=", 1)
        properties[key] = _unescape(value)
    return match["name"], properties, _unescape(match["data"])


def _unescape(text: str) -> str:
    # One pass, so that an escaped '%' is not read again as the start of another escape.
    return re.sub(r"%(25|0D|0A|3A|2C)", lambda m: bytes.fromhex(m.group(1)).decode(), text)
