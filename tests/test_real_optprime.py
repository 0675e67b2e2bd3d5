"""Real OptimusPrime console logs, read in place from ``../shared/corpus/real/`` (never copied here).

``optprime-log/`` holds public logs of eungyeonglee-dev/aicomp runs, ``optprime-cpu/`` torchrun logs of
ai-computing/aicomp runs on CPU whose exit codes ``runs_index.tsv`` records.  Every log parses; a run
that exited 0 is reported completed (TL221) with no error; a failed run gets exactly one error, TL218,
naming its cause.  Damaged copies of the same records are still syntax errors where the damage is.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from lint import formats
from lint.cli import main
from lint.models.common import SyntaxProblem
from tests.shared_corpus import CORPUS

REAL = CORPUS / "real"
LOG_DIR = REAL / "optprime-log"
CPU_DIR = REAL / "optprime-cpu"
needs_corpus = pytest.mark.skipif(
    not (LOG_DIR.is_dir() and CPU_DIR.is_dir()),
    reason=f"the real corpus is not here ({REAL}): these tests read it in place from the shared checkout",
)


def check(*paths: Path, args: tuple[str, ...] = ()) -> dict[str, Any]:
    out = io.StringIO()
    main(["check", *map(str, paths), "--no-cache", "--output-format", "json", "--max-findings", "0", *args], stdout=out, stderr=io.StringIO())
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def logs(directory: Path) -> list[Path]:
    """The console logs of a corpus folder: what tlint detects as optprime-log (notes and scripts are not)."""
    report = check(directory)
    return sorted(Path(entry["path"]) for entry in report["files"] if entry.get("format") == "optprime-log")


def findings_of(path: Path, *args: str) -> list[dict[str, Any]]:
    return [f for f in check(path, args=args)["findings"]]


def cpu_runs() -> list[tuple[Path, int, str]]:
    """(log, exit code, environment change) of every single-agent run in runs_index.tsv."""
    if not CPU_DIR.is_dir():
        return []
    runs = []
    with (CPU_DIR / "runs_index.tsv").open(encoding="utf-8") as index:
        for row in csv.reader(index, delimiter="\t"):
            log = CPU_DIR / f"{row[0]}.log"
            if log.is_file() and row[4].lstrip("-").isdigit():
                runs.append((log, int(row[4]), row[2]))
    return runs


@needs_corpus
@pytest.mark.parametrize("directory", [LOG_DIR, CPU_DIR], ids=["optprime-log", "optprime-cpu"])
def test_every_real_log_parses(directory: Path) -> None:
    paths = logs(directory)
    assert paths, f"no optprime log detected in {directory}"
    report = check(*paths, args=("--select", "TL001"))
    assert report["findings"] == []
    assert all(entry["parsed"] for entry in report["files"])


@needs_corpus
@pytest.mark.parametrize(("log", "exitcode", "change"), cpu_runs(), ids=lambda v: v.stem if isinstance(v, Path) else str(v))
def test_cpu_run_outcome_matches_its_exit_code(log: Path, exitcode: int, change: str) -> None:
    found = findings_of(log)
    errors = [(f["code"], f["message"]) for f in found if f["severity"] == "error"]
    if exitcode == 0:
        assert errors == []
        assert [f["code"] for f in found if f["code"] == "TL221"] == ["TL221"]
        return
    assert [code for code, _ in errors] == ["TL218"], errors
    message = errors[0][1]
    if "killrank:" in change:
        rank = change.split("killrank:")[1].split()[0]
        assert message.startswith(f"the run failed: rank {rank} was killed by SIGKILL (exit code -9)")
    elif "inject=sigterm" in change:
        assert message.startswith("the run failed: torchrun was stopped by SIGTERM and shut the workers down")
    else:  # a worker's own error
        assert " raised at " in message, message


@needs_corpus
def test_public_logs_are_completed_runs_but_the_import_failure() -> None:
    outcomes = {}
    for log in logs(LOG_DIR):
        found = findings_of(log)
        errors = [f for f in found if f["severity"] == "error"]
        completed = [f for f in found if f["code"] == "TL221"]
        assert bool(errors) != bool(completed), (log.name, errors, completed)
        outcomes[log.name] = [f["message"] for f in errors]
    failed = {name: messages for name, messages in outcomes.items() if messages}
    assert len(outcomes) - len(failed) == 8
    assert [messages for messages in failed.values()] == [
        [
            (
                "the run failed: a worker could not import what it needs: ModuleNotFoundError; torchrun's failure report (line 70) "
                "lists ranks 0, 1, 2, 3, 4, 6 and 7"
            )
        ],
    ]


# -- damaged records stay syntax errors --------------------------------------------------------------


PARSER = formats.parser("optprime-log")


def problems(text: str) -> list[tuple[int, int, str]]:
    return [(p.line, p.column, p.message) for p in PARSER.parse(enumerate(text.split("\n"), 1)) if isinstance(p, SyntaxProblem)]


@pytest.mark.parametrize(
    ("line", "at", "message"),
    [
        # a DeviceMesh repr of torch 2.13 with garbage in its stride
        ("> [rank:0] pp group:DeviceMesh((pp=2), 'cpu', stride=(1,x)), tp group:DeviceMesh((tp=1), 'cpu', stride=((),))", "x)", "expected ')', found 'x'"),
        # the torch 2.8 style, truncated
        ("> [rank:0] pp group:DeviceMesh((pp=2), device: 'cuda', stride: (1,", None, "expected ')', found end of line"),
        # a TP head-adjust line cut inside its value
        (">model_layers_14_self_attn_q_proj ==> node.args[3]:", None, "expected a non-negative integer, found end of line"),
        # ... with garbage glued to its value
        (">model_layers_14_self_attn_q_proj ==> node.args[3]:3#2", "#2", "expected end of line, found '#2'"),
        # ... and with a projection opt_prime does not have
        (">model_layers_14_self_attn_x_proj ==> node.args[3]:32", "x_proj", "expected q, k or v, found 'x_proj'"),
        # the failure report's exit code with a damaged signal name
        ("  exitcode  : -9 (pid: 5830)  (SIGK#LL)", "#LL", "expected ')', found '#LL'"),
        # a partitioner line whose ranges are cut
        ("[IR.hierarchical_split] metadata_range = [(0, 'model_layers_1_mlp'), (1, ", None, "expected a quoted name such as 'submod_0', found end of line"),
    ],
)
def test_damaged_records_are_syntax_errors_at_the_damage(line: str, at: str | None, message: str) -> None:
    column = len(line) + 1 if at is None else line.index(at) + 1
    assert problems(line) == [(1, column, message)]


@needs_corpus
def test_a_record_truncated_inside_a_real_log_is_reported_at_its_line(tmp_path: Path) -> None:
    source = next(path for path in logs(CPU_DIR) if "DeviceMesh((" in path.read_text(encoding="utf-8"))
    lines = source.read_text(encoding="utf-8").split("\n")
    number = next(i for i, text in enumerate(lines) if "group:DeviceMesh((" in text)
    cut = lines[number].index("stride=") + len("stride=(")
    lines[number] = lines[number][:cut]
    damaged = tmp_path / source.name
    damaged.write_text("\n".join(lines), encoding="utf-8")
    found = [(f["line"], f["column"], f["code"]) for f in findings_of(damaged, "--select", "TL001")]
    assert found == [(number + 1, cut + 1, "TL001")]


@needs_corpus
def test_garbage_inside_a_real_record_is_reported_at_its_column(tmp_path: Path) -> None:
    source = next(path for path in logs(LOG_DIR) if ">model_layers_" in path.read_text(encoding="utf-8"))
    lines = source.read_text(encoding="utf-8").split("\n")
    number = next(i for i, text in enumerate(lines) if text.startswith(">model_layers_") and text.endswith(":32"))
    lines[number] = lines[number].replace("node.args[3]:32", "node.args[3]:3#2")
    damaged = tmp_path / source.name
    damaged.write_text("\n".join(lines), encoding="utf-8")
    found = [(f["line"], f["column"], f["code"]) for f in findings_of(damaged, "--select", "TL001")]
    assert found == [(number + 1, lines[number].index("#2") + 1, "TL001")]


@needs_corpus
def test_a_real_dp_run_with_the_loader_before_the_forks_per_rank_batch_fix_is_reported(tmp_path: Path) -> None:
    # The real DP 4 logs ran eungyeonglee-dev/aicomp's fixed loader (the writer's own debug lines: local_bs 8 = GBS 32 // DP 4);
    # the same run with the loader before 3b096d1 printed nbatches=81 (local_bs 32), as the fork's _logs/…102548… shows.
    source = next(path for path in logs(LOG_DIR) if "_DP4_" in path.name)
    lines = source.read_text(encoding="utf-8").split("\n")
    assert "nbatches=323" in lines and "[rank:0] stage=0 first_stage=True local_bs(len(batch))=8" in lines
    assert not [f for f in findings_of(source) if f["severity"] != "info"]
    at = {text: number for number, text in enumerate(lines, 1)}
    lines[at["nbatches=323"] - 1] = "nbatches=81"
    lines = [line.replace("/  323 batches", "/   81 batches") for line in lines]  # its progress lines count out of 81
    defective = tmp_path / source.name
    defective.write_text("\n".join(lines), encoding="utf-8")
    found = [(f["line"], f["code"], f["message"]) for f in findings_of(defective) if f["severity"] != "info"]
    assert found == [
        (
            at["nbatches=323"],
            "TL203",
            (
                f"`nbatches=81` (line {at['nbatches=323']}) = ceil(ceil(10334 / 4) / 32): each of the 4 data-parallel replicas took batches of "
                f"the whole `> GBS: 32` (line {at['> GBS: 32']}), as eungyeonglee-dev/aicomp's loader did before commit 3b096d1, so the run "
                f"trained on a global batch of 128 = 32 · 4, not 32 (a global batch of 32 makes ceil(10334 / 32) = 323 batches of "
                f"`data_size=10334` (line {at['data_size=10334']}))"
            ),
        )
    ]
