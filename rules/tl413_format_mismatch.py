from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.formats.simai_workload.rulekit import TransformerHeader, misspelt, unset
from lint.rule import Severity, Violation, at, by_consumer

WARNING = '"Input workload format mismatch"'


class FormatMismatch(TransformerHeader):
    """SimAI warns "Input workload format mismatch" and simulates the file.

    For the transformer kinds SimAI prints the warning (``Workload::initialize_workload``,
    ``Workload.cc:1266-1269``, aliyun/SimAI cef83f9d) when a setting it read is 0 - a missing key leaves its
    member unset (``Workload.hh:76-82``), and every run read 0 - or when ``pp`` and ``pp_comm`` disagree, and
    goes on.  This rule reports the cases where the warning is all that happens:

    - ``all_gpus`` missing or 0: the analytical backend divides the ``-g`` option instead (``Layer.cc:569``);
    - ``ep`` missing or 0 in a workload without ``_EP`` or ``_DP_EP`` collectives, which are the only ones that
      use it (``Layer.cc:575-581``; with them it is TL410's or TL411's error);
    - ``pp > 1`` with ``pp_comm`` missing or 0: the pipeline sends are simulated as empty (``Layer.cc:734``);
    - ``pp: 1`` with ``pp_comm`` not 0: a single stage sends nothing (``Layer.cc:737`` multiplies the bubble by
      ``pp - 1``).

    The other causes of the warning (``model_parallel_NPU_group``, ``pp``, ``ga``, ``vpp`` missing or 0) make
    SimAI abort or print NaN: TL410, TL411, TL421.  AICB writes every key, ``pp_comm: 0`` exactly when
    ``pp: 1`` (``SIMAI_workload.dump_file``); older AICB headers lack ``pp_comm`` (and the first generation every
    key but ``model_parallel_NPU_group``).

    Measured (oracle classes ``all_gpus_zero``, ``drop_key_all_gpus``, ``misspelt_key``: warn, 33 of 33;
    ``pp_comm_mismatch``: warn, 8 of 8; ``drop_key_pp_comm``: warn where pp > 1, 4 of 4, fine where pp = 1).
    SimAI's NS3 backend also divides by ``ep`` when it builds its groups (``Sys::mock_nccl_grobal_group_init``,
    ``Sys.cc:1396``; read, not run).  ASTRA-sim 1.0 reads none of these keys.

    This is a warning for SimAI: it warns, then simulates the file as written.

    Why it matters:
        The warning is SimAI's only word that the header was not written by the AICB it expects: a key was
        dropped or edited, and what it said is not simulated.

    Example:
        ``... pp: 4 vpp: 8 ga: 1 all_gpus: 512 pp_comm: 0 ...``
        -> pp: 4 with pp_comm: 0 (the pipeline sends are simulated as empty): SimAI warns "Input workload format
        mismatch" (Workload.cc:1269)
    """

    code = "TL413"
    name = "format-mismatch"
    formats = ("simai-workload",)
    aliases = ("pp-comm-mismatch",)
    consumers = by_consumer({"simai": Severity.WARNING})

    def finish(self) -> Iterator[Violation]:
        header = self.header
        if header is None:
            return
        # A header that also lacks a key SimAI cannot do without is TL410's, with all it lacks: one header, one cause.
        lacks = any(getattr(header, name) is None for name in ("tp", "pp", "ga", "vpp")) or (header.ep is None and self.expert_effect() is not None)
        causes = []
        if unset(header, "all_gpus") and not (lacks and header.all_gpus is None):
            causes.append(_cause(header, "all_gpus", "the analytical backend divides the -g option instead"))
        if unset(header, "ep") and self.expert_effect() is None and not (lacks and header.ep is None):
            causes.append(_cause(header, "ep", "no collective of this workload uses it"))
        pp, pp_comm = header.read("pp"), header.read("pp_comm")
        if pp is not None and pp > 1 and not pp_comm and not (lacks and header.pp_comm is None):
            causes.append(f"pp: {header.pp} with {_cause(header, 'pp_comm', 'the pipeline sends are simulated as empty')}")
        elif pp == 1 and pp_comm:
            causes.append(f"pp_comm: {header.pp_comm} with pp: 1 (a single stage sends no activations)")
        if causes:
            yield at(header, f"{'; '.join(causes)}: SimAI warns {WARNING} (Workload.cc:1269)")


def _cause(header: Header, name: str, effect: str) -> str:
    """``no all_gpus (effect; the header has 'all_gpu:': misspelt?)``, or ``all_gpus: 0 (effect)``."""
    value = getattr(header, name)
    if value is not None:
        return f"{name}: {value} ({effect})"
    hint = misspelt(header, name)
    return f"no {name} ({effect}{'; ' + hint if hint else ''})"
