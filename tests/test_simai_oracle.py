"""tlint's verdicts against what SimAI itself did with the files of the shared SimAI oracle (tests/simai_oracle.py).

Issue 23's measures, with ``--consumer simai``: an error on at least 95 % of SimAI's aborts, an error or a warning
on at least 90 % of its wrong simulations, and no error on at least 95 % of the files it simulates as written.
The oracle is read in place from ``../shared/oracle/simai``; without it the test is skipped.
"""

from __future__ import annotations

import pytest

from tests.simai_oracle import ORACLE, TARGETS, Confusion


def test_the_verdicts_for_simai_meet_issue_23s_measures() -> None:
    if not (ORACLE / "oracle.tsv").is_file():
        pytest.skip(f"{ORACLE} is absent: the SimAI oracle is read in place from ../shared/oracle/simai beside the project")
    confusion = Confusion.of(ORACLE, "--consumer", "simai")
    figures = confusion.figures()
    assert all(total for _, total in figures.values()), figures
    missed = {name: (met, total) for name, (met, total) in figures.items() if met < TARGETS[name] * total}
    assert missed == {}, f"{missed}; the files that miss: {dict(confusion.misses())}\n{confusion.table()}"
