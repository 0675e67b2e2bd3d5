from collections.abc import Iterator

from lint.formats.simai_workload.records import SETTING_KEYS, Header
from lint.rule import Rule, Severity, Violation, at, by_consumer

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
    (``Workload::initialize_workload``, ``Workload.cc:1186-1188``, aliyun/SimAI cef83f9d), prints "Input
    workload format mismatch" (``Workload.cc:1266-1269``) and goes on; at the end its analytical backend
    multiplies the pipeline bubble by ``(pp - 1) / (ga·vpp)`` and adds it to the total time
    (``Layer::report``, ``Layer.cc:737-739``): 0/0 or x/0, so the total is NaN or infinite.  A missing key is
    TL410's, a value that only reads as 0 (``ga: 0.5``) TL425's.

    Measured (oracle classes ``ga_zero``, ``vpp_zero``: wrong, ``Total time`` NaN, 22 of 22).  ASTRA-sim 1.0
    reads neither key.

    This is an error for SimAI: the simulation's result is not a number.

    Why it matters:
        The whole point of the simulation, its iteration time, comes out as NaN.

    Example:
        ``... pp: 1 vpp: 36 ga: 0 all_gpus: 128 ...``
        -> ga: 0, expected > 0 (the gradient-accumulation steps, global_batch // (mbs·dp)): SimAI divides the
        pipeline bubble by ga·vpp and its total time is NaN (Layer.cc:737)
    """

    code = "TL421"
    name = "zero-step-count"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR})

    def check_header(self, header: Header) -> Iterator[Violation]:
        if not header.reads_parallel_sizes:
            return
        for name, meaning in STEP_COUNTS.items():
            if getattr(header, name) == 0:  # 0 as written
                yield at(
                    header,
                    f"{SETTING_KEYS[name]}: {getattr(header, name)}, expected > 0 ({meaning}): SimAI divides the pipeline bubble "
                    f"by ga·vpp and its total time is NaN (Layer.cc:737)",
                )
