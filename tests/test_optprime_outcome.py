"""The outcome of an OptimusPrime run (TL218 failed and why, TL219, TL221 completed) and the progress and
batch arithmetic that TP copies and the DP split change (TL210, TL203), on small logs in the writers'
layout, with the messages asserted."""

from __future__ import annotations

import io
import json
from pathlib import Path

from lint.cli import main

TORCHRUN = "W1121 20:34:01.208000 6614 torch/distributed/elastic/multiprocessing/api.py:1028] "
ERROR_LOG = "E1121 20:33:04.282000 5815 torch/distributed/elastic/multiprocessing/api.py:1002] "
SET_UP = """\
total process count: 2
batch size: 16
> World Size: 2
> Pipeline Parallel Size: 2
stage2rank = {0: [0], 1: [1]}
"""


def report(tmp_path: Path, text: str, select: str) -> list[tuple[int, str, str]]:
    log = tmp_path / "run.log"
    log.write_text(text, encoding="utf-8")
    out = io.StringIO()
    main(["check", str(log), "--no-cache", "--trace-format", "optprime-log", "--output-format", "json", "--select", select], stdout=out, stderr=io.StringIO())
    return [(f["line"], f["code"], f["message"]) for f in json.loads(out.getvalue())["findings"]]


def rank_0_alone_failed(exit_code: int) -> str:
    """torchrun's lines when its one failed worker, rank 0, exited with ``exit_code``: its error log line and report."""
    return f"{ERROR_LOG}failed (exitcode: {exit_code}) local_rank: 0 (pid: 100) of binary: /usr/bin/python3\n" + failure_report((0, exit_code, "", True))


def failure_report(*entries: tuple[int, int, str, bool]) -> str:
    """torchrun's report (torch >= 2.5 layout); entries are (rank, exit code, signal, root cause)."""
    lines = ["driver.py FAILED", "------------------------------------------------------------", "Failures:"]
    others = [entry for entry in entries if not entry[3]]
    root = [entry for entry in entries if entry[3]]
    for section, items in (("Failures:", others), ("Root Cause (first observed failure):", root)):
        if section != "Failures:":
            lines.append(section)
        for index, (rank, exitcode, signal, _) in enumerate(items):
            lines += [f"[{index}]:", "  time      : 2026-11-21_20:33:04", "  host      : localhost", f"  rank      : {rank} (local_rank: {rank})"]
            lines.append(f"  exitcode  : {exitcode} (pid: {100 + rank})  ({signal})" if signal else f"  exitcode  : {exitcode} (pid: {100 + rank}) ")
            lines.append("  error_file: <N/A>")
            lines.append(
                f"  traceback : Signal {abs(exitcode)} ({signal}) received by PID {100 + rank}"
                if signal
                else "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            )
    return "\n".join(lines) + "\n"


def test_a_launcher_stopped_by_a_signal_is_the_cause(tmp_path: Path) -> None:
    text = SET_UP + (
        "| epoch   1 |     5/  200 batches | lr 0.00 | ms/batch 519.67 | loss  6.49 | ppl   661.58\n"
        f"{TORCHRUN}Received 15 death signal, shutting down workers\n"
        f"{TORCHRUN}Sending process 6629 closing signal SIGTERM\n"
    )
    assert report(tmp_path, text, "TL218,TL219,TL221") == [(7, "TL218", "the run failed: torchrun was stopped by SIGTERM and shut the workers down")]


def test_one_rank_killed_by_sigkill_is_the_cause_not_the_ranks_torchrun_stopped(tmp_path: Path) -> None:
    text = (
        SET_UP
        + (
            "[rank:0, local_rank:0] PARALLEL MODE PROCESSING ...\n[rank:1, local_rank:1] PARALLEL MODE PROCESSING ...\n"
            f"{TORCHRUN}Sending process 100 closing signal SIGTERM\n"
            f"{ERROR_LOG}failed (exitcode: -9) local_rank: 1 (pid: 101) of binary: /usr/bin/python3\n"
        )
        + failure_report((0, -15, "SIGTERM", False), (1, -9, "SIGKILL", True))
    )
    found = report(tmp_path, text, "TL218,TL219,TL221")
    assert found == [
        (
            25,
            "TL218",
            "the run failed: rank 1 was killed by SIGKILL (exit code -9); torchrun's failure report (line 10) lists ranks 0 and 1",
        )
    ]


def test_the_root_cause_ranks_exception_is_the_cause_not_a_peer_that_lost_it(tmp_path: Path) -> None:
    text = (
        SET_UP
        + (
            "[rank0]: Traceback (most recent call last):\n"
            "[rank0]: RuntimeError: Connection closed by peer [127.0.0.1]:14221\n"
            "[rank1]: Traceback (most recent call last):\n"
            '[rank1]:   File "driver.py", line 3, in <module>\n'
            "[rank1]: TypeError: expand() takes 1 positional argument but 3 were given\n"
            f"{ERROR_LOG}failed (exitcode: 1) local_rank: 1 (pid: 101) of binary: /usr/bin/python3\n"
        )
        + failure_report((0, 1, "", False), (1, 1, "", True))
    )
    assert report(tmp_path, text, "TL218,TL219,TL221") == [
        (
            10,
            "TL218",
            (
                "the run failed: rank 1 raised at driver.py:3 in <module>: TypeError: expand() takes 1 positional argument but 3 were given; torchrun's failure "
                "report (line 12) lists ranks 0 and 1"
            ),
        )
    ]


def test_an_import_failure_is_named(tmp_path: Path) -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/pp_train_llama.py", line 30, in <module>\n'
        "    from opt_prime.opti_pri import Optimus_p\n"
        "ModuleNotFoundError: No module named 'opt_prime'\n"
        f"{ERROR_LOG}failed (exitcode: 1) local_rank: 0 (pid: 143) of binary: /opt/conda/bin/python3.11\n"
    )
    assert report(tmp_path, text, "TL218") == [
        (
            4,
            "TL218",
            ("the run failed: a worker could not import what it needs at pp_train_llama.py:30 in <module>: ModuleNotFoundError: No module named 'opt_prime'"),
        ),
    ]


def test_a_log_that_stops_without_a_failure_names_the_rank_that_did_not_complete(tmp_path: Path) -> None:
    text = SET_UP + "[rank:0, local_rank:0] PARALLEL MODE PROCESSING ...\n[rank:1, local_rank:1] PARALLEL MODE PROCESSING ...\n[rank:0, run completed ...\n"
    assert report(tmp_path, text, "TL218,TL219,TL221") == [
        (7, "TL219", "rank 1 never printed `run completed`: its output ends on line 7 and the log shows no failure (rank 0 did)"),
    ]


def test_a_completed_run_is_said_to_be_so(tmp_path: Path) -> None:
    text = SET_UP + "[rank:1, run completed ...\n[rank:0, run completed ...\n"
    assert report(tmp_path, text, "TL218,TL219,TL221") == [
        (7, "TL221", "the run completed: ranks 0 and 1 printed `run completed` (the last on line 7)"),
    ]


def progress(batch: int, loss: str = " 6.49") -> str:
    return f"| epoch   1 | {batch:5d}/{40:5d} batches | lr 0.00 | ms/batch 519.67 | loss {loss} | ppl   661.58\n"


TP2_SET_UP = "> World Size: 4\n> Pipeline Parallel Size: 2\n> Tensor Parallel Size: 2\nstage2rank = {0: [0, 1], 1: [2, 3]}\nnbatches=40\n"


def test_each_last_stage_tp_rank_prints_its_own_progress_in_its_own_order(tmp_path: Path) -> None:
    # rank 2 prints batches 5 and 10 before rank 3's copies arrive (buffered output)
    text = TP2_SET_UP + progress(5) + progress(10) + progress(5) + progress(15) + progress(10) + progress(15)
    assert report(tmp_path, text, "TL210") == []


def test_a_third_copy_of_a_progress_line_with_two_last_stage_ranks(tmp_path: Path) -> None:
    text = TP2_SET_UP + progress(5) + progress(5) + progress(5) + progress(10)
    assert report(tmp_path, text, "TL210") == [
        (
            8,
            "TL210",
            (
                "epoch 1: batch 5 after epoch 1, batch 5 (line 7); expected batch 10: progress lines come every 5 batches (the first, "
                "line 6, counts batch 5), from 2 last-stage ranks"
            ),
        )
    ]


DP2_SET_UP = "batch size: 16\n> World Size: 4\n> Pipeline Parallel Size: 2\n> Data Parallel Size: 2\n"


def test_each_data_parallel_replica_loads_its_share_of_the_data(tmp_path: Path) -> None:
    # DistributedSampler: ceil(6400 / 2) = 3200 samples per replica, 200 batches of 16
    assert report(tmp_path, DP2_SET_UP + "data_size=6400\nnbatches=200\n", "TL203") == []


def test_a_batch_count_no_data_loader_makes(tmp_path: Path) -> None:
    assert report(tmp_path, DP2_SET_UP + "data_size=6400\nnbatches=300\n", "TL203") == [
        (
            6,
            "TL203",
            (
                "`nbatches=300` (line 6) but the data loader makes 400 or 200 batches of `data_size=6400` (line 5) with `batch size: 16` "
                "(line 1) and DP 2: ceil(6400 / 16) = 400 or ceil(ceil(6400 / 2) / 16) = 200"
            ),
        )
    ]


def test_under_torchrun_tee_each_workers_traceback_ends_at_its_own_exception(tmp_path: Path) -> None:
    text = (
        "[default0]:Traceback (most recent call last):\n"
        "[default1]:Traceback (most recent call last):\n"
        '[default1]:  File "driver.py", line 3, in <module>\n'
        '[default0]:  File "driver.py", line 3, in <module>\n'
        "[default1]:RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "[default0]:RuntimeError: Connection closed by peer\n"
        f"{ERROR_LOG}failed (exitcode: 1) local_rank: 1 (pid: 101) of binary: /usr/bin/python3\n"
    )
    assert report(tmp_path, text, "TL001,TL218") == [
        (5, "TL218", ("the run failed: a worker raised at driver.py:3 in <module>: RuntimeError: CUDA error: an illegal memory access was encountered")),
    ]


def test_a_worker_that_logs_critical_and_exits_names_its_message(tmp_path: Path) -> None:
    # opt_prime's comm.py: logging.critical("[opt_prime] CPU mode (use_gpu=False) is not supported. …"); sys.exit(1)
    text = "[rank0]: CRITICAL:root:[opt_prime] CPU mode (use_gpu=False) is not supported. Aborting.\n" + rank_0_alone_failed(1)
    assert report(tmp_path, text, "TL218") == [
        (
            1,
            "TL218",
            (
                "the run failed: rank 0 exited with code 1 after logging CRITICAL: [opt_prime] CPU mode (use_gpu=False) is not "
                "supported. Aborting.; torchrun's failure report (line 3) lists rank 0"
            ),
        )
    ]


def test_an_exception_python_ignored_at_exit_does_not_fail_the_run(tmp_path: Path) -> None:
    text = SET_UP + (
        "[rank:1, run completed ...\n[rank:0, run completed ...\n"
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f2a1c0b9d30>\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1477, in __del__\n'
        "AssertionError: can only test a child process\n"
    )
    assert report(tmp_path, text, "TL001,TL218,TL219,TL221") == [
        (7, "TL221", "the run completed: ranks 0 and 1 printed `run completed` (the last on line 7)"),
    ]


def test_torchrun_failing_on_its_own_is_named(tmp_path: Path) -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/venv/bin/torchrun", line 8, in <module>\n'
        '  File "/venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1019, in run\n'
        "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError: \n"
    )
    assert report(tmp_path, text, "TL218") == [(4, "TL218", "the run failed: torchrun failed: torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError")]


FORK_DP4_SET_UP = "> GBS: 32\n> World Size: 8\n> Pipeline Parallel Size: 2\n> Data Parallel Size: 4\ndata_size=10334\n"


def test_the_fork_since_its_per_rank_batch_fix_batches_each_replicas_share_by_its_part_of_the_global_batch(tmp_path: Path) -> None:
    # eungyeonglee-dev/aicomp since 3b096d1: DistributedSampler share ceil(10334 / 4) = 2584, batched by 32 // 4 = 8 -> 323
    assert report(tmp_path, FORK_DP4_SET_UP + "nbatches=323\n", "TL203") == []


def test_a_run_of_the_fork_before_its_per_rank_batch_fix_trained_on_dp_times_its_global_batch(tmp_path: Path) -> None:
    # eungyeonglee-dev/aicomp before 3b096d1: the share ceil(10334 / 4) = 2584 batched by the whole GBS 32 -> 81
    assert report(tmp_path, FORK_DP4_SET_UP + "nbatches=81\n", "TL203") == [
        (
            6,
            "TL203",
            (
                "`nbatches=81` (line 6) = ceil(ceil(10334 / 4) / 32): each of the 4 data-parallel replicas took batches of the whole `> GBS: 32` "
                "(line 1), as eungyeonglee-dev/aicomp's loader did before commit 3b096d1, so the run trained on a global batch of 128 = 32 · 4, "
                "not 32 (a global batch of 32 makes ceil(10334 / 32) = 323 batches of `data_size=10334` (line 5))"
            ),
        )
    ]


def test_a_command_line_argparse_rejects_names_its_error(tmp_path: Path) -> None:
    # Lib/argparse.py ArgumentParser.error: the usage, then `PROG: error: MESSAGE` on stderr and exit code 2
    text = (
        "usage: driver.py [-h] [--mode {gpipe,1f1b}]\n"
        "driver.py: error: argument --mode: invalid choice: 'zb' (choose from 'gpipe', '1f1b')\n" + rank_0_alone_failed(2)
    )
    assert report(tmp_path, text, "TL001,TL218,TL219") == [
        (
            2,
            "TL218",
            (
                "the run failed: rank 0 exited with code 2 after argparse rejected its command line: driver.py: error: argument --mode: "
                "invalid choice: 'zb' (choose from 'gpipe', '1f1b'); torchrun's failure report (line 4) lists rank 0"
            ),
        )
    ]


def test_torchrun_rejecting_its_own_arguments_is_the_cause(tmp_path: Path) -> None:
    text = "usage: torchrun [-h] [--nnodes NNODES]\ntorchrun: error: unrecognized arguments: --bogus\n"
    assert report(tmp_path, text, "TL001,TL218,TL219") == [(2, "TL218", "the run failed: torchrun: error: unrecognized arguments: --bogus")]


def test_a_lone_workers_exception_without_a_rank_prefix_takes_the_rank_the_report_names(tmp_path: Path) -> None:
    # torchrun --nproc-per-node 1: the worker's traceback carries no [rankN]: prefix
    text = (
        "total process count: 1\n"
        "Traceback (most recent call last):\n"
        '  File "/x/opt_prime/opt_prime/IR.py", line 1430, in _retrieve_IR_trace\n'
        "ValueError: code: co_varnames is too small\n" + rank_0_alone_failed(1)
    )
    assert report(tmp_path, text, "TL218") == [
        (
            4,
            "TL218",
            "the run failed: rank 0 raised at IR.py:1430 in _retrieve_IR_trace: ValueError: code: co_varnames is too small; "
            "torchrun's failure report (line 6) lists rank 0",
        )
    ]
