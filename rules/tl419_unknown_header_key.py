from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.formats.simai_workload.rulekit import misspelling
from lint.rule import Rule, Severity, Violation, at, by_consumer

# Keys a known writer puts in the header although SimAI does not read them: AICB's inference generator
# writes `mode: 1`.
WRITTEN_BUT_UNREAD = frozenset({"mode"})


class UnknownHeaderKey(Rule):
    """The header has a ``key: value`` that no simulator reads.

    SimAI finds the keys it knows by token search and ignores every other token (``Workload::initialize_workload``,
    ``Workload.cc:1174-1191, 1257-1261``, aliyun/SimAI cef83f9d); tlint keeps them verbatim.  ``mode``, which
    AICB's inference generator writes, is not reported, nor is a key that looks like a misspelling of a setting
    the header lacks: the finding on the missing setting names it (TL410, TL413).  Real files carry others,
    such as checksums of the target they were made for.  ASTRA-sim 1.0 reads its header by position, where an
    extra word is no key but a misread (TL425).

    This is information for SimAI: nothing is wrong with such a file, but the key has no effect on the
    simulation.

    Why it matters:
        A misspelt key (``all_gpu:``) is silently ignored: the setting it was meant to give falls back
        to a default.

    Example:
        ``HYBRID_TRANSFORMER model_parallel_NPU_group: 1 ... target_model_sha256: sha256:10e2...``
        -> header key target_model_sha256 (value sha256:10e2...) is not one SimAI reads: it has no effect
    """

    code = "TL419"
    name = "unknown-header-key"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.INFO})

    def check_header(self, header: Header) -> Iterator[Violation]:
        for key, value in header.unknown.items():
            if key not in WRITTEN_BUT_UNREAD and not (header.reads_parallel_sizes and misspelling(header, key)):
                yield at(header, f"header key {key} ({f'value {value}' if value else 'no value'}) is not one SimAI reads: it has no effect")
