"""``optprime-log``: the values of a record's fields, converted from their text, and the records built from them.

Each grammar field has a converter (:data:`CONVERTERS`: integers checked against int64, floats, the Python
literals OptimusPrime prints); a grammar rule's record is built from its fields' texts by its
:class:`RecordRule`, and the records most of a log is made of by builds written out for them
(:data:`WRITTEN_OUT_BUILDS`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from functools import lru_cache
from typing import Any

from lint.formats.optprime_log.records import LayerTimingRecord, Record, TimingHeaderRecord, flat_ints
from lint.models.common import int64
from lint.parse.pyliteral import read_literal


def as_text(text: str | None) -> str | None:
    return text


def _present(text: str | None) -> bool:
    return text is not None


def optional(convert: Callable[[str], Any]) -> Callable[[str | None], Any]:
    return lambda text: None if text is None else convert(text)


def _int(text: str | None) -> int | None:
    """An integer field: a short one needs no int64 check (the common case, so without a call for it)."""
    if text is None:
        return None
    return int(text) if len(text) < 19 else int64(text)


def _float(text: str | None) -> float | None:
    return None if text is None else float(text)


def _literal(convert: Callable[[Any], Any]) -> Callable[[str | None], Any]:
    """A Python literal (a dict, list or tuple repr) whose syntax the grammar has checked; ``convert``
    builds the record's value from it and must not change it (it is shared: see _read_literal)."""
    return lambda text: None if text is None else convert(_read_literal(text) if len(text) <= _CACHED_LITERAL else read_literal(text))


# Every rank prints the same stage map and meshes: each is read once.  Bounded in count and in length,
# so that a file of endlessly new or huge literals cannot grow memory.
_CACHED_LITERAL = 4096


@lru_cache(maxsize=1024)
def _read_literal(text: str) -> Any:
    return read_literal(text)


_INT_FIELDS = (
    "rank",
    "stage",
    "step",
    "local_rank",
    "local_world_size",
    "pid",
    "source_line",
    "device_index",
    "length",
    "modcnt",
    "num_stage",
    "segment",
    "count",
    "plain_count",
    "call_module",
    "call_function",
    "get_attr",
    "getitem_index",
    "ops",
    "layer_id",
    "heads",
    "exitcode",
    "signal_number",
    "index",
    "epoch",
    "batch",
    "batches",
)
_FLOAT_FIELDS = ("total_ms", "avg_ms", "lr", "ms_per_batch", "elapsed_s", "loss", "ppl", "seconds")
CONVERTERS: dict[str, Callable[[str | None], Any]] = {
    **{name: _int for name in _INT_FIELDS},
    **{name: _float for name in _FLOAT_FIELDS},
    "prefix_space": _present,
    "split_mark": _present,
    "post_split": _present,
    "root_cause_heading": _present,
    "parameters": optional(lambda text: int64(text.replace(",", ""))),
    "getitem_module": optional(lambda text: text[1:-1]),
    "exception_message": optional(lambda text: text[len(": ") :]),
    "failure_label": optional(lambda text: text.strip().rstrip(":").strip()),
    "stage_ranks": _literal(lambda stages: {stage: tuple(members) for stage, members in stages.items()}),
    "special_entries": _literal(lambda nodes: {name: tuple(stages) for name, stages in nodes.items()}),
    "ranges": _literal(lambda ranges: tuple(map(tuple, ranges))),
    "fx_inputs": lambda text: tuple(text.split(", ")) if text else (),
    "mesh_ranks": _literal(flat_ints),
    "mesh_dim_names": _literal(tuple),
    "mesh_device": _literal(str),
    "mesh_stride": _literal(tuple),
}

_RANK = CONVERTERS["rank"]
_RANK = CONVERTERS["rank"]
_DIM_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


def mesh_dims(text: str) -> tuple[tuple[str, ...] | None, tuple[Any, ...]]:
    """``(pp=2, dp=1)`` -> names and sizes (a size may be a nested tuple); ``(2,)`` -> no names."""
    if "=" not in text:
        return None, tuple(read_literal(text))
    names_and_sizes = read_literal("[" + _DIM_NAME.sub(r"'\1', ", text[1:-1]) + "]")
    return tuple(names_and_sizes[0::2]), tuple(names_and_sizes[1::2])


@dataclass(slots=True)
class RecordRule:
    """How to build the record of one grammar rule from the texts of its fields."""

    record_type: type[Record]
    fields: tuple[tuple[str, str, Callable[[str | None], Any]], ...]  # grammar field, record field, converter
    constants: InitVar[dict[str, str]]  # record fields the rule's text does not carry
    # The record's positional arguments after line and column, in its order: the grammar field and the converter
    # of each (None: the text as it is; a constant's converter ignores the text).  Passed by position, which
    # costs the call least.
    arguments: tuple[tuple[str, Callable[[str | None], Any] | None], ...] = field(init=False)
    rank: str | None = field(init=False)  # the grammar field that gives the record's rank, where its text says it
    fields_named: tuple[str, ...] = field(init=False)  # the grammar fields

    def __post_init__(self, constants: dict[str, str]) -> None:
        self.fields_named = tuple(grammar_name for grammar_name, _, _ in self.fields)
        by_record_field: dict[str, tuple[str, Callable[[str | None], Any] | None]] = {
            name: (grammar_name, None if convert is as_text else convert) for grammar_name, name, convert in self.fields
        }
        if constants and not self.fields_named:
            raise ValueError(f"{self.record_type.__name__}: a rule without fields has nothing to read constants beside")
        # a constant's converter is given the text of the rule's first field, which it ignores
        by_record_field |= {name: (self.fields_named[0], _constant(value)) for name, value in constants.items()}
        rank = by_record_field.pop("rank", None)
        self.rank = rank[0] if rank else None
        positional = [spec.name for spec in dataclasses.fields(self.record_type) if not spec.kw_only][2:]  # after line, column
        self.arguments = tuple(by_record_field.pop(name) for name in positional)
        if by_record_field:
            raise ValueError(f"{self.record_type.__name__} has no field for {sorted(by_record_field)}")

    def build(self, number: int, column: int, texts: Any) -> Record:
        """The record from the texts of its fields: the derived regex's match, or a dict of every field (None: absent)."""
        arguments = [texts[grammar_name] if convert is None else convert(texts[grammar_name]) for grammar_name, convert in self.arguments]
        if self.rank is None:
            return self.record_type(number, column, *arguments)
        return self.record_type(number, column, *arguments, rank=_RANK(texts[self.rank]))


# The builds of the records that make most of a log (a long run: three quarters layer records, a quarter timing
# headers), from a match of their rule's derived regex, written out: through RecordRule.build, a Python call
# per field costs them twice what making the record does.  The rules require every field, so every match holds
# them; each build gives what RecordRule.build gives from the same match (tests/formats/test_fast_paths.py
# holds them against it on every such record of the samples and their edge slips).


def _int_text(text: str) -> int:
    """:func:`_int` of a field the rule requires."""
    return int(text) if len(text) < 19 else int64(text)


def _layer_timing(number: int, column: int, match: re.Match[str]) -> Record:
    return LayerTimingRecord(number, column, match["layer"], float(match["total_ms"]), _int_text(match["ops"]), float(match["avg_ms"]))


def _timing_header(number: int, column: int, match: re.Match[str]) -> Record:
    return TimingHeaderRecord(number, column, _int_text(match["stage"]), _int_text(match["step"]), rank=_int_text(match["rank"]))


WRITTEN_OUT_BUILDS: dict[str, Callable[[int, int, re.Match[str]], Record]] = {"layer_timing": _layer_timing, "timing_header": _timing_header}


def _constant(value: str) -> Callable[[str | None], str]:
    return lambda as_text: value
