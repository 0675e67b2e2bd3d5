"""The programs that read the files tlint checks, and which one a file is judged for (the records; the views of
the consumers the formats name are in :mod:`lint.formats`).

A file is only as right as its reader takes it: the same workload runs on ASTRA-sim 1.0 and makes SimAI
divide by zero.  So a format names its consumers (:class:`Consumer`, in its descriptor's ``consumers``:
a small declaration a new format extends), each rule of such a format says for which consumers it holds
and at what severity (``Rule.consumers``), and every file of it is judged for one consumer: the one the
user names (``--consumer``, ``per-path-consumer``, ``consumer`` in the configuration, in that order),
else the one its format infers from what the file shows (the parser module's ``judged_for``).  The
report says which, and why (:class:`Judged`).
"""

from __future__ import annotations

from lint.models.common import Record


class Consumer(Record):
    """A program that reads files of one or more formats.

    ``name``: as the user names it (``--consumer``, ``consumer = "..."``) and as rules list it;
    ``title``: as messages name it ("SimAI divides by zero ..."); ``reader``: the code that reads the
    files, which the rules' documentation cites.
    """

    __slots__ = ("name", "title", "reader")

    def __init__(self, name: str, title: str, reader: str) -> None:
        self.name = name
        self.title = title
        self.reader = reader


class Judged(Record):
    """The consumer a file is judged for, and why: named by the user (where), or inferred (from what)."""

    __slots__ = ("consumer", "reason")
    __hash__ = Record.hash_of_fields  # never changed once made

    def __init__(self, consumer: str, reason: str) -> None:
        self.consumer = consumer
        self.reason = reason
