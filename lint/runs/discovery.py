"""Which megatron-trace files belong together: one directory, one name stem, one file per rank."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lint.source import printable_path

# The writer names files {prefix}_rank{R}_{YYYYmmddHHMMSS}.txt: the stem is what comes before the rank
# (the time stamp after it differs between ranks that started a second apart).
DEFAULT_RANK_REGEX = re.compile(r"^(?P<stem>.*)rank(?P<rank>[0-9]+)")


class RankRegexError(ValueError):
    """A --rank-regex without a ``rank`` group."""


def compile_rank_regex(text: str | None) -> re.Pattern[str]:
    if text is None:
        return DEFAULT_RANK_REGEX
    try:
        pattern = re.compile(text)
    except re.error as error:
        raise RankRegexError(f"--rank-regex {text!r} is not a regular expression: {error}") from None
    if "rank" not in pattern.groupindex:
        raise RankRegexError(f"--rank-regex {text!r} has no (?P<rank>...) group")
    return pattern


@dataclass(frozen=True, order=True)
class RunKey:
    directory: str
    stem: str

    @property
    def label(self) -> str:
        """How findings about the whole run name it: ``traces/trace_rank*``."""
        return printable_path(str(Path(self.directory) / f"{self.stem}*"))


def run_key(path: Path, pattern: re.Pattern[str]) -> tuple[RunKey, int] | None:
    """The run a file's name puts it in and the rank it names, or None for a name without a rank."""
    match = pattern.search(path.name)
    if match is None:
        return None
    stem = path.name[: match.start("rank")]
    return RunKey(str(path.parent), stem), int(match.group("rank"))


def siblings(key: RunKey, pattern: re.Pattern[str]) -> list[Path]:
    """Every file of the directory whose name puts it in run ``key`` (sorted)."""
    directory = Path(key.directory)
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    found = []
    for entry in entries:
        named = run_key(entry, pattern)
        if named is not None and named[0] == key and not entry.name.startswith(".") and entry.is_file():
            found.append(entry)
    return found
