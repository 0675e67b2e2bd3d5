"""Which consumer a file is judged for (lint/models/consumers.py): named on the command line or in the configuration,
else inferred from the file; and what the rules, the reports and the cache make of it."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from lint.cli import main
from tests.readers import read_sarif

ASTRA_DATA = "DATA\n2\nconv1 -1 13003 NONE 0 12864 NONE 0 32291 ALLREDUCE 37632 3229\nconv2 -1 34241 NONE 0 36427 NONE 0 74249 ALLREDUCE 65536 7425\n"
AICB = (
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 2 ga: 1 all_gpus: 4 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n"
    "1\nattention_layer -1 1 ALLREDUCE 16777216 1 ALLREDUCE 16777216 1 NONE 0 100\n"
)
SEED_TRACE = Path(__file__).resolve().parent / "fixtures" / "seeds" / "000_14848477538be528.txt"


def check(*argv: str, cwd: Path | None = None) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--output-format", "json", "--no-cache", *argv], stdout=out, stderr=err)
    return code, json.loads(out.getvalue()) if out.getvalue() else {}, err.getvalue()


def judged(document: dict[str, Any]) -> dict[str, tuple[str | None, str | None]]:
    return {Path(f["path"]).name: (f["consumer"], f["consumer_reason"]) for f in document["files"]}


def codes(document: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for finding in document["findings"]:
        found.setdefault(Path(finding["path"]).name, []).append((finding["code"], finding["severity"]))
    return found


@pytest.fixture
def workloads(tmp_path: Path) -> Path:
    (tmp_path / "astra").mkdir()
    (tmp_path / "astra" / "resnet.txt").write_text(ASTRA_DATA, encoding="utf-8")
    (tmp_path / "aicb.txt").write_text(AICB, encoding="utf-8")
    return tmp_path


def test_inferred_per_file_from_what_it_shows(workloads: Path) -> None:
    code, document, _ = check(str(workloads))
    assert code == 0 and document["findings"] == []
    assert judged(document) == {
        "resnet.txt": ("astra-sim-1", "inferred: kind DATA, which ASTRA-sim 1.0 reads, and no key or collective only SimAI reads"),
        "aicb.txt": ("simai", "inferred: the header has ep, pp, vpp, ga, all_gpus and pp_comm, which only AICB and SimAI write"),
    }


def test_the_command_line_names_the_consumer_of_every_file_it_reads(workloads: Path) -> None:
    code, document, _ = check(str(workloads), "--consumer", "simai")
    assert code == 1
    assert judged(document) == {"resnet.txt": ("simai", "--consumer simai"), "aicb.txt": ("simai", "--consumer simai")}
    assert codes(document) == {"resnet.txt": [("TL424", "error")]}


def test_the_configuration_names_it_globally_and_per_path_the_last_match_winning(workloads: Path) -> None:
    config = workloads / "tlint.toml"
    config.write_text('consumer = "simai"\n\n[per-path-consumer]\n"*.txt" = "simai"\n"astra/**" = "astra-sim-1"\n', encoding="utf-8")
    (workloads / "other.txt").write_text(ASTRA_DATA, encoding="utf-8")
    code, document, _ = check(str(workloads), "--config", str(config))
    assert code == 1
    assert judged(document) == {
        "resnet.txt": ("astra-sim-1", f"per-path-consumer 'astra/**' in {config}"),
        "aicb.txt": ("simai", f"per-path-consumer '*.txt' in {config}"),
        "other.txt": ("simai", f"per-path-consumer '*.txt' in {config}"),
    }
    assert codes(document) == {"other.txt": [("TL424", "error")]}
    # the command line wins over both
    _, document, _ = check(str(workloads), "--config", str(config), "--consumer", "astra-sim-1")
    assert {consumer for consumer, _ in judged(document).values()} == {"astra-sim-1"}
    assert codes(document) == {"aicb.txt": [("TL425", "error")]}


def test_a_consumer_applies_to_the_formats_it_reads_only(tmp_path: Path) -> None:
    trace = tmp_path / "trace_rank0.txt"
    trace.write_bytes(SEED_TRACE.read_bytes())
    code, document, _ = check(str(trace), "--consumer", "simai")
    assert code == 0 and judged(document) == {"trace_rank0.txt": (None, None)}


@pytest.mark.parametrize(
    ("config", "argv", "message"),
    [
        ('consumer = "ns3"\n', [], "tlint.toml: consumer: unknown consumer 'ns3' (known: astra-sim-1, astra-sim-2, simai)"),
        (
            '[per-path-consumer]\n"*.txt" = "simai2"\n',
            [],
            "tlint.toml: per-path-consumer.*.txt: unknown consumer 'simai2' (known: astra-sim-1, astra-sim-2, simai)",
        ),
        ("", ["--consumer", "ns3"], "argument --consumer: invalid choice: 'ns3'"),  # argparse's words, on sys.stderr
    ],
)
def test_an_unknown_consumer_is_a_configuration_error(workloads: Path, config: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    (workloads / "tlint.toml").write_text(config, encoding="utf-8")
    code, _, err = check(str(workloads / "aicb.txt"), "--config", str(workloads / "tlint.toml"), *argv)
    assert code == 2 and message in err + capsys.readouterr().err


def test_the_cache_keeps_apart_the_results_for_each_consumer(workloads: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLINT_CACHE_DIR", str(tmp_path / "cache"))
    path = str(workloads / "astra" / "resnet.txt")
    for _ in range(2):  # the second round is served from the cache
        out = io.StringIO()
        assert main(["check", path, "--output-format", "json"], stdout=out, stderr=io.StringIO()) == 0
        assert judged(json.loads(out.getvalue()))["resnet.txt"][0] == "astra-sim-1"
        out = io.StringIO()
        assert main(["check", path, "--output-format", "json", "--consumer", "simai"], stdout=out, stderr=io.StringIO()) == 1
        assert codes(json.loads(out.getvalue())) == {"resnet.txt": [("TL424", "error")]}


def test_sarif_results_name_the_consumer_and_rules_their_levels_per_consumer(workloads: Path) -> None:
    out = io.StringIO()
    main(["check", str(workloads / "astra"), "--output-format", "sarif", "--no-cache", "--consumer", "simai"], stdout=out, stderr=io.StringIO())
    run = read_sarif(out.getvalue())["runs"][0]
    assert [result["properties"] for result in run["results"]] == [{"consumer": "simai"}]
    rule = next(rule for rule in run["tool"]["driver"]["rules"] if rule["id"] == "TL427")
    assert rule["properties"] == {"consumers": {"simai": "warning", "astra-sim-1": "error"}}


def test_the_rule_listing_gives_the_severity_for_each_consumer() -> None:
    out = io.StringIO()
    assert main(["rule", "TL427"], stdout=out) == 0
    assert "Severity: warning (simai), error (astra-sim-1)" in out.getvalue()
    out = io.StringIO()
    assert main(["rules", "--output-format", "json"], stdout=out) == 0
    listed = {rule["code"]: rule for rule in json.loads(out.getvalue())}
    assert listed["TL410"]["consumers"] == {"simai": "error"} and listed["TL101"]["consumers"] == {}


def test_show_settings_names_the_consumers(workloads: Path) -> None:
    (workloads / "tlint.toml").write_text('consumer = "simai"\n[per-path-consumer]\n"astra/**" = "astra-sim-1"\n', encoding="utf-8")
    out = io.StringIO()
    main(["check", str(workloads), "--config", str(workloads / "tlint.toml"), "--show-settings"], stdout=out)
    assert f"consumer: simai (consumer in {workloads / 'tlint.toml'})" in out.getvalue()
    assert "per-path-consumer: astra/** -> astra-sim-1" in out.getvalue()


def test_the_summary_says_which_consumers_the_files_were_judged_for(workloads: Path) -> None:
    err = io.StringIO()
    assert main(["check", str(workloads), "--no-cache"], stdout=io.StringIO(), stderr=err) == 0
    assert err.getvalue().strip() == "Checked 2 files: no findings. Judged for astra-sim-1 (1 file), simai (1 file)."
