from collections.abc import Iterator

from lint.formats.simai_workload.records import SETTING_KEYS, Header
from lint.formats.simai_workload.rulekit import MEMBERS, TransformerHeader, misspelt
from lint.rule import Severity, Violation, at, by_consumer

# What SimAI does without each setting it cannot simulate without (ep: see TransformerHeader).
EFFECTS = {
    "tp": "divides by zero (Layer.cc:569: all_gpus / (tp·pp))",
    "pp": "divides by zero (Layer.cc:569: all_gpus / (tp·pp))",
    "ga": "gives a total time of NaN (Layer.cc:737: the bubble is divided by ga·vpp)",
    "vpp": "gives a total time of NaN (Layer.cc:737: the bubble is divided by ga·vpp)",
}


class MissingHeaderKey(TransformerHeader):
    """The header lacks a setting SimAI cannot simulate without.

    For the two transformer kinds SimAI looks the settings up by token search (``Workload::initialize_workload``,
    ``Workload.cc:1172-1191``, aliyun/SimAI cef83f9d); a key that is missing leaves its member unset
    (``Workload.hh:76-82``), and every run read 0 from it.  Its analytical backend then:

    - without ``model_parallel_NPU_group`` or ``pp``: computes the data-parallel size as
      ``all_gpus / (tp·pp)`` and divides by zero (``Layer::report``, ``Layer.cc:569``: SIGFPE);
    - without ``ga`` or ``vpp``: multiplies the pipeline bubble by ``(pp - 1) / (ga·vpp)``, and the total time
      is NaN or infinite (``Layer.cc:737-739``);
    - without ``ep``: divides by zero for a ``_DP_EP`` collective (``Layer.cc:581``, and AICB writes its
      ``moe_grad_norm`` rows with one even for a dense model) and gives an ``_EP`` collective no time
      (``Layer.cc:575-578, 985``).  Without either, SimAI only warns: TL413.

    ``all_gpus`` and ``pp_comm`` are TL413's: without them SimAI warns and simulates the file; a header that
    lacks one of the keys above too is reported once, here, with all it lacks.  Other kinds are
    TL424's: SimAI reads no setting for them.  Measured (oracle classes ``drop_key_pp``,
    ``drop_key_model_parallel_NPU_group``: abort, 22 of 22; ``drop_key_ga``, ``drop_key_vpp``: wrong, a NaN
    total, 22 of 22; ``drop_key_ep``: abort or no time wherever the file has expert collectives, 10 of 11).
    ASTRA-sim 1.0 reads none of these keys (TL425 checks its header).

    This is an error for SimAI: it aborts or reports a total that is not a number.

    Why it matters:
        Headers written by hand, by ASTRA-sim 1.0's tools or by AICB's first generation lack these keys;
        SimAI then stops with a floating-point exception, or prints NaN, with no word on the cause.

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 vpp: 1 ga: 1 all_gpus: 8 ...``
        -> header has no pp: SimAI never sets it (Workload.hh:78) and divides by zero (Layer.cc:569: all_gpus /
        (tp·pp))
    """

    code = "TL410"
    name = "missing-header-key"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR})

    def finish(self) -> Iterator[Violation]:
        header = self.header
        if header is None:
            return
        effects = {name: effect for name, effect in EFFECTS.items() if getattr(header, name) is None}
        if header.ep is None and (expert := self.expert_effect()) is not None:
            effects["ep"] = expert
        if not effects:
            return
        # The keys whose absence only makes SimAI warn (TL413's alone) go into this finding: one header, one cause.
        warned = [name for name in ("all_gpus", "ep", "pp_comm") if getattr(header, name) is None and name not in effects and _warns_without(header, name)]
        keys = [SETTING_KEYS[name] for name in effects] + warned
        by_effect: dict[str, list[str]] = {}
        for name, effect in effects.items():
            by_effect.setdefault(effect, []).append(SETTING_KEYS[name])
        if warned:
            by_effect['only warns "Input workload format mismatch" (Workload.cc:1269)'] = warned
        members = f"it (Workload.hh:{MEMBERS[next(iter(effects))]})" if len(keys) == 1 else "them (Workload.hh:76-82)"
        if len(by_effect) == 1:
            said = f"SimAI never sets {members} and {next(iter(by_effect))}"
        else:
            said = f"SimAI never sets {members}; " + "; ".join(f"without {', '.join(names)} it {effect}" for effect, names in by_effect.items())
        hints = "; ".join(hint for hint in (misspelt(header, key) for key in keys) if hint)
        yield at(header, f"header has no {', '.join(keys)}{f' ({hints})' if hints else ''}: {said}")


def _warns_without(header: Header, name: str) -> bool:
    """Whether SimAI warns for the missing key ``name`` (Workload.cc:1266-1269): pp_comm only when pp is not 1."""
    return name != "pp_comm" or header.read("pp") not in (None, 1)
