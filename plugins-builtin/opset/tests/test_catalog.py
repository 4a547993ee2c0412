"""The catalog: one class per op version, consistent names, every class exported."""

from __future__ import annotations

import dataclasses
from collections import Counter

import irconv_opset
from irconv_opset.catalog import NEWEST_OPSET, all_ops, opset_ranges


def test_each_op_version_is_declared_once():
    counts = Counter((op.type, op.version) for op in all_ops())
    duplicates = [f"{t}-{v}" for (t, v), n in counts.items() if n > 1]
    assert not duplicates, f"declared by more than one class: {duplicates}"


def test_class_names_follow_the_type():
    """``<Type>`` for the newest version, ``<Type>_v<N>`` for older ones."""
    newest = {}
    for op in all_ops():
        newest[op.type] = max(newest.get(op.type, 0), op.version)
    wrong = []
    for op in all_ops():
        expected = op.type if op.version == newest[op.type] else f"{op.type}_v"
        if not op.__name__.startswith(expected) or (op.version == newest[op.type] and op.__name__ != op.type):
            wrong.append(f"{op.__name__} ({op.type}-{op.version})")
    assert not wrong, f"class names not following the type: {wrong}"


def test_versions_are_within_the_supported_opsets():
    assert all(1 <= op.version <= NEWEST_OPSET for op in all_ops())
    assert all(len(r) > 0 for r in opset_ranges().values())


def test_every_op_is_exported_from_the_package():
    missing = [op.__name__ for op in all_ops() if getattr(irconv_opset, op.__name__, None) is not op]
    assert not missing, f"not importable from irconv_opset: {missing}"


def test_ops_are_dataclasses_without_value_equality():
    """eq=False keeps ops hashable by identity (graphs put them in sets and dicts)."""
    for op in all_ops():
        assert dataclasses.is_dataclass(op), op.__name__
        assert op.__eq__ is object.__eq__, f"{op.__name__} compares by value"


def test_every_op_declares_its_input_count():
    """The emitter checks every node against ``arity``: an op without one would go unchecked."""
    missing = [op.__name__ for op in all_ops() if op.arity is None]
    assert not missing, f"no arity declared: {missing}"
    wrong = [op.__name__ for op in all_ops() if op.arity[1] is not None and not 0 <= op.arity[0] <= op.arity[1]]
    assert not wrong, f"fewest inputs above the most: {wrong}"


def test_every_case_fits_its_declared_input_count():
    """The runtime cases (run by test_ops_runtime, optional inputs given and left out) stay
    inside the declaration: a declared count tighter than the runtime's would refuse them."""
    from pathlib import Path

    from irconv_opset.testing import load_case_files

    outside = []
    for case_file in load_case_files(Path(__file__).parent):
        for case in case_file.cases:
            fewest, most = case.op.arity
            count = len(case.values())
            if count < fewest or (most is not None and count > most):
                outside.append(f"{case.base_id()}: {count} inputs, declared {fewest}..{most}")
    assert not outside, outside
