"""chakra-et: detection from structure, the framing reader, the historical layouts, runs, and the real examples.

Traces are written by tests/synth/chakra_trace.py (the wire format encoded by hand); the real examples of
``../shared/corpus/real/chakra-et`` are read in place.
"""

from __future__ import annotations

import io
import json
import lzma
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint import formats
from lint.cli import main
from lint.formats.chakra_et import wire
from lint.formats.chakra_et.parser import Parser, detect_bytes
from lint.formats.chakra_et.records import HeadRecord, NodeRecord
from lint.models.common import SyntaxProblem
from lint.read.source import Source
from tests.shared_corpus import corpus_dir
from tests.synth.chakra_trace import FIXTURES, collective, delimited, key, trace, varint, write

FIXTURE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "chakra"


def check(*paths: Path, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    out = io.StringIO()
    code = main(
        ["check", *map(str, paths), "--no-cache", "--output-format", "json", "--max-findings", "0", "--jobs", "1", *extra], stdout=out, stderr=io.StringIO()
    )
    assert code in (0, 1)
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def errors(report: dict[str, Any]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for finding in report["findings"]:
        if finding["severity"] == "error":
            found.setdefault(Path(finding["path"]).name, set()).add(finding["code"])
    return found


def read(path: Path) -> list[Any]:
    return list(Parser().read(Source(path, str(path))))


def detected(path: Path) -> str | None:
    source = Source(path, str(path))
    return formats.detect(source.head(), source.head_bytes)


def test_the_fixtures_are_what_the_writer_writes() -> None:
    """tests/fixtures/chakra/ (read by the golden tests) is made by the writer, not copied from anywhere."""
    assert {path.name: path.read_bytes() for path in FIXTURE_DIR.iterdir()} == {name: trace(spec) for name, spec in FIXTURES.items()}


# -- detection ---------------------------------------------------------------------------------------


def test_a_trace_is_detected_by_its_structure_whatever_its_name(tmp_path: Path) -> None:
    (tmp_path / "trace.bin").write_bytes(trace({"nodes": [collective(1)]}))
    assert detected(tmp_path / "trace.bin") == "chakra-et"


def test_text_named_et_is_no_trace(tmp_path: Path) -> None:
    (tmp_path / "wl.0.et").write_text("DATA\n2\nconv1\t-1\t5\tNONE\t0\t5\tNONE\t0\t5\tALLREDUCE\t64\t1\n", encoding="utf-8")
    assert detected(tmp_path / "wl.0.et") == "simai-workload"  # an ASTRA-sim 1.0 workload, whatever its suffix
    (tmp_path / "notes.0.et").write_text("a note about the run\n", encoding="utf-8")
    assert detected(tmp_path / "notes.0.et") is None


def test_zeroed_bytes_are_no_trace() -> None:
    assert not detect_bytes(b"\0" * 4096, complete=True)


def test_detection_needs_the_first_record_to_be_metadata_or_node() -> None:
    assert not detect_bytes(varint(3) + b"\x00\x00\x00", complete=True)  # field number 0
    assert detect_bytes(trace({"nodes": [collective(1)]}), complete=True)


def test_detection_takes_the_writers_field_numbers_wire_types_and_order() -> None:
    """protobuf writes a message's fields in the order of their numbers, each number with its type's wire type."""

    def record(payload: bytes) -> bytes:
        return varint(len(payload)) + payload

    node = key(1, 0) + varint(1) + delimited(2, b"n") + key(3, 0) + varint(4)
    assert detect_bytes(record(node), complete=True)
    assert detect_bytes(record(node + key(12, 0) + varint(4096)), complete=True)  # eg_def 0.0.1's num_ops
    assert not detect_bytes(record(key(3, 0) + varint(4) + key(1, 0) + varint(1) + delimited(2, b"n")), complete=True)  # type before id
    assert not detect_bytes(record(node + delimited(12, b"4096")), complete=True)  # num_ops is a varint in every layout
    assert not detect_bytes(record(delimited(1, b"1") + delimited(2, b"n") + key(3, 0) + varint(4)), complete=True)  # an id is a varint


# One of tlint's own cache entries (a checksum, then JSON), which a walk read as a trace: its "5" frames a record of
# 53 bytes whose "b" walked as eg_def 0.0.1's field 12 (51 bytes long), then the next "record" ran past the end.
CACHE_ENTRY = b'5b3c10950864016f9006ff011ddef53e [[true,"megatron-trace",null,null],[],{}]\nd2437adaefc7462db91559efef4d10ea null'


def test_text_that_frames_by_chance_is_no_trace(tmp_path: Path) -> None:
    (tmp_path / "entry").write_bytes(CACHE_ENTRY)
    report = check(tmp_path)
    assert report["findings"] == [] and report["summary"]["skipped"] == [str(tmp_path / "entry")]
    # 32 spaces frame as a node of 16 control dependencies, and every field is in order: text holds no node's type key.
    assert not detect_bytes(b" " * 4096, complete=True)
    assert not detect_bytes(b"\n".join([b" " * 32] * 100), complete=True)


def test_a_damaged_record_after_the_first_is_reported_not_undetected(tmp_path: Path) -> None:
    data = trace({"nodes": [collective(1), collective(2)]})
    (tmp_path / "wl.0.et").write_bytes(data[:-5])
    assert detected(tmp_path / "wl.0.et") == "chakra-et"
    assert errors(check(tmp_path / "wl.0.et")) == {"wl.0.et": {"TL601"}}


# -- the framing reader ----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=20))
def test_framing_round_trip(payloads: list[bytes]) -> None:
    data = b"".join(varint(len(payload)) + payload for payload in payloads)
    frames = list(wire.frames(io.BytesIO(data)))
    assert [frame.payload for frame in frames if isinstance(frame, wire.Frame)] == payloads
    offsets = [0]
    for payload in payloads[:-1]:
        offsets.append(offsets[-1] + len(varint(len(payload))) + len(payload))
    assert [frame.offset for frame in frames] == offsets[: len(payloads)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=2000))
def test_no_exception_on_any_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "any.3.et"
    path.write_bytes(data)
    detect_bytes(data[: 64 * 1024], complete=True)
    for item in read(path):
        assert isinstance(item, HeadRecord | NodeRecord | SyntaxProblem)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=400), st.data())
def test_no_exception_on_a_trace_cut_or_damaged_anywhere(tmp_path: Path, cut: int, data: st.DataObject) -> None:
    good = trace({"nodes": [collective(1), {"id": 2, "data": [1], "duration": 5}, collective(3, 2, 64, pg_name="1")]})
    position = data.draw(st.integers(min_value=0, max_value=len(good) - 1))
    damaged = good[:position] + bytes([data.draw(st.integers(0, 255))]) + good[position + 1 :]
    for variant in (good[: cut % len(good)], damaged):
        path = tmp_path / "wl.0.et"
        path.write_bytes(variant)
        read(path)


def test_a_truncated_record_names_its_offset_and_index(tmp_path: Path) -> None:
    data = trace({"nodes": [collective(1), collective(2)]})
    (tmp_path / "wl.0.et").write_bytes(data[:-3])
    problems = [item for item in read(tmp_path / "wl.0.et") if isinstance(item, SyntaxProblem)]
    second = len(trace({"nodes": [collective(1)]}))
    assert [(problem.line, problem.message.split(":")[0]) for problem in problems] == [(3, f"byte {second}")]
    assert "record 2 declares" in problems[0].message


def test_compressed_data_cut_short_is_reported_after_the_records_read(tmp_path: Path) -> None:
    names = random.Random(7)  # names that do not compress away; past the 1 MiB the reader asks at once
    nodes = [{"id": index, "name": names.randbytes(100).hex(), "duration": 5, "data": [index - 1] if index else []} for index in range(12000)]
    packed = lzma.compress(trace({"nodes": nodes}), preset=0)
    (tmp_path / "wl.0.et").write_bytes(packed[: len(packed) // 2])  # past the head, which detection reads whole
    items = read(tmp_path / "wl.0.et")
    *records, last = items
    assert records and all(isinstance(item, HeadRecord | NodeRecord) for item in records)
    assert isinstance(last, SyntaxProblem) and last.code == "TL004" and last.line == len(records) + 1
    assert last.message.startswith(f"the xz data is damaged or ends early after line {len(records)}: ")
    assert errors(check(tmp_path / "wl.0.et")) == {"wl.0.et": {"TL004"}}


def test_a_long_trace_is_read_across_chunks(tmp_path: Path) -> None:
    nodes = [{"id": index, "name": "x" * 500, "duration": 5, "data": [index - 1] if index else []} for index in range(5000)]
    (tmp_path / "wl.0.et").write_bytes(trace({"nodes": nodes}))
    records = read(tmp_path / "wl.0.et")
    assert [record.id for record in records if isinstance(record, NodeRecord)] == list(range(5000))
    assert errors(check(tmp_path / "wl.0.et")) == {}


# -- historical layouts and damaged traces ---------------------------------------------------------------


def _eg_def_node(node_id: int, parent: int | None) -> dict[str, Any]:
    """A node of the eg_def 0.0.1 layout (January 2023): node_type 3 (COMP), parent in field 4, num_ops in field 12."""
    return {"id": node_id, "name": f"stack_0_mha@{node_id}_COMP", "type": 3, "ctrl": [parent] if parent is not None else [], "extra": [[12, 0, 4096]]}


def test_a_run_in_the_historical_layout_gets_an_error_on_every_file(tmp_path: Path) -> None:
    nodes = [_eg_def_node(1, None), _eg_def_node(2, 1), _eg_def_node(3, 2)]
    write({f"transformer_2stack.{npu}.eg": {"metadata": False, "nodes": nodes} for npu in range(4)}, tmp_path)
    found = errors(check(tmp_path))
    assert found == {f"transformer_2stack.{npu}.eg": {"TL603"} for npu in range(4)}


def test_a_run_without_metadata_gets_an_error_on_every_file(tmp_path: Path) -> None:
    nodes = [{"id": 0, "name": "COMP_NODE_conv1_FWD", "duration": 13003}, {"id": 1, "name": "COMP_NODE_conv2_FWD", "duration": 3456, "ctrl": [0]}]
    write({f"resnet50_DataParallel.{npu}.et": {"metadata": False, "nodes": nodes} for npu in range(2)}, tmp_path)
    assert errors(check(tmp_path)) == {f"resnet50_DataParallel.{npu}.et": {"TL602"} for npu in range(2)}


def test_a_damaged_pytorch_trace_gets_errors(tmp_path: Path) -> None:
    """What chakra's feeder test trace (tests/data/feeder_tests_trace.tar.gz) shows: dependencies on nodes it
    lacks, and the CPU side of each collective typed COMM_COLL."""
    nodes = [
        {"id": 216, "name": "aten::flatten_dense_tensors(0)", "duration": 318, "ctrl": [3], "attrs": {"is_cpu_op": True}},
        {"id": 432, "name": "c10d::broadcast_(0)", "type": "COMM_COLL_NODE", "ctrl": [216], "attrs": {"is_cpu_op": True}},
        {
            "id": 435,
            "name": "ncclKernel_Broadcast",
            "type": "COMM_COLL_NODE",
            "data": [432],
            "attrs": {"is_cpu_op": False, "comm_type": 5, "comm_size": 212480},
        },
    ]
    (tmp_path / "chakra.0.et").write_bytes(trace({"metadata": {"attrs": {"schema": "1.0.1"}}, "nodes": nodes}))
    assert errors(check(tmp_path / "chakra.0.et")) == {"chakra.0.et": {"TL606", "TL612"}}


def test_the_stated_schema_is_read(tmp_path: Path) -> None:
    (tmp_path / "a.et").write_bytes(trace({"metadata": {"version": "0.0.4"}, "nodes": [collective(1)]}))
    (tmp_path / "b.et").write_bytes(trace({"metadata": {"attrs": {"schema": "1.0.2-chakra.0.0.4"}}, "nodes": [collective(1)]}))
    assert [record.stated_schema for path in ("a.et", "b.et") for record in read(tmp_path / path) if isinstance(record, HeadRecord)] == [
        "0.0.4",
        "1.0.2-chakra.0.0.4",
    ]


# -- runs --------------------------------------------------------------------------------------------------


def test_a_zeroed_file_of_a_run_is_reported(tmp_path: Path) -> None:
    write({"wl.0.et": {"nodes": [collective(1)]}, "wl.1.et": {"nodes": [collective(1)]}}, tmp_path)
    (tmp_path / "wl.2.et").write_bytes(b"\0" * 100)
    report = check(tmp_path)
    assert errors(report) == {"wl.2.et": {"TL601"}}
    assert "zeroed bytes" in report["findings"][0]["message"]


def test_a_run_is_found_from_one_of_its_files(tmp_path: Path) -> None:
    write({"wl.0.et": {"nodes": [collective(1)]}, "wl.1.et": {"nodes": [collective(1, 2)]}}, tmp_path)
    found = check(tmp_path / "wl.0.et")
    assert [(finding["code"], finding["rank"]) for finding in found["findings"]] == [("TL522", 1)]


def test_comm_group_given_on_the_command_line(tmp_path: Path) -> None:
    write({"wl.0.et": {"nodes": [collective(1, pg_name="3")]}, "wl.1.et": {"nodes": [collective(1, pg_name="3")]}}, tmp_path)
    assert errors(check(tmp_path)) == {"wl.0.et": {"TL524"}}
    groups = tmp_path / "groups.json"
    groups.write_text('{"3": [0, 1]}', encoding="utf-8")
    assert errors(check(tmp_path, extra=("--comm-group", str(groups)))) == {}


def test_a_run_is_the_same_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files of equal bytes under other NPUs' names: each is judged for its own NPU, cached or not."""
    monkeypatch.setenv("TLINT_CACHE_DIR", str(tmp_path / "cache"))
    run = tmp_path / "run"
    run.mkdir()
    send = {"id": 1, "type": "COMM_SEND_NODE", "attrs": {"comm_src": 0, "comm_dst": 1, "comm_tag": 7, "comm_size": 64}}
    write({"wl.0.et": {"nodes": [send]}, "wl.2.et": {"nodes": [send]}}, run)
    outputs = []
    for _ in range(2):
        out = io.StringIO()
        main(["check", str(run), "--output-format", "json", "--jobs", "1"], stdout=out, stderr=io.StringIO())
        outputs.append(sorted((f["code"], Path(f["path"]).name) for f in json.loads(out.getvalue())["findings"]))
    assert outputs[0] == outputs[1]
    assert ("TL611", "wl.2.et") in outputs[0] and ("TL611", "wl.0.et") not in outputs[0]


def test_diff_of_two_runs(tmp_path: Path) -> None:
    write({"wl.0.et": {"nodes": [collective(1)]}, "wl.1.et": {"nodes": [collective(1)]}}, tmp_path / "a")
    write({"wl.0.et": {"nodes": [collective(1, 2)]}, "wl.1.et": {"nodes": [collective(1, 2)]}}, tmp_path / "b")
    out = io.StringIO()
    assert main(["diff", str(tmp_path / "a"), str(tmp_path / "b"), "--output-format", "json"], stdout=out, stderr=io.StringIO()) == 1
    changes = {(change["category"], change["key"]) for change in json.loads(out.getvalue())["changes"]}
    assert {("comm", "group default ALL_REDUCE"), ("comm", "group default ALL_GATHER")} <= changes


# -- the real examples -------------------------------------------------------------------------------------


def test_the_real_astra_sim_examples_get_no_error() -> None:
    directory = corpus_dir("real", "chakra-et")
    runs = sorted(path for path in directory.iterdir() if path.is_dir())
    report = check(*runs)
    assert len(report["files"]) == 56 and all(found["format"] == "chakra-et" and found["parsed"] for found in report["files"])
    assert errors(report) == {}
