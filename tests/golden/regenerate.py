"""Regenerate the golden model dumps (never edit them by hand).

    python tests/golden/regenerate.py                      # refresh every existing golden file
    python tests/golden/regenerate.py FORMAT FIXTURE...    # add golden files for these fixtures

A golden file ``tests/golden/<format>/<fixture name>.json`` holds the fixture's path (relative to the
repository) and every record and syntax problem the parser yields for it, dumped through pydantic.  The
chakra-et fixtures are binary traces written by tests/synth/chakra_trace.py (see tests/fixtures/chakra/).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
sys.path.insert(0, str(ROOT))

from lint.formats import named, parser  # noqa: E402
from lint.models.dump import dump_record  # noqa: E402
from lint.read.source import Source  # noqa: E402


def golden_dump(format_name: str, fixture: Path) -> dict[str, Any]:
    source = Source(fixture, str(fixture))
    read = parser(format_name)
    items = read.read(source) if named(format_name).binary else read.parse(source.lines())  # type: ignore[attr-defined]
    records = [dump_record(item) for item in items]
    records += [dump_record(problem) for problem in source.problems]
    return {"source": fixture.resolve().relative_to(ROOT).as_posix(), "format": format_name, "records": records}


def golden_path(format_name: str, fixture: Path) -> Path:
    return GOLDEN / format_name / f"{fixture.name}.json"


def write(format_name: str, fixture: Path) -> Path:
    path = golden_path(format_name, fixture)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(golden_dump(format_name, fixture), indent=1) + "\n", encoding="utf-8")
    return path


def main(argv: list[str]) -> int:
    if argv:
        format_name, *fixtures = argv
        targets = [(format_name, Path(f)) for f in fixtures]
    else:
        targets = [(data["format"], ROOT / data["source"]) for data in (json.loads(p.read_text(encoding="utf-8")) for p in sorted(GOLDEN.glob("*/*.json")))]
    for format_name, fixture in targets:
        print(write(format_name, fixture).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
