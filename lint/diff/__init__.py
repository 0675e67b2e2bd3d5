"""``tlint diff``: a semantic differ for runs and workloads.

read -> detect -> adapter (one per format) -> :class:`~lint.profile.profile.Profile` -> :func:`~lint.diff.compare.diff`
-> :class:`~lint.models.diff.DiffReport` -> a diff reporter.  Same-format pairs are compared in full,
cross-format pairs on the common per-layer communication profile (:mod:`lint.profile.layers`).
"""

from __future__ import annotations

from lint.diff.compare import DiffOptions, diff, nothing_compared
from lint.diff.sides import SideOptions, load_side, problems
from lint.models.diff import DiffReport
from lint.profile.profile import Profile
from lint.profile.side import DiffInputError, UnreadableSide
from lint.read.source import printable_path


def diff_paths(a: str, b: str, sides: SideOptions | None = None, options: DiffOptions | None = None) -> DiffReport:
    """The diff of the inputs at ``a`` and ``b``, each also checked as `tlint check` would (its problems make
    the verdict inconclusive).  A side too damaged to give anything to compare makes an inconclusive report
    of its problems, as its check names them; an input error where its check names none."""
    sides = sides or SideOptions()
    loaded = [_load(path, sides) for path in (a, b)]
    found = (problems(a, sides), problems(b, sides))
    unreadable = [side for side in loaded if isinstance(side, UnreadableSide)]
    for side, side_problems in zip(loaded, found, strict=True):
        if isinstance(side, UnreadableSide) and not side_problems.count:
            raise side
    first, second = (_placeholder(side, path) for side, path in zip(loaded, (a, b), strict=True))
    if unreadable:
        return nothing_compared(first, second, options, found, printable_path("; ".join(map(str, unreadable))))
    return diff(first, second, options, found)


def _load(path: str, sides: SideOptions) -> Profile | UnreadableSide:
    try:
        return load_side(path, sides)
    except UnreadableSide as error:
        return error


def _placeholder(side: Profile | UnreadableSide, path: str) -> Profile:
    """The side's profile; an empty one, of the format it was read as, for a side that gave nothing."""
    return Profile(format=side.format_name or "unknown", path=printable_path(path)) if isinstance(side, UnreadableSide) else side


__all__ = ["DiffInputError", "DiffOptions", "SideOptions", "diff_paths"]
