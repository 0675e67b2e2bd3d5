"""Layout inference (lint/layout.py): one policy for the rule helpers, run assembly and the differ."""

from __future__ import annotations

from pathlib import Path

from lint.check.engine import CheckOptions, check
from lint.diff.sides import SideOptions, load_side
from lint.layout import Sizes, optprime_sizes, simai_sizes

SEED_LOG = Path(__file__).parent / "fixtures" / "seeds" / "002_cbcb88115115ad29.txt"


def test_an_unknown_size_stays_unknown() -> None:
    assert Sizes(tp=2, pp=2).completed() == Sizes(tp=2, pp=2)
    assert Sizes(pp=2, world=8).completed() == Sizes(pp=2, world=8)  # tp and dp: two unknowns, one equation
    assert optprime_sizes({"world_size": 8}) == Sizes(world=8)  # no PP printed: TP and DP are not implied
    assert simai_sizes(4, None, 1, 16) == Sizes(tp=4, ep=1, world=16)  # no pp: no DP either, not 16 / 4


def test_the_world_is_the_product_of_its_three_factors() -> None:
    assert Sizes(tp=2, pp=4, dp=3).completed().world == 24
    assert Sizes(tp=2, pp=4, world=24).completed().dp == 3
    assert Sizes(pp=4, dp=3, world=24).completed().tp == 2
    assert Sizes(tp=2, dp=3, world=24).completed().pp == 4
    assert Sizes(tp=5, pp=4, world=24).completed().dp is None  # 24 is no multiple of 20: no size is made up
    assert Sizes(tp=2, pp=2, dp=2, world=16).completed().world == 16  # a stated world is kept; rules judge the misfit


def test_an_optprime_log_implies_dp_and_tp_of_1_next_to_a_printed_pp() -> None:
    assert optprime_sizes({"pp": 8, "world_size": 8}) == Sizes(tp=1, pp=8, dp=1, world=8)
    assert optprime_sizes({"pp": 2, "tp": 2, "world_size": 8}) == Sizes(tp=2, pp=2, dp=1, world=8)
    assert optprime_sizes({"pp": "eight"}).pp is None  # not a size


def test_a_simai_header_gives_dp_as_simai_computes_it() -> None:
    assert simai_sizes(4, 2, 1, 16) == Sizes(tp=4, pp=2, dp=2, ep=1, world=16)
    assert simai_sizes(4, 2, 1, 0).dp is None  # SimAI's division by zero is a finding (TL411), not a size


def test_the_rules_and_the_differ_read_a_log_without_tp_and_dp_alike(tmp_path: Path) -> None:
    """The log prints PP (and a world that does not fit) but neither TP nor DP: both take them as 1."""
    lines = SEED_LOG.read_text(encoding="utf-8").splitlines()
    kept = [text for text in lines if text not in ("> TP: 1", "> DP: 1")]
    kept = [text.replace("> World size: 8", "> World size: 16").replace("> World Size: 8", "> World Size: 16") for text in kept]
    assert len(kept) == len(lines) - 2
    log = tmp_path / "run.log"
    log.write_text("\n".join(kept) + "\n", encoding="utf-8")

    profile = load_side(str(log), SideOptions())
    assert (profile.knobs["tp"], profile.knobs["pp"], profile.knobs["dp"], profile.config["world"]) == (1, 8, 1, {"": 16})
    (world,) = [f for f in check([str(log)], CheckOptions()).findings if f.code == "TL201"]
    assert "DP 1 (not printed: OptimusPrime prints it only above 1)" in world.message
    assert "TP 1 (not printed: OptimusPrime prints it only above 1)" in world.message
