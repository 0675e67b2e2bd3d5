"""The digests that key the cache and the memos: BLAKE2b without OpenSSL, SHA-256 where Python has no _blake2."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from lint.store.digest import hasher, hex_digest


def test_the_parts_are_kept_apart_and_the_digest_is_blake2b_of_64_hex_digits() -> None:
    assert hex_digest(b"ab", b"c") != hex_digest(b"a", b"bc")
    assert hex_digest(b"ab", b"c") == hashlib.blake2b(b"ab\0c\0", digest_size=32).hexdigest()
    fed = hasher()
    fed.update(b"ab\0")
    fed.update(b"c\0")
    assert fed.hexdigest() == hex_digest(b"ab", b"c")


def test_a_python_without_blake2_digests_with_sha256() -> None:
    probe = "import sys; sys.modules['_blake2'] = None; from lint.store.digest import hex_digest; print(hex_digest(b'ab', b'c'))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == hashlib.sha256(b"ab\0c\0").hexdigest()
