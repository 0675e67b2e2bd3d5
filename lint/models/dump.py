"""The boundary where light records meet pydantic: validation and JSON-ready dumps of any record."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter


@cache
def _adapter(record_type: type) -> TypeAdapter[Any]:
    return TypeAdapter(record_type)


def dump_record(record: Any) -> dict[str, Any]:
    """``{"kind": ..., field: value, ...}`` in JSON types, validated by pydantic on the way."""
    record_type: type = type(record)  # as type[Any], mypy would take it for unhashable (python/mypy#11470)
    # ``alike`` numbers a parser's rows (lint.models.common.new_alike): no part of what a row says
    return {"kind": record.kind, **_adapter(record_type).dump_python(record, mode="json", exclude={"alike"})}


def load_record(record_type: type, data: dict[str, Any]) -> Any:
    """Validate a dump back into a record (the inverse of :func:`dump_record`)."""
    fields = {key: value for key, value in data.items() if key != "kind"}
    return _adapter(record_type).validate_python(fields)
