"""What was parsed, as rules and the differ see it.

Per-line records are slotted dataclasses: a 200 MB trace has millions of them, and pydantic objects
cost five times as much to build (docs/performance.md).  Pydantic validates and serialises them at the
boundary through ``TypeAdapter``; documents, summaries, findings and configuration are pydantic models.
"""
