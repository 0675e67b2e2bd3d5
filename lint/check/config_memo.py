"""What a configuration file held when it was last parsed, kept in the cache directory.

Parsing a ``pyproject.toml`` or ``tlint.toml`` imports tomllib, and with it datetime and string: some
16 M instructions, a tenth of a check of one small file beyond a bare interpreter, spent on every run
to read a file that rarely changes.  So what tlint reads of it (the document, or of a ``pyproject.toml``
its ``[tool.tlint]`` table) is remembered under the file's path, together with the exact text it was
parsed from: a later run whose file has that same text takes the remembered document, and a changed
file is parsed again (and remembered anew).  Only what JSON holds exactly is remembered (TOML dates and
times are not); a missing, damaged or unwritable memo only costs the parse.
"""

from __future__ import annotations

import json
import os
from typing import Any

from lint.store import disk
from lint.store.digest import hex_digest


def recall(path: str, text: str) -> dict[str, Any] | None:
    """The document remembered for ``path`` when its text was ``text``; None when there is none."""
    remembered = disk.recall(_key(path))
    if remembered is None:
        return None
    try:
        memo = json.loads(remembered)
    except (ValueError, RecursionError):  # json recurses: `[` thousands deep exhaust the stack
        return None
    if not (isinstance(memo, dict) and memo.get("text") == text and isinstance(memo.get("document"), dict) and _exact(memo["document"])):
        return None
    document: dict[str, Any] = memo["document"]
    return document


def remember(path: str, text: str, document: dict[str, Any]) -> None:
    """Keep ``document``, parsed from ``text``, for :func:`recall`: unless JSON cannot hold it exactly."""
    try:
        if not _exact(document):
            return
        memo = json.dumps({"text": text, "document": document})
    except RecursionError:  # nested deeper than json (or the check) can follow: parsed again next time
        return
    disk.remember(_key(path), memo.encode())


def _key(path: str) -> str:
    """tlint's code (which names Python's version, and so tomllib's) and the file's path: one memo per file."""
    return hex_digest(b"configuration", disk.code_fingerprint().encode(), os.fsencode(os.path.abspath(path)))


def _exact(value: object) -> bool:
    """Whether JSON gives ``value`` back as it is: strings, numbers, flags, lists and tables of them (as TOML
    has them: no null, no dates or times)."""
    if isinstance(value, dict):
        return all(isinstance(key, str) and _exact(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_exact(item) for item in value)
    return type(value) in (str, int, float, bool)
