from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.rule import Rule, Severity, Violation, at

# Keys a known writer puts in the header although SimAI does not read them: AICB's inference generator
# writes `mode: 1`.
WRITTEN_BUT_UNREAD = frozenset({"mode"})


class UnknownHeaderKey(Rule):
    """The header has a ``key: value`` that no simulator reads.

    SimAI finds the keys it knows by token search and ignores every other token; tlint keeps them
    verbatim (``Workload::initialize_workload``).  ``mode``, which AICB's inference generator writes, is
    not reported.  Real files carry others, such as checksums of the target they were made for.

    This is information: nothing is wrong with such a file, but the key has no effect on the
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
    severity = Severity.INFO
    formats = ("simai-workload",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        for key, value in header.unknown.items():
            if key not in WRITTEN_BUT_UNREAD:
                yield at(header, f"header key {key} (value {value}) is not one SimAI reads: it has no effect")
