"""``megatron-trace``: parse per-rank operation traces line by line into :mod:`lint.formats.megatron_trace.records`.

Valid lines take the fast path: one regex per layout, derived from ``grammars/megatron-trace.lark``,
and one derived regex for the sub-operations.  Steps repeat the same sub-operation calls with new
times, so a list's times (valid numbers only) are split off and the rest - the list with its times
zeroed - is checked by the sub-operation regex and parsed once per file.  A line no regex accepts is
parsed by Lark, which either reports the exact column and what it expected, or (should the two ever
disagree) builds the record from its tree: the grammar decides, the regexes only make valid lines cheap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from operator import call
from typing import TYPE_CHECKING, Any

from lint.formats.descriptor import HEAD_LINES, Evidence
from lint.formats.megatron_trace.records import (
    NO_SUB_OPERATIONS,
    DdpGradCommRecord,
    OpRecord,
    SubCall,
    SubOperation,
    SubOperations,
)
from lint.models.common import INT64_MAX, Cause, SyntaxProblem, TextMemo, fits_int64, int64
from lint.parse.grammar import Grammar, GrammarSyntaxError, quote

if TYPE_CHECKING:
    from lark import Token, Tree

NAME = "megatron-trace"
SYNTAX_CODE = "TL001"

# An op record starts `rank:R:op(`; a stage-keyed scheduling plan (layout SP) `stage:S:op(`.
_HEAD = re.compile(r"(?:rank|stage):[0-9]+:[A-Za-z_][A-Za-z0-9_]*\(")
_RANK = re.compile(r"rank:([0-9]+):")

_VARIANT_RULES = {"record_v1": "V1", "record_v2": "V2", "record_v3": "V3", "record_v0": "V0", "ddp_grad_comm": "V3", "record_stage_plan": "SP"}
_SUB_FIELDS = (
    "trace_src_func",
    "sub_duration",
    "sub_timestamp",
    "sub_input__shape",
    "sub_input__dtype",
    "sub_func_name",
    "sub_group",
    "sub_comm_func",
    "sub_extra",
)

if TYPE_CHECKING:
    from lark import Token, Tree
# Grammar fields printed under another record attribute: V2's description, and the stage-keyed plan's own
# field rules (``plan_stage_id`` is ``stage_id``).
_RENAMED = {"description_v2": "description"} | {
    f"plan_{name}": name for name in ("stage_id", "batch_id", "mg_state", "duration", "description", "group_kind", "input__shape", "input__dtype")
}
_LAYOUT_RULES = {"V0": "record_v0", "V1": "record_v1", "V2": "record_v2", "V3": "record_v3", "SP": "record_stage_plan"}
# How a layout opens a record and separates its keys (the stage-keyed plan writes no rank, and ", ").
_HEAD_KEY = {"record_stage_plan": "stage_id"}
_SEPARATOR = {"record_stage_plan": ", "}
_KEYS = {("record_v2", "mg_state"): "stage"}  # a field printed under another key


def _description(key: str) -> str:
    """The fast path's description: its terminal's text (no comma before ``key``), with at most 63 commas.

    Each comma is one iteration of a repeated group, for which Python's regex engine saves every group
    of the line's regex: a line of a million commas would cost a gigabyte.  No writer puts more than one
    comma in a description; a line with more is left to Lark, which reads it alike.
    """
    no_key = f",(?!{re.escape(key)})"
    return f"(?:[^,\\n]|{no_key})[^,\\n]*(?:{no_key}[^,\\n]*){{0,63}}"


# The descriptions of the layouts, by field rule, and the key that follows each.
_DESCRIPTIONS = {
    "description": _description("group_kind="),
    "description_v2": _description("sub_operations="),
    "plan_description": _description(" group_kind="),
}


def detect(lines: list[str]) -> Evidence:
    """Every line of a megatron-trace file is a ``rank:R:op(`` (or ``stage:S:op(``) record: most of the first lines start one."""
    texts = [text for text in lines[:HEAD_LINES] if text.strip()]
    return Evidence.majority(sum(1 for text in texts if _HEAD.match(text)), len(texts), "start a `rank:R:op(` record")


@lru_cache(maxsize=4096)  # bounded: a file of endlessly new shapes must not grow memory
def _shape(text: str) -> tuple[int, ...] | None:
    if text in ("None", ""):
        return None
    inner = text[1:-1]
    shape = tuple(int64(x) for x in inner.split(", ")) if inner else ()
    if math.prod(shape) > INT64_MAX:  # torch counts a tensor's elements in an int64
        raise OverflowError(text)
    return shape


def _none_or(convert: Callable[[str], Any]) -> Callable[[str | None], Any]:
    return lambda text: None if text is None or text in ("None", "") else convert(text)


def _text_or_none(text: str | None) -> str | None:
    """'None' is Python's None; a field the line leaves out (only an empty description) is ''."""
    return None if text == "None" else text or ""


_VALUE_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "INT": int64,
    "NUMBER": float,
    "BOOL": lambda text: text == "True",
    "shape": _shape,
}


class _Remembered(TextMemo[Any]):
    """Field text -> its value, for the fields that repeat (rank, op, stage, shape, ...): a repeated text
    costs one dict lookup instead of a conversion.  Bounded in entries and characters like every TextMemo."""

    def __init__(self, convert: Callable[[str], Any]) -> None:
        super().__init__()
        self.convert = convert

    def __missing__(self, text: str | None) -> Any:
        return self.remember(text, self.convert(text))  # type: ignore[arg-type]  # None: a field the line leaves out


class Parser:
    """Builds the grammar and its derived regexes once; ``parse`` then streams records."""

    def __init__(self) -> None:
        self.grammar = Grammar(NAME, start=["record"], positions=True)
        # [rule, its regex (compiled when a line first needs it: a file keeps one layout), its fields, its derivation]
        self._layouts = [self._layout(rule) for rule in _VARIANT_RULES]
        sub_op = self.grammar.derive("sub_op", set(_SUB_FIELDS))
        # Group 1 is the whole sub-operation: joined back, the matches must rebuild the list exactly.
        self._sub_op = re.compile(f"({sub_op.text})")
        # Splits a list into the texts between the timings and the timings: steps repeat their calls with new
        # times, so the list with its timings zeroed is parsed once.  A timing is taken as a run of the
        # characters of a number and proved one by float(), which takes exactly the texts of the grammar's
        # NUMBER that start so (a ValueError hands the line to Lark): one single-character repeat, where the
        # terminal's optional fraction and exponent cost Python's regex engine a group each (12 % of a check).
        self._timings = re.compile(f",duration=({_NUMBER_LIKE}),timestamp=({_NUMBER_LIKE})(?=[,'])")
        # zeroed list -> its calls and what rules derived from them (per_calls), shared by the steps that make them
        self._known_calls: TextMemo[tuple[tuple[SubCall, ...], dict[Any, Any]]] = TextMemo()
        # The last few lists found, tried first: comparing a list's text with a few others (mostly of another
        # length) costs less than hashing it, and a file's steps take turns with a few lists.
        self._recent: list[tuple[str, tuple[tuple[SubCall, ...], dict[Any, Any]]]] = []
        self._fields = {rule: fields for rule, _, fields, _ in self._layouts}
        # Per layout: (record attribute, converter) for each captured field, in group order.
        self._plans = {rule: tuple((_RENAMED.get(name, name), self._converter(name)) for name in fields) for rule, fields in self._fields.items()}
        self._converters = {rule: tuple(convert for _, convert in plan) for rule, plan in self._plans.items()}
        # Per layout: record attribute -> the regex group of its field (column_of).
        self._groups = {rule: {attribute: name for (attribute, _), name in zip(plan, self._fields[rule], strict=True)} for rule, plan in self._plans.items()}
        # Layouts whose fields come in the record's own order are built positionally (the common V1 is).
        record_fields = list(OpRecord.__match_args__[3:])
        self._positional = {
            rule: [attribute for attribute, _ in plan] == record_fields[: len(plan)] for rule, plan in self._plans.items() if rule != "ddp_grad_comm"
        }

    def _layout(self, rule: str) -> list[Any]:
        # The list is checked by the strict sub-operation regex; here it only has to end the line, which
        # ``(?s:.*)`` finds by jumping to the end, where ``.*`` would look at every character for a newline.
        derived = self.grammar.derive(rule, set(self.grammar.field_names(rule)), loose={"sub_operations": r"\[(?s:.*)\]", **_DESCRIPTIONS})
        return [rule, None, derived.fields, derived]

    def _converter(self, field_name: str) -> Callable[[str], Any]:
        if field_name == "sub_operations":
            return self._sub_operations
        kinds = self.grammar.alternatives(field_name)
        typed = [k for k in kinds if k != "NONE"]
        convert = _VALUE_CONVERTERS.get(typed[0], str) if len(typed) == 1 else str
        if _RENAMED.get(field_name, field_name) == "description" or "NONE" in kinds or convert is str:
            convert = _none_or(convert) if convert is not str else _text_or_none
        if typed == ["NUMBER"]:
            return convert  # times: nearly every value is new
        return _Remembered(convert).__getitem__

    # -- where a field is -------------------------------------------------------------------------

    def column_of(self, record: OpRecord | DdpGradCommRecord, field: str, index: int | None = None) -> int | None:
        """The 1-based column of ``field``'s value on ``record``'s line (of its ``index``-th sub-operation's, from
        0), as the layout's derived regex finds it; None where it cannot be told."""
        text = getattr(record, "line_text", None)
        if text is None:
            return None
        rule = "ddp_grad_comm" if record.kind == "ddp_grad_comm" else _LAYOUT_RULES[record.variant]
        pattern = next(layout[3].regex for layout in self._layouts if layout[0] == rule)
        match = pattern.fullmatch(text)
        if match is None:  # read by Lark (a description past the fast path's commas): no column to tell
            return None
        if index is None:
            group = self._groups[rule].get(field)
            return match.start(group) + 1 if group is not None and match.start(group) >= 0 else None
        listed = match.start("sub_operations")
        for number, sub in enumerate(self._sub_op.finditer(text, listed, match.end("sub_operations"))):
            if number == index:
                group = _SUB_GROUPS.get(field, field)
                return sub.start(group) + 1 if group in self._sub_op.groupindex and sub.start(group) >= 0 else None
        return None

    # -- writing ----------------------------------------------------------------------------------

    def render(self, record: OpRecord | DdpGradCommRecord) -> str:
        """The line a writer of this layout prints for ``record`` (parse(render(r)) == r)."""
        rule = "ddp_grad_comm" if record.kind == "ddp_grad_comm" else _LAYOUT_RULES[record.variant]
        names = self.grammar.field_names(rule)
        values = [(_KEYS.get((rule, name), _RENAMED.get(name, name)), getattr(record, _RENAMED.get(name, name))) for name in names[2:]]
        head = _HEAD_KEY.get(rule, "rank")
        opening = f"{head.removesuffix('_id')}:{getattr(record, head)}:{record.op}("
        return opening + _SEPARATOR.get(rule, ",").join(f"{key}={_render_value(value)}" for key, value in values) + ")"

    # -- streaming ------------------------------------------------------------------------------

    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[OpRecord | DdpGradCommRecord | SyntaxProblem]:
        layouts = self._layouts
        previous: tuple[int, Cause | None] = (0, None)  # the line and cause of the last problem (SyntaxProblem.follows)

        def slowly(number: int, text: str) -> OpRecord | DdpGradCommRecord | SyntaxProblem:
            nonlocal previous
            item = self._parse_slowly(number, text)
            if isinstance(item, SyntaxProblem):  # a field is counted by its '=': the same field in lines of one layout
                previous = number, item.follows(text.count("=", 0, item.column - 1), previous[1] if previous[0] == number - 1 else None)
            return item

        for number, text in lines:
            if not text:
                continue
            for index, layout in enumerate(layouts):
                rule, regex = layout[0], layout[1]
                if regex is None:
                    regex = layout[1] = layout[3].regex
                match = regex.fullmatch(text)
                if match is None:
                    continue
                if index:  # files keep one layout: try the last one first next time
                    layouts.insert(0, layouts.pop(index))
                try:
                    record = self._build(rule, number, match.groups())
                except (_SubOperationsMismatch, ValueError, OverflowError):  # Lark decides and explains
                    yield slowly(number, text)
                else:
                    record.line_text = text
                    yield record
                break
            else:
                yield slowly(number, text)

    def _parse_slowly(self, number: int, text: str) -> OpRecord | DdpGradCommRecord | SyntaxProblem:
        from lark import Tree  # Lark parses the lines the fast path rejects: a file without one never imports it

        try:
            tree = self.grammar.parse(text)
        except GrammarSyntaxError as error:
            return SyntaxProblem(number, error.column, SYNTAX_CODE, error.message, _rank_of(text))
        texts: dict[str, str | list[tuple[str, ...]]] = {child.data: _slice(text, child) for child in tree.children if isinstance(child, Tree)}
        sub_trees = next(child for child in tree.children if isinstance(child, Tree) and child.data == "sub_operations") if "sub_operations" in texts else None
        if sub_trees is not None:
            texts["sub_operations"] = [_sub_op_texts(text, sub) for sub in sub_trees.children if isinstance(sub, Tree)]
        try:
            record = self._build(tree.data, number, tuple(texts.get(name) for name in self._fields[tree.data]))
            record.line_text = text
            return record
        except OverflowError:
            return self._overflow(number, text, tree)
        except ValueError as error:
            op_column = text.index(":", text.index(":") + 1) + 2
            return SyntaxProblem(number, op_column, SYNTAX_CODE, str(error), _rank_of(text))

    def _overflow(self, number: int, text: str, tree: Tree[Token]) -> SyntaxProblem:
        """The finding for a line the grammar accepts but whose integers or tensor sizes overflow an int64."""
        from lark import Token

        for token in tree.scan_values(lambda value: isinstance(value, Token) and value.type == "INT"):
            if not fits_int64(token):
                message = f"expected {self.grammar.describe({'INT'})}, found {quote(token)}, which overflows a 64-bit integer"
                return SyntaxProblem(number, (token.start_pos or 0) + 1, SYNTAX_CODE, message, _rank_of(text))
        shape = next(shape for shape in tree.find_data("shape") if math.prod(int(str(size)) for size in shape.children) > INT64_MAX)
        message = f"expected a tensor shape, found {quote(_slice(text, shape))}, whose element count overflows a 64-bit integer"
        return SyntaxProblem(number, shape.meta.start_pos + 1, SYNTAX_CODE, message, _rank_of(text))

    def _build(self, rule: str, number: int, texts: tuple[Any, ...]) -> OpRecord | DdpGradCommRecord:
        """The record of layout ``rule`` from its field texts (None: a field the line leaves out)."""
        if self._positional.get(rule):
            return OpRecord(number, 1, _VARIANT_RULES[rule], *map(call, self._converters[rule], texts))
        values = {attribute: convert(text) for (attribute, convert), text in zip(self._plans[rule], texts, strict=True)}
        if rule == "ddp_grad_comm":
            op = values.pop("op")
            if op != "ddp_grad_comm":
                raise ValueError(f"a record with the ddp_grad_comm keys must be named ddp_grad_comm, found '{op}'")
            return DdpGradCommRecord(line=number, column=1, **values)
        values.setdefault("rank", None)  # the stage-keyed plan names no rank
        return OpRecord(line=number, column=1, variant=_VARIANT_RULES[rule], **values)

    def _sub_operations(self, text: str | list[tuple[str, ...]]) -> SubOperations:
        if isinstance(text, list):  # already split by the Lark tree
            return SubOperations(
                tuple(_sub_call(func, *rest) for func, _, _, *rest in text),
                tuple(float(fields[1]) for fields in text),
                tuple(float(fields[2]) for fields in text),
            )
        if text == "[]":
            return NO_SUB_OPERATIONS
        parts = self._timings.split(text)
        zeroed = ",duration=0,timestamp=0".join(parts[0::3])
        for recent, remembered in self._recent:
            if recent == zeroed:
                known = remembered
                break
        else:
            known = self._known_calls.get(zeroed) or self._calls(zeroed, len(parts) // 3)
            self._recent = [(zeroed, known), *self._recent[: _RECENT_LISTS - 1]]
        return SubOperations(known[0], tuple(map(float, parts[1::3])), tuple(map(float, parts[2::3])), known[1])

    def _calls(self, zeroed: str, timings: int) -> tuple[tuple[SubCall, ...], dict[Any, Any]]:
        """The calls of a list whose timings are zeroed, checked by the strict sub-operation regex."""
        found = self._sub_op.findall(zeroed)
        if len(found) != timings or "[" + ", ".join([match[0] for match in found]) + "]" != zeroed:
            raise _SubOperationsMismatch  # a timing that is no number, or a sub-operation the regex rejects
        return self._known_calls.remember(zeroed, (tuple(_sub_call(func, *rest) for _, func, _, _, *rest in found), {}))


_RECENT_LISTS = 4
# What may be a NUMBER (grammars/megatron-trace.lark): float() decides (see Parser._timings).
_NUMBER_LIKE = r"-?(?:[0-9][0-9.eE+-]*|inf|nan)"
# A sub-operation's attributes -> the groups of its fields in the sub-operation regex.
_SUB_GROUPS = {"duration": "sub_duration", "timestamp": "sub_timestamp"} | {
    name: f"sub_{name}" for name in ("input__shape", "input__dtype", "func_name", "group", "comm_func")
}


class _SubOperationsMismatch(Exception):
    """The loose list regex matched but the strict sub-operation regex does not rebuild it."""


def _rank_of(text: str) -> int | None:
    """The rank a line names, for the findings on it; None if it names none, or an impossible one."""
    match = _RANK.match(text)
    return int(match.group(1)) if match and fits_int64(match.group(1)) else None


def _sub_call(func: str, shape_text: str, dtype: str, func_name: str, group: str, comm_func: str, extra: str) -> SubCall:
    """A sub-operation's call from its field texts ('' or 'None': left out)."""
    return SubCall(
        func,
        _shape(shape_text),
        None if dtype in ("", "None") else dtype,
        func_name or None,
        group or None,
        comm_func or None,
        _extra(extra) if extra else None,
    )


def _render_value(value: Any) -> str:
    if isinstance(value, list | SubOperations):
        return "[" + ", ".join(f"'{_render_sub_operation(sub)}'" for sub in value) + "]"
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def _render_sub_operation(sub: SubOperation) -> str:
    text = f"trace_src_func={sub.trace_src_func},duration={sub.duration},timestamp={sub.timestamp}"
    for key in ("input__shape", "input__dtype", "func_name", "group", "comm_func"):
        value = getattr(sub, key)
        if value is not None:
            text += f",{key}={_render_value(value)}"
    for key, value in (sub.extra or {}).items():
        text += f",{key}={value}"
    return text


def _extra(text: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in text[1:].split(","))


def _slice(text: str, tree: Tree[Token]) -> str:
    meta = tree.meta
    return "" if meta.empty else text[meta.start_pos : meta.end_pos]


def _sub_op_texts(text: str, sub_op: Tree[Token]) -> tuple[str, ...]:
    from lark import Tree

    found = {child.data: _slice(text, child) for child in sub_op.children if isinstance(child, Tree)}
    if "sub_extra" in found:  # the rule's text starts at its first key; keep the leading comma
        found["sub_extra"] = "," + found["sub_extra"].lstrip(",")
    return tuple(found.get(name, "") for name in _SUB_FIELDS)
