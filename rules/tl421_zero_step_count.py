from collections.abc import Iterator

from lint.formats.simai_workload.records import SETTING_KEYS, Header
from lint.rule import Rule, Severity, Violation, at

# Header field -> what it counts.
STEP_COUNTS = {
    "ga": "the gradient-accumulation steps, global_batch // (mbs·dp)",
    "vpp": "AICB's number of layers",
}


class ZeroStepCount(Rule):
    """``ga`` or ``vpp`` in the header is 0.

    AICB writes ``ga: global_batch // (micro_batch · dp)`` and ``vpp: num_layers``
    (``SIMAI_workload.dump_file`` in aliyun/aicb ``workload_generator/SimAI_training_workload_generator.py``);
    a global batch smaller than ``micro_batch · dp`` floors ``ga`` to 0 - AICB prints "[WARN]: ga num < 1"
    and writes no transformer layer rows at all.  SimAI reads both keys for the transformer kinds
    (``Workload::initialize_workload``) and uses them only in the pipeline-bubble estimate of its report,
    ``(pp - 1) / (ga · vpp)`` (``Layer::report`` in ``astra-sim-alibabacloud/astra-sim/workload/Layer.cc``),
    which a 0 makes infinite or NaN.

    This is a warning: SimAI prints "Input workload format mismatch" and simulates what rows there
    are; only the bubble estimate is lost.

    Why it matters:
        A workload with ``ga: 0`` simulates an iteration without a single micro-batch, only the
        gradient synchronisation.

    Example:
        ``... pp: 1 vpp: 36 ga: 0 all_gpus: 128 ...``
        -> ga: 0, expected > 0 (the gradient-accumulation steps, global_batch // (mbs·dp)): SimAI's
        pipeline-bubble estimate (pp - 1) / (ga·vpp) has no value
    """

    code = "TL421"
    name = "zero-step-count"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        if not header.reads_parallel_sizes:
            return
        for name, meaning in STEP_COUNTS.items():
            if header.read(name) == 0:
                yield at(
                    header,
                    f"{SETTING_KEYS[name]}: {getattr(header, name)}, expected > 0 ({meaning}): SimAI's pipeline-bubble "
                    f"estimate (pp - 1) / (ga·vpp) has no value",
                )
