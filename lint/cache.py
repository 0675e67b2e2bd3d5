"""A cache of per-file results, so that an unchanged file is not parsed again.

An entry is keyed by the file's content hash (remembered by the file's stat, so an unchanged file is
not even read) and everything else its result depends on: tlint's version,
the grammars and rules it runs (their source text), the effective configuration for that path, and what
was asked of the file.  Entries are JSON validated by pydantic on the way in - nothing is unpickled.
The cache lives in ``$TLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/tlint``, else ``~/.cache/tlint``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from lint import __version__
from lint.models.report import FileResult, Finding
from lint.resources import grammar_path, rules_dir
from lint.runs import summary as rank_summary
from lint.runs.summary import RankSummary
from lint.source import Source


class CachedOutcome(BaseModel):
    result: FileResult
    findings: list[Finding]
    not_shown: dict[str, int]
    summary: RankSummary | None = None


def cache_dir() -> Path:
    if os.environ.get("TLINT_CACHE_DIR"):
        return Path(os.environ["TLINT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tlint"


@cache
def _code_fingerprint() -> str:
    """tlint's version and the text of every grammar, rule and of the rank summary: a new rule invalidates the cache."""
    digest = hashlib.sha256(__version__.encode())
    summary_code = Path(rank_summary.__file__)
    for path in sorted(rules_dir().glob("*.py")) + sorted(grammar_path("x").parent.glob("*.lark")) + [summary_code]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def key(source: Source, settings: dict[str, Any]) -> str | None:
    """The cache key of ``source`` under ``settings`` (JSON-able), or None when it cannot be read."""
    content = _content_digest(source.path)
    if content is None:
        return None
    digest = hashlib.sha256(_code_fingerprint().encode())
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    digest.update(content.encode())
    return digest.hexdigest()


def _content_digest(path: Path) -> str | None:
    """The SHA-256 of the file's bytes, remembered by its stat(): an unchanged file is not read again."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    stamp = [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]
    memo = cache_dir() / "contents" / f"{hashlib.sha256(os.fsencode(path.resolve())).hexdigest()}.json"
    try:
        remembered = json.loads(memo.read_bytes())
        if remembered["stamp"] == stamp:
            return str(remembered["digest"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    _write(memo, json.dumps({"stamp": stamp, "digest": digest.hexdigest()}))
    return digest.hexdigest()


def load(entry: str) -> tuple[FileResult, list[Finding], Counter[str], RankSummary | None] | None:
    path = cache_dir() / entry[:2] / f"{entry}.json"
    try:
        cached = CachedOutcome.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return None
    return cached.result, cached.findings, Counter(cached.not_shown), cached.summary


def store(entry: str, result: FileResult, findings: list[Finding], not_shown: Counter[str], summary: RankSummary | None) -> None:
    """Write the entry; a cache that cannot be written is skipped, never an error."""
    data = CachedOutcome(result=result, findings=findings, not_shown=dict(not_shown), summary=summary).model_dump_json()
    _write(cache_dir() / entry[:2] / f"{entry}.json", data)


def _write(path: Path, data: str) -> None:
    """Write atomically (a concurrent reader sees the old file or the new one); errors are skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp", encoding="utf-8") as handle:
            handle.write(data)
        os.replace(handle.name, path)
    except OSError:
        pass
