"""``tlint diff``: a semantic differ for runs and workloads.

read -> detect -> adapter (one per format) -> :class:`~lint.profile.profile.Profile` -> :func:`~lint.diff.compare.diff`
-> :class:`~lint.models.diff.DiffReport` -> a diff reporter.  Same-format pairs are compared in full,
cross-format pairs on the common per-layer communication profile (:mod:`lint.profile.layers`).
"""

from __future__ import annotations

from lint.diff.compare import DiffOptions, diff
from lint.diff.sides import SideOptions, load_side, problems
from lint.models.diff import DiffReport
from lint.profile.side import DiffInputError


def diff_paths(a: str, b: str, sides: SideOptions | None = None, options: DiffOptions | None = None) -> DiffReport:
    """The diff of the inputs at ``a`` and ``b``, each also checked as `tlint check` would (its problems make
    the verdict inconclusive)."""
    sides = sides or SideOptions()
    first, second = load_side(a, sides), load_side(b, sides)
    return diff(first, second, options, (problems(a, sides), problems(b, sides)))


__all__ = ["DiffInputError", "DiffOptions", "SideOptions", "diff_paths"]
