"""Resource budgets, long chains and output safety in the core (issue 15)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from core_toy_ops import Add, Relu
from irconv.errors import ModelFileError, UserError
from irconv.graph import Node
from irconv.ops import Const, Op
from irconv.pipeline import infer_graph
from irconv.pipeline.budget import ValueBudget, ledger_for, set_budget
from irconv.pipeline.fold import fold_constants
from irconv.pipeline.output import AtomicFiles, check_output_path, remove_stale_temps, temp_path
from irconv.testing import GraphBuilder
from irconv.types import ElementType


@dataclass(eq=False)
class Fill(Op):
    """Test op: a tensor of ``shape`` (input 1) filled with input 0; evaluate counts its calls."""

    type = "Broadcast"
    version = 3
    calls: int = 0

    def infer(self, node: Node) -> None:
        shape = node.in_port(1).data.get_value()
        out = node.out_port(0).data
        out.set_shape(None if shape is None else tuple(int(d) for d in shape))
        out.set_type(node.in_port(0).data.get_type())

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.calls += 1
        return [np.broadcast_to(inputs[0], tuple(int(d) for d in inputs[1])).copy()]


@dataclass(eq=False)
class Greedy(Op):
    """Test op whose output size is known only after evaluating; evaluating runs out of memory."""

    type = "Greedy"
    version = 1

    def infer(self, node: Node) -> None:
        node.out_port(0).data.set_shape(None)
        node.out_port(0).data.set_type(ElementType.f32)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        raise MemoryError("Unable to allocate 4.00 TiB")


def fill_graph(*shapes: tuple[int, ...]) -> tuple[GraphBuilder, list[Fill]]:
    b = GraphBuilder()
    x = b.parameter("x", (1,))
    ops = []
    for i, shape in enumerate(shapes):
        op = Fill()
        filled = b.op(op, b.const(np.float32(1)), b.const(np.array(shape, np.int64)), name=f"fill{i}")
        b.result(b.op(Add(), x, filled, name=f"add{i}"), f"y{i}")
        ops.append(op)
    return b, ops


def test_a_huge_value_is_refused_from_its_shape_before_it_is_allocated():
    b, (op,) = fill_graph((1 << 20, 1 << 20))  # 4 TiB of f32
    infer_graph(b.graph)
    data = b.graph.node("fill0").out_port(0).data
    assert op.calls == 0 and data.value is None and data.shape == (1 << 20, 1 << 20)
    assert fold_constants(b.graph, static_shape=False) == 0
    assert b.graph.node("fill0").type == "Broadcast"  # stays an operation: still a valid IR
    assert ledger_for(b.graph).refused == 1


def test_values_within_budget_are_computed_and_folded():
    b, (op,) = fill_graph((2, 3))
    infer_graph(b.graph)
    assert op.calls == 1
    assert fold_constants(b.graph, static_shape=False) == 1
    assert isinstance(b.graph.node("fill0").op, Const)


def test_the_total_budget_of_a_pass_bounds_the_sum_of_values():
    b, ops = fill_graph((256,), (256,), (256,))  # 1 KiB each
    set_budget(b.graph, ValueBudget(tensor_bytes=1024, total_bytes=2048))
    infer_graph(b.graph)
    assert [op.calls for op in ops] == [1, 1, 0]
    assert b.graph.node("fill2").out_port(0).data.value is None


def test_a_new_pass_gets_the_whole_budget_again():
    b, ops = fill_graph((256,))
    set_budget(b.graph, ValueBudget(tensor_bytes=1024, total_bytes=1024))
    infer_graph(b.graph)
    infer_graph(b.graph)
    assert ops[0].calls == 2


def test_folding_is_bounded_by_its_own_budget():
    b, _ = fill_graph((256,), (256,))
    infer_graph(b.graph)
    assert fold_constants(b.graph, static_shape=False, budget=ValueBudget(total_bytes=1024)) == 1
    assert b.graph.node("fill1").type == "Broadcast"


def test_memory_error_while_evaluating_leaves_the_value_unknown():
    b = GraphBuilder()
    g = b.op(Greedy(), b.const(np.float32(1)), name="greedy")
    b.result(b.op(Relu(), g), "y")
    infer_graph(b.graph)
    assert b.graph.node("greedy").out_port(0).data.value is None


@pytest.mark.parametrize("shape", [(1 << 21, 1 << 20), (1 << 41,), (None, 1 << 30, 1 << 11)])
def test_a_parameter_declaring_more_than_2_to_40_elements_is_refused(shape):
    b = GraphBuilder()
    b.result(b.op(Relu(), b.parameter("huge", shape)), "y")
    with pytest.raises(ModelFileError, match="'huge' declares a tensor of shape"):
        infer_graph(b.graph)


def test_a_parameter_declaring_a_negative_dimension_is_refused():
    b = GraphBuilder()
    b.result(b.op(Relu(), b.parameter("x", (-(1 << 40), 3))), "y")
    with pytest.raises(ModelFileError, match="'x' declares a negative dimension"):
        infer_graph(b.graph)


def test_a_100k_node_chain_infers_folds_and_cleans_up_without_recursion():
    b = GraphBuilder()
    port = b.const(np.zeros((2,), np.float32))
    for _ in range(100_000):
        port = b.op(Relu(), port)
    b.result(b.op(Add(), b.parameter("x", (2,)), port), "y")
    infer_graph(b.graph)  # no RecursionError: the walks are iterative (its time: bench/graph_scale.py)
    assert fold_constants(b.graph, static_shape=False) == 100_000
    assert len(b.graph) == 4  # the chain became one Const


# ------------------------------------------------------------------ output safety
def write_pair(files: AtomicFiles, out: Path, text: str) -> None:
    files.open(out, "wb").write(text.encode())
    files.open(out.with_suffix(".bin"), "wb").write(text.encode())


def test_output_equal_to_the_input_through_a_link_is_refused(tmp_path):
    model = tmp_path / "m.xml"
    model.write_text("model")
    link = tmp_path / "link.xml"
    link.symlink_to(model)
    hard = tmp_path / "hard.xml"
    os.link(model, hard)
    for out in (model, link, hard, tmp_path / "sub" / ".." / "m.xml"):
        with pytest.raises(UserError, match="refusing to overwrite the input"):
            check_output_path(out, (model,))
    assert model.read_text() == "model"


def test_output_that_is_a_directory_or_a_device_is_refused(tmp_path):
    with pytest.raises(UserError, match="is a directory"):
        check_output_path(tmp_path, ())
    with pytest.raises(UserError, match="not a regular file"):
        check_output_path(Path("/dev/null"), ())


def test_first_file_opened_is_renamed_last(tmp_path, monkeypatch):
    renamed: list[str] = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (renamed.append(Path(b).name), real(a, b)))
    with AtomicFiles() as files:
        write_pair(files, tmp_path / "m.xml", "new")
    assert renamed == ["m.bin", "m.xml"]


@pytest.mark.parametrize("sync", [False, True])
def test_files_reach_the_disk_before_the_rename_only_when_asked(tmp_path, monkeypatch, sync):
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd)))
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append("rename"), real_replace(a, b)))
    with AtomicFiles(sync=sync) as files:
        write_pair(files, tmp_path / "m.xml", "new")
    assert events == (["fsync", "fsync", "rename", "rename"] if sync else ["rename", "rename"])
    assert (tmp_path / "m.xml").read_text() == "new"


@pytest.mark.parametrize("sync", [False, True])
def test_an_existing_output_is_moved_aside_unless_syncing(tmp_path, monkeypatch, sync):
    # Renaming over an existing file makes ext4 write the new one out at once: without
    # --sync the old file is renamed away first, and removed after the commit.
    out = tmp_path / "m.xml"
    with AtomicFiles() as files:
        write_pair(files, out, "old")
    replaced_existing: list[str] = []
    real = os.replace
    monkeypatch.setattr(
        os, "replace", lambda a, b: (replaced_existing.append(Path(b).name) if Path(b).exists() else None, real(a, b))
    )
    with AtomicFiles(sync=sync) as files:
        write_pair(files, out, "new")
    assert replaced_existing == (["m.bin", "m.xml"] if sync else [])
    assert out.read_text() == out.with_suffix(".bin").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml"]


def test_a_failed_conversion_keeps_the_previous_output(tmp_path):
    out = tmp_path / "m.xml"
    with AtomicFiles() as files:
        write_pair(files, out, "good")
    with pytest.raises(KeyboardInterrupt), AtomicFiles() as files:
        write_pair(files, out, "bad")
        raise KeyboardInterrupt
    assert out.read_text() == out.with_suffix(".bin").read_text() == "good"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml"]


def test_stale_temps_of_dead_processes_are_removed_live_ones_kept(tmp_path):
    out = tmp_path / "m.xml"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = temp_path(out, int(dead.stdout))
    stale.write_text("half")
    live = temp_path(out, os.getppid())
    live.write_text("being written")
    moved_aside = tmp_path / f".m.xml.{int(dead.stdout)}.old"  # a crash between two renames
    moved_aside.write_text("previous")
    assert sorted(remove_stale_temps(out)) == sorted([stale, moved_aside])
    assert not stale.exists() and not moved_aside.exists() and live.exists()


_SIGTERM_CHILD = """
import sys, threading
from pathlib import Path
from irconv.pipeline.output import AtomicFiles
out = Path(sys.argv[1])
with AtomicFiles() as files:
    files.open(out, "wb").write(b"bad")
    print("writing", flush=True)
    threading.Event().wait()  # until the signal
"""


def test_sigterm_while_writing_removes_the_temps_and_keeps_the_previous_output(tmp_path):
    out = tmp_path / "m.xml"
    out.write_text("good")
    child = subprocess.Popen(
        [sys.executable, "-c", _SIGTERM_CHILD, str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline() == "writing\n"
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=30)
    assert child.returncode != 0 and "Terminated" in err
    assert out.read_text() == "good"
    assert [p.name for p in tmp_path.iterdir()] == ["m.xml"]


def _writer(out: str, tag: str, rounds: int) -> None:
    for i in range(rounds):
        with AtomicFiles() as files:
            write_pair(files, Path(out), f"{tag}-{i}" * 1000)


def test_two_writers_at_once_leave_one_consistent_pair(tmp_path):
    out = tmp_path / "m.xml"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(out), tag, 50)) for tag in "ab"]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert out.read_text() == out.with_suffix(".bin").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml"]


@dataclass(eq=False)
class Pick(Op):
    """Test op declared to read three inputs (data, indices, axis); evaluate counts its calls."""

    type = "Gather"
    version = 8
    arity = (3, 3)
    calls: int = 0

    def infer(self, node: Node) -> None:
        node.out_port(0).data.set_shape(None)
        node.out_port(0).data.set_type(node.in_port(0).data.get_type())

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.calls += 1
        return [np.take(inputs[0], inputs[1], axis=int(inputs[2]))]


def test_a_node_missing_an_input_its_op_reads_is_not_evaluated():
    """An IR mutant lost a Gather's axis port: evaluating the node read past its inputs (a plugin
    fault); it stays an operation, which the emitter's input-count check refuses, naming it."""
    b = GraphBuilder()
    op = Pick()
    b.result(b.op(op, b.const(np.arange(3)), b.const(np.int64(1)), name="pick"), "y")
    infer_graph(b.graph)
    assert op.calls == 0
    assert b.graph.node("pick").out_port(0).data.value is None
