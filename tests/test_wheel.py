"""The built wheel carries the grammars and rules and works from any directory."""

from __future__ import annotations

import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED_TRACE = ROOT / "tests" / "fixtures" / "seeds" / "000_14848477538be528.txt"


@pytest.mark.slow
def test_installed_wheel_checks_a_seed_outside_the_repository(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("tlint_traces-*.whl")  # the distribution's name; the command is `tlint`
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)], check=True)
    # The runtime dependencies are installed in this interpreter's environment (a venv or not): the new
    # environment reads them after its own packages.  Written after the install, so that pip does not
    # take a tlint installed there for this one.
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True, capture_output=True, text=True
    ).stdout.strip()
    Path(purelib, "tlint-test-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import lint, pathlib; p = pathlib.Path(lint.__file__).parent; "
            "print(p); print(sorted(x.name for x in (p / 'grammars').glob('*.lark'))); print(len(list((p / 'rules').glob('tl*.py'))))",
        ],
        cwd=elsewhere,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert Path(where[0]).is_relative_to(environment)
    assert "megatron-trace.lark" in where[1]
    assert int(where[2]) >= 4

    result = subprocess.run(
        [str(environment / "bin" / "tlint"), "check", str(SEED_TRACE), "--output-format", "json"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert '"format": "megatron-trace"' in result.stdout
    rules = subprocess.run([str(environment / "bin" / "tlint"), "rules"], cwd=elsewhere, capture_output=True, text=True)
    assert rules.returncode == 0 and "TL001" in rules.stdout
