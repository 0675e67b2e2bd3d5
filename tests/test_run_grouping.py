"""Which megatron-trace files form a run, and the layout of runs that hold only some ranks
(docs/formats/megatron-trace.md, "File names and runs")."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from lint.cli import main
from lint.formats.megatron_trace.summary import RankSummary, Run
from lint.runs.assemble import LayoutSources, assemble
from lint.runs.discovery import DEFAULT_RANK_REGEX, NamedFile, RunKey, name_layout, run_key, split_by_time
from tests.narrow import each


def _named(*names: str) -> list[NamedFile]:
    return each(NamedFile, (run_key(Path("traces") / name, DEFAULT_RANK_REGEX) for name in names))


def _runs(*names: str) -> list[list[str]]:
    return [[named.path.name for named in group] for group in split_by_time(_named(*names)).values()]


def test_one_run_keeps_the_stem_as_its_name() -> None:
    runs = split_by_time(_named("wd4_tp1_pp2_rank0_20250401230426.txt", "wd4_tp1_pp2_rank1_20250401230427.txt"))
    assert list(runs) == [RunKey("traces", "wd4_tp1_pp2_rank")]


def test_runs_sharing_a_stem_are_told_apart_by_their_time_stamps() -> None:
    assert _runs(
        "s_rank0_20250818114732.txt",
        "s_rank1_20250818114558.txt",
        "s_rank0_20250818114558.txt",
        "s_rank1_20250818114732.txt",
    ) == [["s_rank0_20250818114558.txt", "s_rank1_20250818114558.txt"], ["s_rank0_20250818114732.txt", "s_rank1_20250818114732.txt"]]
    keys = split_by_time(_named("s_rank0_20250818114558.txt", "s_rank0_20250818114732.txt"))
    assert [key.label for key in keys] == ["traces/s_rank* (run of 20250818114558)", "traces/s_rank* (run of 20250818114732)"]


def test_a_scaling_run_profiles_its_ranks_one_after_the_other() -> None:
    # one invocation per rank: the stamps increase; a second pass over the ranks is a second run
    first = [f"s_rank{rank}_2025081916{42 + rank:02d}22.txt" for rank in range(4)]
    second = [f"s_rank{rank}_2025081917{10 + rank:02d}00.txt" for rank in range(4)]
    assert _runs(*second, *first) == [first, second]


def test_files_without_a_time_stamp_form_one_run() -> None:
    assert _runs("trace_rank1.txt", "trace_rank0.txt") == [["trace_rank0.txt", "trace_rank1.txt"]]


def _summary(rank: int, stage: int) -> RankSummary:
    return RankSummary.model_construct(path=f"r{rank}.txt", rank=rank, stage=stage, line_of_rank=1, steps=(), iterations=1)


def test_one_sampled_rank_per_stage_gives_the_world_from_ranks_and_stages_not_the_file_count() -> None:
    files = [(_summary(stage * 128, stage), stage * 128) for stage in range(64)]
    run = assemble(RunKey("traces", "trace_rank"), files, frozenset(), LayoutSources(), Run)
    assert run is not None
    assert (run.layout.pp, run.layout.world, run.layout.ranks_per_stage) == (64, 8192, 128)
    assert [run.stage_of(rank) for rank in (0, 128, 8064)] == [0, 1, 63]


def test_the_file_names_state_the_layout() -> None:
    files = [(_summary(stage * 128, stage), stage * 128) for stage in range(64)]
    run = assemble(RunKey("traces", "wd8192_tp4_pp64_exp1_expNumNone_numl96_bs1_rank"), files, frozenset(), LayoutSources(), Run)
    assert run is not None
    layout = run.layout
    assert (layout.world, layout.tp, layout.pp, layout.dp, layout.ep, layout.layers) == (8192, 4, 64, 32, 1, 96)


def test_one_nodes_files_keep_the_pipeline_depth_the_names_state() -> None:
    # node 1 of a 2-node run: ranks 0-7, all of stage 0; the stage ids alone would say pp 1
    files = [(_summary(rank, 0), rank) for rank in range(8)]
    run = assemble(RunKey("traces", "wd16_tp1_pp2_exp2_expNum8_l8_bs1_rank"), files, frozenset(), LayoutSources(), Run)
    assert run is not None
    assert (run.layout.pp, run.layout.world) == (2, 16)
    assert not [claim for claim in run.layout.claims if claim.dimension == "pp" and claim.value != 2]


def test_only_the_writers_name_args_state_a_layout() -> None:
    assert name_layout("wd16_tp1_pp2_exp2_expNum8_l8_bs1_rank") == {"world": 16, "tp": 1, "pp": 2, "ep": 2, "layers": 8}
    assert name_layout("wd4_tp2_pp2_numl40_bs1_GPT2BPETokenizer_rank") == {"world": 4, "tp": 2, "pp": 2, "layers": 40}
    assert name_layout("gpt_tp2_l12_rank") == {}


def _two_runs_of_one_stem(directory: Path) -> Path:
    from tests.synth.megatron_run import RunSpec, write_run

    directory.mkdir()
    for path in write_run(RunSpec(tp=2, pp=2, dp=1, micro_batches=2, layers=2, hidden=64, seq=16, vocab=512), directory):
        shutil.copyfile(path, path.with_name(path.name.replace("20241224105912", "20241225080000")))
    return directory


def test_two_runs_of_one_stem_in_one_directory_are_checked_as_two_runs(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(["check", str(_two_runs_of_one_stem(tmp_path / "runs")), "--output-format", "json", "--no-cache"], stdout=out)
    assert (code, json.loads(out.getvalue())["findings"]) == (0, [])


def test_diff_asks_which_of_two_runs_of_one_stem_to_compare(tmp_path: Path) -> None:
    runs = _two_runs_of_one_stem(tmp_path / "runs")
    err = io.StringIO()
    assert main(["diff", str(runs), str(runs)], stdout=io.StringIO(), stderr=err) == 2
    assert "holds the files of 2 runs (trace_rank* (run of 20241224105912), trace_rank* (run of 20241225080000)); name one" in err.getvalue()


def test_one_asked_file_brings_in_its_own_run_only(tmp_path: Path) -> None:
    runs = _two_runs_of_one_stem(tmp_path / "runs")
    broken = runs / "trace_rank3_20241225080000.txt"
    broken.write_text(broken.read_text(encoding="utf-8").replace("rank:3:", "rank:2:"), encoding="utf-8")
    out = io.StringIO()
    main(["check", str(runs / "trace_rank0_20241224105912.txt"), "--output-format", "json", "--no-cache"], stdout=out)
    assert json.loads(out.getvalue())["findings"] == []  # the other run's duplicate rank is not reported
    out = io.StringIO()
    main(["check", str(runs / "trace_rank0_20241225080000.txt"), "--output-format", "json", "--no-cache", "--select", "TL501"], stdout=out)
    assert [f["code"] for f in json.loads(out.getvalue())["findings"]] == ["TL501"]
