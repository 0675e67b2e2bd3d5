"""What every stage shares: the records and scalar types of every format (:mod:`lint.models.common`), the
findings and report of a check (:mod:`lint.models.report`), the report of a diff (:mod:`lint.models.diff`)
and the errors that end a command (:mod:`lint.models.errors`).

A format's own records live in its package (``lint.formats.<name>.records``).  Per-line records are
slotted dataclasses: a 200 MB trace has millions of them, and pydantic objects cost five times as much to
build (docs/performance.md).  Pydantic validates and serialises them at the boundary through
``TypeAdapter``; documents, findings and configuration are pydantic models.
"""
