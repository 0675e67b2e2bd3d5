"""The per-format Lark grammars: loading, plain-words syntax errors, and the derived fast path.

Every grammar in ``grammars/`` is the single definition of its format.  Lark parses with it (LALR,
contextual lexer) wherever a line is rejected or a format is small.  For the million-line formats a
regular expression is derived mechanically from the same grammar rules, so that valid lines are
matched at C speed while rejected lines are re-parsed by Lark to say exactly where and why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from lint.models.common import NOT_DIAGNOSED, Diagnoses
from lint.store.digest import hex_digest
from lint.store.resources import grammar_path

if TYPE_CHECKING:
    # Lark is imported where a line is parsed or a grammar read afresh: a file whose lines all take the fast
    # path, with the grammar's answers remembered (see Grammar._answer), needs none of it.
    from lark import Lark
    from lark.exceptions import UnexpectedInput

_EXPECT_COMMENT = re.compile(r"^//\s*expect\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?P<words>.+?)\s*$", re.M)
_FOUND_WORD = re.compile(r"[^\s,()'\[\]{}=:]+")
_FOUND_LIMIT = 40
_END_NAMES = frozenset({"$END", "<END-OF-FILE>"})
_CONTROL_ESCAPES = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}
_BLANKS = {" ": "a space", "\t": "a tab", "\r": "a carriage return"}


class GrammarSyntaxError(Exception):
    """A text the grammar rejects: 1-based column within the parsed text, and what went wrong."""

    def __init__(self, column: int, found: str, expected: str) -> None:
        self.column = column
        self.found = found
        self.expected = expected
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"expected {self.expected}, found {self.found}"


class NotDiagnosed(GrammarSyntaxError):
    """A text the fast path rejected after its file's allowance of diagnoses is spent (Grammar.diagnosing):
    Lark was not asked where or why.  Its message is NOT_DIAGNOSED, by which the engine counts such lines."""

    def __init__(self) -> None:
        super().__init__(1, "", "")

    @property
    def message(self) -> str:
        return NOT_DIAGNOSED


class DerivedPattern:
    """A regex derived from one grammar rule; ``fields`` are the rule names captured as named groups.

    Compiled when ``regex`` is first read: a caller that joins the texts of many (the alternation of a
    format's start rules) needs none of them compiled on their own.
    """

    def __init__(self, rule: str, text: str, fields: tuple[str, ...]) -> None:
        self.rule = rule
        self.text = text
        self.fields = fields

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.text)


class Grammar:
    """One format's grammar: a Lark LALR parser plus what is needed to explain its errors."""

    def __init__(self, name: str, *, start: list[str], transformer: Any = None, positions: bool = False) -> None:
        self.name = name
        self.text = grammar_path(name).read_text(encoding="utf-8")
        self._lark_options = {"start": start, "transformer": transformer, "propagate_positions": positions}
        self.diagnoses: Diagnoses | None = None  # what Lark may still explain in the file being read; None: all (see diagnosing)

    @cached_property
    def _expect_words(self) -> dict[str, str]:
        """The words a ``// expect NAME: words`` comment gives a terminal, for the errors that name it."""
        return {m["name"]: m["words"] for m in _EXPECT_COMMENT.finditer(self.text)}

    @cached_property
    def lark(self) -> Lark:
        """The LALR parser, built on first use: a file whose lines all take the fast path never needs it."""
        from lark import Lark

        return Lark(self.text, parser="lalr", lexer="contextual", maybe_placeholders=False, **self._lark_options)

    def parse(self, text: str, start: str | None = None) -> Any:
        """Parse ``text`` or raise :class:`GrammarSyntaxError` (:class:`NotDiagnosed` once the allowance is spent)."""
        from lark.exceptions import UnexpectedInput

        try:
            return self.parse_or_raise(text, start)
        except UnexpectedInput as exc:
            raise self.explain(exc, text) from None

    def parse_or_raise(self, text: str, start: str | None = None) -> Any:
        """Lark's tree of ``text``, or Lark's own error (for a caller that explains it its own way); :class:`NotDiagnosed`,
        without asking Lark, once the file being read has no diagnoses left."""
        diagnoses = self.diagnoses
        if diagnoses is None:
            return self.lark.parse(text, start=start)
        if diagnoses.left <= 0:
            raise NotDiagnosed
        from lark.exceptions import UnexpectedInput

        try:
            return self.lark.parse(text, start=start)
        except UnexpectedInput:
            diagnoses.left -= 1
            raise

    @contextmanager
    def diagnosing(self, diagnoses: Diagnoses | None) -> Iterator[None]:
        """Within this block, Lark explains the texts it rejects while ``diagnoses`` has some left (None: every one);
        the fast path's rejections after that are :class:`NotDiagnosed`.

        Lark costs about a millisecond a line (more for long ones): a file of a million broken lines would cost
        many minutes to explain errors of which only the first --max-findings are shown.  Lines Lark accepts (a
        record the fast path leaves to it) spend nothing.
        """
        previous, self.diagnoses = self.diagnoses, diagnoses
        try:
            yield
        finally:
            self.diagnoses = previous

    # -- errors ---------------------------------------------------------------------------------

    def explain(self, exc: UnexpectedInput, text: str) -> GrammarSyntaxError:
        from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

        if isinstance(exc, UnexpectedCharacters):
            names = exc.allowed or set()
            column = exc.column
            found = _found_at(text, exc.pos_in_stream or 0)
        elif isinstance(exc, UnexpectedToken):
            names = exc.expected or set()
            if exc.token.type == "$END":
                column, found = len(text) + 1, "end of line"
            else:
                column, found = exc.column, _found_at(text, exc.token.start_pos)
        elif isinstance(exc, UnexpectedEOF):
            names = set(exc.expected or ())
            column, found = len(text) + 1, "end of line"
        else:  # pragma: no cover - lark has no other UnexpectedInput kinds
            names, column, found = set(), 1, _found_at(text, 0)
        return GrammarSyntaxError(column if isinstance(column, int) and column > 0 else 1, found, self.describe(names))

    def describe(self, names: set[str] | frozenset[str]) -> str:
        """Say in words what the terminals ``names`` stand for: 'a dtype such as torch.float32 or None'."""
        words = sorted({self._describe_terminal(n) for n in names})
        if not words:
            return "nothing more"
        if len(words) == 1:
            return words[0]
        return "one of " + ", ".join(words[:-1]) + " or " + words[-1]

    def _describe_terminal(self, name: str) -> str:
        if name in _END_NAMES:
            return "end of line"
        if name in self._expect_words:
            return self._expect_words[name]
        from lark.lexer import PatternStr

        try:
            pattern = self.lark.get_terminal(name).pattern
        except KeyError:
            return name.lower().replace("_", " ")
        if isinstance(pattern, PatternStr):
            return quote(pattern.value)
        return name.lower().replace("_", " ")

    # -- the derived fast path --------------------------------------------------------------------

    def field_names(self, rule: str) -> list[str]:
        """The named rules that ``rule`` is made of, looking through `_inlined` rules, in order."""
        return list(self._answer("field_names", rule))

    def alternatives(self, rule: str) -> tuple[str, ...]:
        """The symbols a one-symbol-per-alternative rule such as ``batch_id: INT | NONE`` stands for."""
        return tuple(self._answer("alternatives", rule))

    def terminal_regex(self, name: str) -> str:
        regex: str = self._answer("terminal_regex", name)
        return regex

    def derive(self, rule: str, fields: frozenset[str] | set[str] = frozenset(), loose: dict[str, str] | None = None) -> DerivedPattern:
        """Compile grammar rule ``rule`` into one regex that accepts exactly the same texts.

        Each rule named in ``fields`` becomes a named group (outside repetitions only, where a group
        would keep just its last iteration).  ``loose`` replaces the body of a rule by a looser regex
        for callers that check that part more strictly themselves.
        """
        text, named = self._answer("derive", rule, sorted(fields), loose or {})
        return DerivedPattern(rule, text, tuple(named))

    def _answer(self, question: str, *arguments: Any) -> Any:
        """What :class:`lint.parse.ebnf.Rules` answers to ``question`` (one of its methods) with ``arguments``,
        remembered: a format's parser asks dozens of questions at every start, which reading the grammar's
        EBNF and deriving regexes from it would cost more than checking a small file."""
        answers = _answers(self.text)
        asked = json.dumps([question, *arguments], sort_keys=True)
        answer = answers.known.get(asked)
        if answer is None or not _ANSWER_SHAPES[question](answer):
            from lint.parse.ebnf import Rules  # Lark's reading of the grammar, and the derivation

            answer = answers.learn(asked, getattr(Rules(self.name, self.text), question)(*arguments))
        return answer


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# What each question's answer is, as JSON: a remembered answer of another shape is a damaged memo.
_ANSWER_SHAPES: dict[str, Callable[[Any], bool]] = {
    "field_names": _strings,
    "alternatives": _strings,
    "terminal_regex": lambda value: isinstance(value, str),
    "derive": lambda value: isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and _strings(value[1]),
}


class _Answers:
    """The answers given so far about one grammar text, kept in the cache directory under a key naming the
    text, Lark's version and all of tlint's code (which names Python's version), as the grammar's EBNF is
    (:func:`lint.parse.ebnf.ebnf`): a missing, damaged or unwritable memo only costs the answers again."""

    def __init__(self, text: str) -> None:
        from lint.store import disk as memo  # the cache directory, its atomic writes, the code's fingerprint

        self.key = hex_digest(b"grammar answers", memo.lark_version(), memo.code_fingerprint().encode(), text.encode())
        self.known: dict[str, Any] = {}
        remembered = memo.recall(self.key)
        if remembered is not None:
            try:
                known = json.loads(remembered)
            except (ValueError, RecursionError):  # json recurses: `[` thousands deep exhaust the stack
                known = None
            if isinstance(known, dict):
                self.known = known

    def learn(self, asked: str, answer: Any) -> Any:
        """Remember ``answer`` to the question ``asked``, in memory and on disk, as it is read back: JSON (lists,
        not tuples), which the next question alike finds in the shape it expects."""
        from lint.store import disk as memo

        self.known[asked] = json.loads(json.dumps(answer))
        memo.remember(self.key, json.dumps(self.known).encode())
        return self.known[asked]


@cache
def _answers(text: str) -> _Answers:
    return _Answers(text)


def quote(text: str) -> str:
    """A value as findings show it: quoted, control characters escaped, long values cut."""
    if len(text) > _FOUND_LIMIT:
        text = text[:_FOUND_LIMIT] + "…"
    if not text:
        return "nothing"
    text = text.translate(_CONTROL_ESCAPES)
    return f'"{text}"' if "'" in text else f"'{text}'"


def _found_at(text: str, pos: int) -> str:
    if pos >= len(text):
        return "end of line"
    word = _FOUND_WORD.match(text, pos)
    if word:
        return quote(word.group())
    return _BLANKS.get(text[pos]) or quote(text[pos])
