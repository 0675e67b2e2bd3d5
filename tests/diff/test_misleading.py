"""Diff results that misled on real runs: each case on a pair of real or synthetic runs.

Real inputs are read in place from ``../shared/corpus/real/`` (skipped with the reason where it is absent).
"""

from __future__ import annotations

import io
import itertools
import json
import math
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lint.cli import main
from lint.diff import SideOptions
from lint.diff.sides import load_side
from lint.models.diff import DiffReport
from tests.diff.conftest import diff_of
from tests.shared_corpus import CORPUS
from tests.synth.megatron_run import RunSpec, generate_run, slow_down_stage, write_run

ROOT = Path(__file__).resolve().parents[2]
REAL = CORPUS / "real"
SIMAI = REAL / "simai-workload"
MEGATRON = REAL / "megatron-trace"
GPT_175B = "TyKuro9+SimAI__my_workloads__H100-gpt_175B-world_size{}-tp8-pp8-ep1-gbs1536-mbs1-seq4096-MOE-False-GEMM-False-flash_attn-False.txt"
GPT2_TP2 = "MegatronLM__realistic_trace__wd4_tp2_pp2_numl40_GPT2_20250320144110"
LLAMA_TP2 = "MegatronLM__realistic_trace__wd4_tp2_pp2_numl40_LLaMa_20250320141611"
GPT_TP1 = "MegatronLM__realistic_trace__wd4_tp1_pp2_numl4_20250401230426"
SMALL = RunSpec(micro_batches=4, layers=4, hidden=32, seq=8, vocab=64)  # each test gives it its layout


def real(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is not here: the shared corpus (../shared/corpus/real) is absent")
    return path


def changes_of(report: DiffReport) -> dict[tuple[str, str, str], tuple[object, object]]:
    return {(c.category, c.key, c.field): (c.before, c.after) for c in report.changes}


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# -- fewer micro-batch copies are not removed rows --------------------------------------------------


def test_a_workload_with_fewer_micro_batch_copies_has_no_removed_rows() -> None:
    report = diff_of(real(SIMAI / GPT_175B.format(1024)), real(SIMAI / GPT_175B.format(4096)))
    found = changes_of(report)
    assert found["config", "micro-batches", ""] == (96, 24)
    assert found["structure", "rows", "copies"] == (96, 24)
    assert [c for c in report.changes if c.key.startswith("row ")] == []  # before: "removed row attention_layer#288-1151"
    assert "removed" not in report.summary.headline


# -- one sample per side: not judged, still ranked ---------------------------------------------------


def test_one_sample_per_side_is_not_judged_but_still_ranked_by_size() -> None:
    report = diff_of(real(SIMAI / GPT_175B.format(1024)), real(SIMAI / GPT_175B.format(4096)))
    (total,) = [c for c in report.changes if c.key == "workload compute"]
    assert total.rel_delta == pytest.approx(-0.748, abs=0.001)
    assert (total.significant, total.judged) == (False, False)
    assert "workload compute −74.8 % (significance not judged: one sample on a side)" in report.summary.headline
    assert "not significant" not in report.summary.headline
    timing = [c for c in report.changes if c.category == "timing"]
    assert timing == sorted(timing, key=lambda c: -c.impact)  # ranked by size all the same
    _, out, _ = run_cli(str(SIMAI / GPT_175B.format(1024)), str(SIMAI / GPT_175B.format(4096)), "--all")
    assert "timing changed workload compute median" in out and "(one sample on a side: significance not judged)" in out


# -- what one side cannot infer is not a change; a real TP change is --------------------------------


def test_a_field_one_side_cannot_infer_is_not_a_change() -> None:
    report = diff_of(real(MEGATRON / GPT2_TP2), real(MEGATRON / LLAMA_TP2))  # tp 2 both; LLaMA's parameters do not tell it
    found = changes_of(report)
    unknown = [key for key, (before, after) in found.items() if key[0] == "config" and (before is None or after is None)]
    assert unknown == []  # before: "tp 2 → —", "dp 1 → —"
    assert "→ —" not in report.summary.headline


def test_a_real_tp_change_is_reported() -> None:
    found = changes_of(diff_of(real(MEGATRON / GPT2_TP2), real(MEGATRON / GPT_TP1)))
    assert found["config", "tp", ""] == (2, 1)  # before: "tp 2 → —" (tp 1 has no layer all-reduce to infer from)
    assert found["config", "dp", ""] == (1, 2)


def test_tp_2_pp_4_against_tp_4_reports_the_tp_change_not_only_the_world(tmp_path: Path) -> None:
    write_run(replace(SMALL, tp=2, pp=4, dp=1), tmp_path / "tp2")
    write_run(replace(SMALL, tp=4, pp=4, dp=1), tmp_path / "tp4")
    report = diff_of(tmp_path / "tp2", tmp_path / "tp4")
    found = changes_of(report)
    assert found["config", "tp", ""] == (2, 4) and found["config", "world", ""] == (8, 16)
    assert report.summary.headline.startswith("tp 2 → 4;")  # the knob; the world follows from it


# -- medians are not taken across unrelated collectives ----------------------------------------------


def test_the_message_of_a_kind_is_one_that_exists(tmp_path: Path) -> None:
    # Stage 0 holds the embeddings: its gradient all-reduce is larger than stage 1's.  A median of the
    # two was their mean: a message neither run has.
    spec = replace(SMALL, tp=1, pp=2, dp=1)
    write_run(spec, tmp_path / "run")
    sizes = {4 * spec.stage_parameters(stage) for stage in range(spec.pp)}
    assert len(sizes) == 2
    profile = load_side(str(tmp_path / "run"), SideOptions())
    assert profile.comm["dp dp_allreduce"]["message bytes"] in sizes


def test_a_workload_kind_reports_the_message_most_of_its_rows_move() -> None:
    profile = load_side(str(real(SIMAI / GPT_175B.format(1024))), SideOptions())
    assert profile.comm["tp allreduce"]["message bytes"] == 100_663_296  # every attention, MLP and embedding row's size


# -- the headline agrees with the stage table -----------------------------------------------------


def test_the_headline_names_a_significant_stage_when_the_step_test_falls_short(tmp_path: Path) -> None:
    # Three timed steps cannot make the step time significant on their own (p ≥ 0.1), while the slowed
    # stage's twelve rank-steps do.
    spec = RunSpec(tp=1, pp=2, dp=4, micro_batches=4, layers=2, hidden=16, seq=8, vocab=64, iterations=4)
    write_run(spec, tmp_path / "a")
    write_run(spec, tmp_path / "b", run=slow_down_stage(generate_run(spec), 1, 1.3))
    report = diff_of(tmp_path / "a", tmp_path / "b")
    by_key = {c.key: c for c in report.changes if c.category == "timing"}
    assert not by_key["step"].significant and by_key["stage 1 step"].significant
    assert report.summary.headline.startswith("step time +29.9 % (not significant)")
    assert "but stage 1 step +29.9 % is significant" in report.summary.headline  # before: not a word of it


# -- broken input is said to be broken -------------------------------------------------------------


def test_diffing_a_run_with_syntax_errors_is_inconclusive(tmp_path: Path) -> None:
    spec = replace(SMALL, tp=1, pp=2, dp=1)
    write_run(spec, tmp_path / "a")
    paths = write_run(spec, tmp_path / "b")
    lines = paths[1].read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace("stage_id=1", "stage_id=x", 1)
    paths[1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run_cli(str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 1 and out.startswith(f"inconclusive: b has 1 error (`tlint check` lists it): {paths[1].name}:3:") and err == ""
    document = json.loads(run_cli(str(tmp_path / "a"), str(tmp_path / "b"), "--output-format", "json")[1])
    assert document["a"]["errors"] == 0 and document["b"]["errors"] == 1 and document["b"]["problems"][0].startswith(f"{paths[1]}:3:")


def test_diffing_a_workload_with_syntax_errors_names_the_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workload = ROOT / "examples" / "simai-workload.txt"
    lines = workload.read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4].replace("ALLREDUCE", "ALLREDUCE x y z", 1)
    monkeypatch.chdir(tmp_path)  # a short path: the full format's table is as wide as the terminal, whatever the temporary folder
    broken = Path("broken.txt")
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, out, _ = run_cli(str(workload), str(broken))
    assert out.startswith(f"inconclusive: b has 1 error (`tlint check` lists it): {broken.name}:5:")
    _, out, _ = run_cli(str(workload), str(broken), "--output-format", "full")
    assert f"b: 1 error (`tlint check {broken}` lists it):" in " ".join(re.sub(r"[│╭╮╰╯─]", " ", out).split())


# -- HTML: parsed and validated ---------------------------------------------------------------------


_VOID = {"meta", "br", "line", "rect", "hr", "img", "input", "link"}


class _Validator(HTMLParser):
    """Checks that elements nest and close, and collects tables, tick labels and axis titles."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.problems: list[str] = []
        self.tables: list[list[list[str]]] = []
        self.texts: list[tuple[str, str]] = []  # (class, text) of SVG <text> elements
        self.table_classes: list[str] = []
        self._cell: str | None = None
        self._text_class: str | None = None
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "table":
            self.tables.append([])
            self.table_classes.append(attributes.get("class") or "")
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "text":
            self._text_class, self._cell = attributes.get("class") or "", ""
        if tag not in _VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:
            self.problems.append(f"<{tag}/> is not a void element")

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open[-1] if self.open else 'nothing'}")
            return
        self.open.pop()
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell or "")
            self._cell = None
        elif tag == "text":
            self.texts.append((self._text_class or "", self._cell or ""))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell += data


def _validated(page: str) -> _Validator:
    validator = _Validator()
    validator.feed(page)
    validator.close()
    assert page.startswith("<!DOCTYPE html>")
    assert validator.problems == [] and validator.open == [], (validator.problems, validator.open)
    for table in validator.tables:
        assert len({len(row) for row in table}) == 1  # every row has the heading's number of cells
    return validator


def _tick_values(validator: _Validator) -> list[float]:
    return [float(text.replace(",", "")) for cls, text in validator.texts if not cls and re.fullmatch(r"−?[\d,]+(\.\d+)?", text)]


def test_html_of_two_runs_is_valid_with_round_ticks_titled_axes_and_sortable_tables(tmp_path: Path) -> None:
    spec = RunSpec(tp=1, pp=2, dp=2, micro_batches=4, layers=2, hidden=16, seq=8, vocab=64, iterations=6)
    write_run(spec, tmp_path / "a")
    write_run(spec, tmp_path / "b", run=slow_down_stage(generate_run(spec), 1, 1.37))
    _, page, _ = run_cli(str(tmp_path / "a"), str(tmp_path / "b"), "--output-format", "html")
    validator = _validated(page)
    ticks = _tick_values(validator)
    assert len(ticks) >= 3
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1  # evenly spaced
    (step,) = steps
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 6) in (1, 2, 5)  # round values: 1, 2 or 5 times a power of ten
    titles = [text for cls, text in validator.texts if cls == "axis-title"]
    assert "stage" in titles and any(title.startswith("time (ms)") for title in titles)
    assert validator.table_classes and all(cls == "sortable" for cls in validator.table_classes)
    assert 'data-sort="' in page and "<script>" in page


def _workload(path: Path, rows: list[tuple[str, int, int, int]]) -> Path:
    """A SimAI workload of (name, fwd, ig, wg compute ns) rows, each with a TP all-reduce in the forward pass."""
    header = (
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 4 pp_comm: 0 checkpoints: 0 checkpoint_initiates: 0"
    )
    body = [f"{name}\t-1\t{fwd}\tALLREDUCE\t4096\t{ig}\tNONE\t0\t{wg}\tNONE\t0\t100" for name, fwd, ig, wg in rows]
    path.write_text("\n".join([header, str(len(rows)), *body]) + "\n", encoding="utf-8")
    return path


def test_html_of_workloads_plots_no_placeholder_times(tmp_path: Path) -> None:
    # grad_gather has AICB's 1 ns "not measured" in every phase: nothing to plot (before: a box at 1e-6 ms).
    a = _workload(
        tmp_path / "a.txt", [("grad_gather", 1, 1, 1), ("attention_layer", 3_000_000, 6_000_000, 6_000_000), ("mlp_layer", 2_000_000, 4_000_000, 4_000_000)]
    )
    b = _workload(
        tmp_path / "b.txt", [("grad_gather", 1, 1, 1), ("attention_layer", 3_600_000, 6_000_000, 6_000_000), ("mlp_layer", 2_000_000, 4_000_000, 4_000_000)]
    )
    _, page, _ = run_cli(str(a), str(b), "--output-format", "html")
    validator = _validated(page)
    labels = [text for cls, text in validator.texts if not cls and text.endswith(" compute")]
    assert "attention_layer fwd compute" in labels
    assert not any(label.startswith("grad_gather") for label in labels)
    assert "compute key" in [text for cls, text in validator.texts if cls == "axis-title"]


def test_html_colours_each_sides_median_and_boxes_that_can_be_seen(tmp_path: Path) -> None:
    spec = RunSpec(tp=1, pp=2, dp=2, micro_batches=4, layers=2, hidden=16, seq=8, vocab=64, iterations=6)
    write_run(spec, tmp_path / "a")
    write_run(spec, tmp_path / "b", run=slow_down_stage(generate_run(spec), 1, 1.37))
    _, page, _ = run_cli(str(tmp_path / "a"), str(tmp_path / "b"), "--output-format", "html")
    _validated(page)
    medians = re.findall(r'<line class="median" [^>]*stroke="(#[0-9a-f]+)" stroke-width="3"/>', page)
    assert len(set(medians)) == 2 and "#000" not in medians  # before: both black, 2 px
    widths = [float(width) for width in re.findall(r'<rect x="[^"]+" y="[^"]+" width="([^"]+)"', page)]
    assert widths and min(widths) >= 4  # before: 1 px where the quartiles coincide


def test_html_is_titled_by_its_two_sides_and_keeps_cells_on_one_line(tmp_path: Path) -> None:
    a = _workload(tmp_path / "base.txt", [("attention_layer", 3_000_000, 6_000_000, 6_000_000)])
    b = _workload(tmp_path / "tuned.txt", [("attention_layer", 3_600_000, 6_000_000, 6_000_000)])
    _, page, _ = run_cli(str(a), str(b), "--output-format", "html", "--all")
    assert "<title>tlint diff: base.txt → tuned.txt</title>" in page  # before: always "tlint diff"
    assert "white-space: nowrap" in page and '<div class="scroll"><table' in page  # before: the key column wrapped


def test_html_says_when_a_side_has_no_samples(tmp_path: Path) -> None:
    a = _workload(tmp_path / "a.txt", [("attention_layer", 3_000_000, 6_000_000, 6_000_000)])
    b = _workload(tmp_path / "b.txt", [("attention_layer", 3_000_000, 6_000_000, 6_000_000), ("mlp_layer", 2_000_000, 4_000_000, 4_000_000)])
    _, page, _ = run_cli(str(a), str(b), "--output-format", "html")
    validator = _validated(page)
    labels = [text for _, text in validator.texts]
    assert "mlp_layer fwd compute" in labels and "a: no samples" in labels  # before: a blank row, as if a took no time
