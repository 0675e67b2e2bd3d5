"""The Dask backend: a run checked (and diffed) as tasks on a cluster gives exactly the local report."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lint.check import executor
from lint.cli import main
from tests.spy import spy
from tests.synth.megatron_run import RunSpec, change_collective_dtype, generate_run, mismatch_p2p_shape, write_run

distributed = pytest.importorskip("distributed", reason="the Dask backend's tests need the 'distributed' package (pip install '.[test]')")

SPEC = RunSpec(tp=2, pp=2, dp=3, micro_batches=3, layers=4, hidden=64, seq=16, vocab=512)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A cluster of two single-threaded worker processes, as on real machines: everything sent is pickled."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def dask_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The scheduler addresses work was sent to: proof that a report came from the cluster."""
    calls: list[str] = []
    real = executor._on_dask
    monkeypatch.setattr(executor, "_on_dask", spy(real, lambda work, shared, items, address, *a: calls.append(address)))
    return calls


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def faulty_run(tmp_path: Path) -> Path:
    faulty, _ = mismatch_p2p_shape(generate_run(SPEC), 3)
    faulty, _ = change_collective_dtype(faulty, 7)
    write_run(SPEC, tmp_path / "run", run=faulty)
    (tmp_path / "run" / "notes.txt").write_text("not a trace\n", encoding="utf-8")
    return tmp_path / "run"


@pytest.mark.parametrize("cached", [False, True])
def test_a_run_checked_on_a_cluster_gives_the_local_report(scheduler: str, faulty_run: Path, cached: bool, dask_calls: list[str]) -> None:
    options = [] if cached else ["--no-cache"]
    local = run("check", str(faulty_run), "--output-format", "json", "--jobs", "1", *options)
    remote = run("check", str(faulty_run), "--output-format", "json", "--dask-scheduler", scheduler, *options)
    assert local[0] == remote[0] == 1 and dask_calls == [scheduler]
    assert json.loads(remote[1]) == json.loads(local[1])
    assert {f["code"] for f in json.loads(remote[1])["findings"]} >= {"TL506"}


def test_a_run_diffed_on_a_cluster_gives_the_local_diff(scheduler: str, faulty_run: Path, tmp_path: Path, dask_calls: list[str]) -> None:
    write_run(SPEC, tmp_path / "clean")
    local = run("diff", str(tmp_path / "clean"), str(faulty_run), "--output-format", "json")
    remote = run("diff", str(tmp_path / "clean"), str(faulty_run), "--output-format", "json", "--dask-scheduler", scheduler)
    assert remote[0] == local[0] and json.loads(remote[1]) == json.loads(local[1])
    assert dask_calls == [scheduler, scheduler]  # both sides read on the cluster


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path, faulty_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executor, "CONNECT_TIMEOUT_SECONDS", 1)
    code, out, err = run("check", str(faulty_run), "--dask-scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and out == ""
    assert err.startswith("tlint: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ") and "Traceback" not in err


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("bogus", "missing port number in address 'bogus'"),
        ("inproc://x", "not enough values to unpack"),
        ("nowhere://x", "unknown address scheme 'nowhere'"),
        ("tls://127.0.0.1:9", "TLS expects a `ssl_context` argument"),
    ],
)
def test_a_scheduler_address_that_cannot_be_connected_to_is_an_error_and_the_process_ends(faulty_run: Path, address: str, problem: str) -> None:
    # A subprocess: a client distributed leaves half started used to hang the interpreter's exit, after the error.
    result = subprocess.run(
        [sys.executable, "-m", "lint", "check", str(faulty_run), "--dask-scheduler", address],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"tlint: error: cannot reach the Dask scheduler at {address}: {problem}"), result.stderr


def test_without_distributed_the_option_says_what_to_install(faulty_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # what an environment without the package raises
    code, _, err = run("check", str(faulty_run), "--dask-scheduler", "tcp://127.0.0.1:9")
    assert (code, err) == (2, "tlint: error: --dask-scheduler needs the 'distributed' package: pip install 'tlint-traces[dask]'\n")
