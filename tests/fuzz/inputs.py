"""What the fuzz suite feeds tlint: real files (seeds, and the shared SimAI corpus where present), cut, spliced and damaged the
ways files get damaged, plus the extreme values a parser must survive."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import strategies as st

from tests.shared_corpus import CORPUS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEEDS: tuple[bytes, ...] = tuple(path.read_bytes() for path in [*sorted(FIXTURES.glob("seeds/*")), *sorted((CORPUS / "simai_workload").glob("*.txt"))])

ENORMOUS_NUMBERS = (
    b"1" + b"0" * 400,
    b"1e400",
    b"-1e400",
    b"9" * 5000,
    b"1e-400",
    b"0x1p1024",
    b"1" * 4301,
    b"nan",
    b"inf",
    b"-0",
    b"1e308",
    b"9223372036854775807",
    b"9223372036854775808",
    b"4611686018427387904",
    b"0" * 30 + b"1",
)
# Ranks and stages that make runs of extreme shape: far apart, at the int64 limit, all in one stage.
RUN_NUMBERS = (0, 1, 2, 3, 7, 1000, 2**31, 2**62, 2**63 - 1)
DAMAGE = (
    b"\0",
    b"\0" * 64,
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    b"\r",
    b"\r\n",
    b"\n\r",
    b"\n\n\n",
    b"\t",
    b"'",
    b"[",
    b"]",
    b",",
    b"=",
    b"(",
    b")",
    b":",
    b"\x1b[31m",
    "\u2028".encode(),
    "\ufeff".encode(),
)


def nested_brackets(depth: int) -> bytes:
    return b"[" * depth + b"'trace_src_func=f,duration=1,timestamp=2'" + b"]" * depth


@st.composite
def damaged_files(draw: st.DrawFn) -> bytes:
    """A real file after a few random edits: cuts, splices, inserted junk, extreme numbers, other line ends."""
    data = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(("truncate", "splice", "insert", "number", "brackets", "line-ends", "delete", "repeat", "relabel")))
        if edit == "truncate":
            data = data[:at]
        elif edit == "splice":
            other = draw(st.sampled_from(SEEDS))
            data = data[:at] + other[draw(st.integers(0, len(other))) :]
        elif edit == "insert":
            junk = draw(st.one_of(st.sampled_from(DAMAGE), st.binary(max_size=16)))
            data = data[:at] + junk + data[at:]
        elif edit == "number":
            data = _replace_digits_at(data, at, draw(st.sampled_from(ENORMOUS_NUMBERS)))
        elif edit == "brackets":
            data = data[:at] + nested_brackets(draw(st.integers(1, 2000))) + data[at:]
        elif edit == "line-ends":
            data = data.replace(b"\n", draw(st.sampled_from((b"\r\n", b"\r", b"\n\r"))))
        elif edit == "relabel":
            key = draw(st.sampled_from((rb"rank:", rb"stage_id=", rb"batch_id=")))
            value = str(draw(st.sampled_from(RUN_NUMBERS))).encode()
            data = re.sub(re.escape(key) + rb"[0-9]+", key + value, data)
        elif edit == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 200)) :]
        else:
            line_end = data.find(b"\n", at)
            line = data[at : line_end + 1] if line_end >= 0 else data[at:]
            data = data[:at] + line * draw(st.integers(2, 50)) + data[at:]
    return data


def _replace_digits_at(data: bytes, at: int, number: bytes) -> bytes:
    """``data`` with the run of digits at or after ``at`` replaced by ``number`` (unchanged if none follows)."""
    start = next((i for i in range(at, len(data)) if data[i : i + 1].isdigit()), None)
    if start is None:
        return data
    end = start
    while end < len(data) and data[end : end + 1].isdigit():
        end += 1
    return data[:start] + number + data[end:]


any_bytes = st.binary(max_size=2048)
fuzzed_files = st.one_of(damaged_files(), any_bytes)
