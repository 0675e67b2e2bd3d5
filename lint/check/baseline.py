"""Suppression without comments: a baseline file of known findings, matched by content, not line.

Trace files cannot carry ``# noqa`` comments.  A baseline records each finding as (path, code,
fingerprint), where the fingerprint hashes the code and the text of the record the finding is on (its
message when it is on no line), plus an occurrence number for identical records.  Inserting or
deleting other lines does not change it; editing the record does.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from lint.models.errors import ConfigError
from lint.models.report import Finding
from lint.read.source import InputError, read_lines
from lint.store.files import open_regular


class BaselineEntry(BaseModel):
    path: str
    code: str
    fingerprint: str


class Baseline(BaseModel):
    version: Literal[1] = 1
    entries: list[BaselineEntry]


def fingerprint(findings: list[Finding]) -> None:
    """Set ``finding.fingerprint`` on every finding (reads each file once)."""
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_path[finding.path or ""].append(finding)
    for path, group in by_path.items():
        texts = read_lines(path, {f.line for f in group if f.line})
        seen: Counter[tuple[str, str]] = Counter()
        for finding in group:
            content = texts.get(finding.line or 0, finding.message).strip()
            seen[(finding.code, content)] += 1
            digest = hashlib.sha256(f"{finding.code}\0{content}".encode()).hexdigest()[:20]
            finding.fingerprint = f"{digest}#{seen[(finding.code, content)]}"


def _key(finding_path: str | None, base: Path) -> str:
    if not finding_path:
        return ""
    return Path(os.path.relpath(Path(finding_path).resolve(), base.resolve())).as_posix()


def write(path: Path, findings: list[Finding]) -> int:
    fingerprint(findings)
    base = path.parent
    entries = [BaselineEntry(path=_key(f.path, base), code=f.code, fingerprint=f.fingerprint or "") for f in findings]
    try:
        path.write_text(Baseline(entries=entries).model_dump_json(indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot write the baseline: {error.strerror or error}") from None
    return len(entries)


def load(path: Path) -> Baseline:
    try:
        with open_regular(path, str(path)) as stream:
            text = stream.read()
        # pydantic parses the JSON itself: its parser stops at a nesting limit where json's would exhaust the stack.
        return Baseline.model_validate_json(text)
    except InputError as error:
        raise ConfigError(f"the baseline {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the baseline: {error.strerror or error}") from None
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ConfigError(f"{path}: not a tlint baseline file: {where + ': ' if where else ''}{problem['msg']}") from None


def apply(path: Path, findings: list[Finding]) -> tuple[list[Finding], int, int]:
    """(findings not in the baseline, how many were suppressed, baseline entries that matched nothing)."""
    baseline = load(path)
    fingerprint(findings)
    remaining = Counter((e.path, e.code, e.fingerprint) for e in baseline.entries)
    kept: list[Finding] = []
    for finding in findings:
        key = (_key(finding.path, path.parent), finding.code, finding.fingerprint or "")
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            kept.append(finding)
    return kept, len(findings) - len(kept), sum(remaining.values())
