from collections.abc import Iterator

from lint.formats.simai_workload.records import SETTING_KEYS, Header
from lint.rule import Rule, Severity, Violation, at

# AICB's second header generation added ep, pp, ga and all_gpus to model_parallel_NPU_group; every later
# generation writes all five.
GENERATION_2 = ("tp", "ep", "pp", "ga", "all_gpus")


class MissingHeaderKey(Rule):
    """A header of one of AICB's generations lacks a key that generation always writes.

    The header generations (``docs/formats/simai-workload.md``; aliyun/aicb
    ``workload_generator/SimAI_training_workload_generator.py``, ``SIMAI_workload.dump_file``, across its
    history) add keys over time: generation 1 has only
    ``model_parallel_NPU_group``; generation 2 adds ``ep``, ``pp``, ``ga`` and ``all_gpus``;
    generation 3 ``vpp``; generation 4 ``pp_comm``.  A header is judged by the generation its keys
    show: one with any of ``ep``, ``pp``, ``ga``, ``all_gpus`` must have all of them and
    ``model_parallel_NPU_group``; one with ``pp_comm`` must have ``vpp``.  Keys a generation never had are
    not asked for: ASTRA-sim 1.0 headers and generation-1 headers have none of them, a generation-2
    header has no ``vpp``, and no header must have ``pp_comm``, which generation 3 lacks.

    This is a warning: SimAI (``Workload::initialize_workload``) looks each key up by token search and
    leaves a missing one at whatever the member held; a workload of an older generation still runs.

    Why it matters:
        The missing setting is a hand edit or a truncated line: SimAI simulates the workload without
        the parallelism it describes (no data-parallel size without ``all_gpus``).

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 ga: 1 checkpoints: 0 ...``
        -> header has ep, pp, ga (AICB header generation 2 or later, which always writes
        model_parallel_NPU_group, ep, pp, ga, all_gpus) but no all_gpus: SimAI warns "Input workload
        format mismatch"
    """

    code = "TL410"
    name = "missing-header-key"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        shown = [SETTING_KEYS[name] for name in GENERATION_2[1:] if getattr(header, name) is not None]
        if shown:
            written = ", ".join(SETTING_KEYS[name] for name in GENERATION_2)
            generation = f"has {', '.join(shown)} (AICB header generation 2 or later, which always writes {written})"
            for name in GENERATION_2:
                if getattr(header, name) is None:
                    yield self._missing(header, SETTING_KEYS[name], generation)
        if header.pp_comm is not None and header.vpp is None:
            yield self._missing(header, "vpp", "has pp_comm (AICB header generation 4 or later, which always writes vpp)")

    @staticmethod
    def _missing(header: Header, key: str, generation: str) -> Violation:
        return at(header, f'header {generation} but no {key}: SimAI warns "Input workload format mismatch"')
