"""The digests that name what the cache directory keeps: 64 hex digits of some bytes.

BLAKE2b from CPython's own ``_blake2`` module, not from ``hashlib``: importing hashlib imports ``_hashlib``,
which loads OpenSSL - some 11 M instructions, a tenth of what a check of one small file costs beyond a bare
interpreter - for algorithms tlint does not need.  hashlib's own ``blake2b`` is that same ``_blake2`` class
(hashlib never takes BLAKE2 from OpenSSL), so a Python built without ``_blake2`` has none: there the digests
are hashlib's SHA-256, of the same length.  Either way one interpreter always names a thing alike; the
digests are keys, compared with others made by the same interpreter (tlint's code fingerprint names Python's
version), never published.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class Hasher(Protocol):
    """What a digest being fed (:func:`hasher`) offers."""

    def update(self, data: bytes, /) -> None: ...

    def hexdigest(self) -> str: ...


def _loaded() -> Callable[[], Hasher]:
    try:
        from _blake2 import blake2b
    except ImportError:  # a CPython built without it
        from hashlib import sha256

        return sha256
    return lambda: blake2b(digest_size=32)


hasher = _loaded()
"""A new digest, to be fed with ``update`` (a file read block by block) and read with ``hexdigest``."""


def hex_digest(*parts: bytes) -> str:
    """The digest of ``parts``, each followed by a NUL (so that ``(b"ab", b"c")`` and ``(b"a", b"bc")`` differ)."""
    digest = hasher()
    for part in parts:
        digest.update(part)
        digest.update(b"\0")
    return digest.hexdigest()
