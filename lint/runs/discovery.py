"""Which megatron-trace files belong together: one directory, one name stem, one run identity, one file per rank.

The writer (fwyc0573/Megatron-LM ``megatron/profiler/cmd.py`` ``write_list_to_file``, also used by
fwyc0573/moe_mg) names each rank's file ``{name_args}_rank{R}_{time.strftime('%Y%m%d%H%M%S')}.txt``, where
``name_args`` is ``wd{world}_tp{tp}_pp{pp}[_exp{ep}_expNum{experts}]_(numl|l){layers}_bs{mbs}[_{tokenizer}]``
(``megatron/training/training.py``).  The stem is what comes before the rank; the time stamp after it
is the run's identity: several runs that share a stem may sit in one directory (the writer's own
``realistic_trace/`` folder) and only their time stamps tell them apart.
"""

from __future__ import annotations

import os
import re
from collections.abc import Container, Iterable
from pathlib import Path

from lint.models.common import Record
from lint.read.source import printable_path

DEFAULT_RANK_REGEX = re.compile(r"^(?P<stem>.*)rank(?P<rank>[0-9]+)(?:_(?P<stamp>[0-9]{14})(?![0-9]))?")

# Layout dimensions the writer puts in name_args, by the prefix it gives them; only a stem that starts
# like name_args is read, so that another naming scheme's "tp2" is not taken for a layout.
_NAME_ARGS = re.compile(r"^wd[0-9]+_tp[0-9]+_pp[0-9]+_")
_NAME_DIMENSIONS = re.compile(r"(?:^|_)(?P<key>wd|tp|pp|exp|numl|l)(?P<value>[0-9]+)(?=_|$)")
_DIMENSION_OF_KEY = {"wd": "world", "tp": "tp", "pp": "pp", "exp": "ep", "numl": "layers", "l": "layers"}


class RankRegexError(ValueError):
    """A --rank-regex without a ``rank`` group."""


def compile_rank_regex(text: str | None) -> re.Pattern[str]:
    if text is None:
        return DEFAULT_RANK_REGEX
    try:
        pattern = re.compile(text)
    except (re.error, OverflowError) as error:  # OverflowError: a repetition count past what re takes (`\d{99999999999}`)
        raise RankRegexError(f"--rank-regex {text!r} is not a regular expression: {error}") from None
    if "rank" not in pattern.groupindex:
        raise RankRegexError(f"--rank-regex {text!r} has no (?P<rank>...) group")
    return pattern


class RunKey(Record):
    """One run: the directory of its files and the stem of their names (before the rank), and when it started."""

    __slots__ = ("directory", "stem", "started")
    __hash__ = Record.hash_of_fields  # never changed once made

    def __init__(self, directory: str, stem: str, started: str = "") -> None:
        self.directory = directory
        self.stem = stem
        self.started = started  # the time stamp of the run's first file, when the names carry one

    def __lt__(self, other: RunKey) -> bool:  # runs are listed in the order of their keys
        return (self.directory, self.stem, self.started) < (other.directory, other.stem, other.started)

    @property
    def label(self) -> str:
        """How findings about the whole run name it: ``traces/trace_rank*`` (``… (run of 20250320144110)``)."""
        glob = printable_path(str(Path(self.directory) / f"{self.stem}*"))
        return f"{glob} (run of {self.started})" if self.started else glob


class NamedFile(Record):
    """What a file's name says: its run (before the split by time stamp), its rank, its time stamp."""

    __slots__ = ("path", "key", "rank", "stamp")

    def __init__(self, path: Path, key: RunKey, rank: int, stamp: str) -> None:
        self.path = path
        self.key = key
        self.rank = rank
        self.stamp = stamp


def run_key(path: Path, pattern: re.Pattern[str]) -> NamedFile | None:
    """The run stem, rank and time stamp a file's name gives, or None for a name without a rank."""
    parts = _name_parts(path.name, pattern)
    return None if parts is None else NamedFile(path, RunKey(str(path.parent), parts[0]), parts[1], parts[2])


def damaged_rank(path: Path, pattern: re.Pattern[str], runs: Container[RunKey]) -> NamedFile | None:
    """What the name of ``path``, a file of no format, says when it makes it a rank of one of ``runs``: then it
    is that run's file, damaged (emptied, or zeroed by a crash), to be read and reported, not skipped."""
    named = run_key(path, pattern)
    return named if named is not None and named.key in runs else None


def _name_parts(name: str, pattern: re.Pattern[str]) -> tuple[str, int, str] | None:
    """(stem, rank, time stamp) of a file name, or None for a name without a rank.

    A --rank-regex may let its rank group catch anything (``(?P<rank>.*)``) or nothing (``(?P<rank>x)?``):
    a name has a rank only where the group catches a number.
    """
    match = pattern.search(name)
    if match is None or not (match.group("rank") or "").isdecimal():
        return None
    stamp = (match.groupdict().get("stamp") or "") if "stamp" in pattern.groupindex else ""
    return name[: match.start("rank")], int(match.group("rank")), stamp


def siblings(key: RunKey, pattern: re.Pattern[str]) -> list[NamedFile]:
    """Every file of the directory whose name puts it in the stem of run ``key`` (sorted).  A symbolic link is
    one only when its target lies in the same directory: as in a walk, a link named like a rank file is not
    followed out of the checked tree."""
    directory = Path(key.directory)
    inside = os.path.join(os.path.realpath(directory), "")
    try:
        with os.scandir(directory) as listing:  # its entries know whether they are files without a stat() each
            entries = sorted((entry.name, _is_file(entry, inside)) for entry in listing)
    except OSError:
        return []
    found = []
    for name, is_file in entries:
        if not is_file or name.startswith(".") or (parts := _name_parts(name, pattern)) is None or parts[0] != key.stem:
            continue
        found.append(NamedFile(directory / name, RunKey(key.directory, key.stem), parts[1], parts[2]))
    return found


def _is_file(entry: os.DirEntry[str], inside: str) -> bool:
    """Whether the entry is a file or a link to one under ``inside`` (as Path.is_file: False when that cannot be told)."""
    try:
        return entry.is_file() and (not entry.is_symlink() or os.path.realpath(entry.path).startswith(inside))
    except OSError:
        return False


def split_by_time(files: Iterable[NamedFile]) -> dict[RunKey, list[NamedFile]]:
    """The runs among the files of one stem, told apart by the time stamps in their names.

    Each process writes its file once, when it has finished (``write_list_to_file``): the files of one
    run carry one time stamp, or - in scaling mode, where each rank is profiled by its own process one
    after the other - increasing ones.  Taken in time order, a rank that comes again starts the next run.
    Files without a time stamp form one run.  Only when a stem holds several runs does a run's key
    (and so its label) carry the time stamp of its first file.
    """
    files = list(files)
    runs: dict[RunKey, list[NamedFile]] = {}
    unstamped = sorted((f for f in files if not f.stamp), key=lambda f: (f.rank, f.path))
    if unstamped:
        runs[unstamped[0].key] = unstamped
    current: list[NamedFile] = []
    ranks: set[int] = set()
    for named in sorted((f for f in files if f.stamp), key=lambda f: (f.stamp, f.rank, f.path)):
        if not current or named.rank in ranks:
            current, ranks = [], set()
            runs[RunKey(named.key.directory, named.key.stem, named.stamp)] = current
        current.append(named)
        ranks.add(named.rank)
    stamped = [key for key in runs if key.started]
    if len(stamped) == 1 and not unstamped:  # one run: its stem names it
        return {RunKey(key.directory, key.stem): runs[key] for key in stamped}
    return runs


def name_layout(stem: str) -> dict[str, int]:
    """Layout dimensions the writer put in a file name's stem: ``wd16_tp1_pp2_exp2_…`` -> world 16, tp 1, …"""
    found: dict[str, int] = {}
    if not _NAME_ARGS.match(stem):
        return found
    for match in _NAME_DIMENSIONS.finditer(stem):
        found.setdefault(_DIMENSION_OF_KEY[match.group("key")], int(match.group("value")))
    return found
