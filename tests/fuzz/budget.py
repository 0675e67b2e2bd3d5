"""How many examples each fuzz test runs: small by default (CI), times ``LONG_FACTOR`` with ``--fuzz-long``.

``tests/conftest.py`` sets ``factor`` before the fuzz modules are imported, so decorators see it.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

LONG_FACTOR = 50
factor = 1


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples * factor,
        deadline=None,
        derandomize=factor == 1,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
