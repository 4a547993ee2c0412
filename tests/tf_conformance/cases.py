"""TensorFlow per-op conformance cases: which ops, and one small seeded graph per variant.

The op list is the union of

* the TF ops irconv-tf registers extractors for (``registered_ops``), and
* the ops OpenVINO's TensorFlow front end documents as supported (``openvino_tf_ops.txt``).

Each op gets cases from three sources:

1. the per-op cases and variants of ``tests/tf/test_tf_ops.py`` (imported, not copied);
2. ``extra_cases`` below: ops those tests do not reach yet (OpenVINO's list) and more
   attribute variants;
3. derived variants of every base case: ``/dynamic`` (every input traced with ``None``
   dimensions) and ``/zero_size`` (input 0 with an empty first dimension, where TF allows).

A case id is ``Op/variant``. A case TensorFlow itself refuses (tracing or running) is
reported as ``invalid`` by the harness and counted for nobody. Ops that cannot appear in a
frozen numeric inference graph (resources, queues, strings, checkpoints) have no case and are
listed in ``NO_CASE`` with the reason.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
TF_OPS_TESTS = HERE.parent / "tf" / "test_tf_ops.py"
OPENVINO_OPS_FILE = HERE / "openvino_tf_ops.txt"

#: Ops of OpenVINO's list with no case, and why.
NO_CASE: dict[str, str] = {
    **{
        op: "graph infrastructure: present in every case (inputs, constants, control edges)"
        for op in ("Placeholder", "Const", "NoOp")
    },
    **{
        op: "variables/resources: a frozen graph has none (ResourceGather is run from a SavedModel)"
        for op in (
            "Assign", "AssignVariableOp", "IsVariableInitialized", "ReadVariableOp", "VarHandleOp",
            "VarIsInitializedOp", "Variable", "VariableV2",
        )
    },
    **{
        op: "input pipeline/tables/queues/checkpoints: no numeric tensor in, no inference graph"
        for op in (
            "FIFOQueue", "FIFOQueueV2", "HashTable", "HashTableV2", "Iterator", "IteratorGetNext", "IteratorV2",
            "LookupTableInsert", "LookupTableInsertV2", "MergeV2Checkpoints", "MutableHashTable",
            "MutableHashTableV2", "OneShotIterator", "QueueDequeue", "QueueDequeueMany", "QueueDequeueUpTo",
            "QueueDequeueUpToV2", "QueueDequeueV2", "RestoreV2", "SaveV2", "ShardedFilename",
        )
    },
    **{op: "string tensors: not comparable as numeric outputs" for op in ("StaticRegexFullMatch", "StringJoin")},
    "Assert": "side effect only: TF keeps it only as a control dependency; not an output",
    "PartitionedCall": "freezing inlines function calls: no frozen GraphDef keeps one",
    "StatefulPartitionedCall": "freezing inlines function calls: no frozen GraphDef keeps one",
    "ToBool": "no tf.raw_ops entry point in TensorFlow 2 (graph-internal op of TF1 cond)",
}  # fmt: skip


@dataclass
class Case:
    """One small graph: ``fn(*inputs)`` traced on TensorSpecs named in0, in1, ..."""

    id: str
    op: str
    fn: Callable[..., Any]
    inputs: list[np.ndarray]
    dynamic: bool = False  # inputs traced with every dimension None
    atol: float | None = None  # None: the default for the output's element type
    variables: dict[str, np.ndarray] | None = None  # set: a SavedModel holding these variables
    options: dict[str, Any] = field(default_factory=dict)  # irconv convert_model keywords
    tf1: bool = False  # built in a TF1 graph (v1 control flow, TensorArrayV3) and run in a Session
    check: str = "values"  # "values"; "shape": only element types and shapes (random ops)


# ------------------------------------------------------------------------------ op lists
def openvino_ops(path: Path = OPENVINO_OPS_FILE) -> list[str]:
    lines = (line.strip() for line in path.read_text().splitlines())
    return sorted(line for line in lines if line and not line.startswith("#"))


def registered_ops() -> list[str]:
    """TF ops irconv-tf has an extractor for (the registry, as ``irconv ops --framework tf``)."""
    from irconv.plugins.manager import PluginHost

    host = PluginHost()
    registry = host.registry()
    return sorted({p.item.op for p in registry.all_extractors("tf") if p.plugin.name == "tf"})


# ----------------------------------------------------------------------------- the cases
def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def collect_cases() -> dict[str, Case]:
    """Every case by id (deterministic: seeded generators, fixed order)."""
    root = str(HERE.parent.parent)  # test_tf_ops.py imports its helpers as tests.tf.*
    if root not in sys.path:
        sys.path.append(root)
    tf_ops = _load("irconv_tf_conformance_tf_ops", TF_OPS_TESTS)
    cases: dict[str, Case] = {}

    def add(case: Case) -> None:
        assert case.id not in cases, f"duplicate case id {case.id}"
        cases[case.id] = case

    base: list[Case] = []
    for op, c in tf_ops.cases().items():
        case = Case(f"{op}/base", op, c.fn, list(c.inputs), atol=c.atol, variables=c.variables,
                    options=dict(c.options or {}))  # fmt: skip
        base.append(case)
    for key, (op, c) in tf_ops.variant_cases().items():
        suffix = key.split("/", 1)[1] if "/" in key else "computed"
        add(Case(f"{op}/{suffix}", op, c.fn, list(c.inputs), atol=c.atol, options=dict(c.options or {})))
    taken = {c.id for c in base} | set(cases)
    for case in extra_cases():  # tests/tf/test_tf_ops.py wins where both have a case
        if case.id in taken:
            continue
        if case.id.endswith("/base"):
            base.append(case)
        else:
            add(case)
    for case in base:
        add(case)
        if case.variables is not None or case.tf1:
            continue
        if any(x.ndim for x in case.inputs):
            add(replace(case, id=case.id.replace("/base", "/dynamic"), dynamic=True))
        zero = _zero_size(case)
        if zero is not None:
            add(zero)
    return dict(sorted(cases.items()))


def _zero_size(case: Case) -> Case | None:
    """Input 0 with an empty first dimension, and every input paired with it (same rank and
    first dimension); None when input 0 is a scalar or already empty."""
    first = case.inputs[0] if case.inputs else None
    if first is None or first.ndim == 0 or first.shape[0] == 0:
        return None

    def emptied(x: np.ndarray) -> np.ndarray:
        if x.ndim == first.ndim and x.shape[:1] == first.shape[:1]:
            return np.zeros((0, *x.shape[1:]), x.dtype)
        return x

    return replace(case, id=case.id.replace("/base", "/zero_size"), inputs=[emptied(x) for x in case.inputs])


def extra_cases() -> list[Case]:
    """Ops of OpenVINO's list that ``tests/tf/test_tf_ops.py`` has no case for, and more
    attribute variants. ``/base`` cases also get derived dynamic and zero-size variants."""
    import tensorflow as tf

    raw = tf.raw_ops
    rng = np.random.default_rng(20261123)

    def f32(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
        return rng.uniform(low, high, shape).astype(np.float32)

    def i32(*shape: int, low: int = -5, high: int = 5) -> np.ndarray:
        return rng.integers(low, high, shape).astype(np.int32)

    def i(*values: int) -> np.ndarray:
        return np.array(values, np.int32)

    out: list[Case] = []

    def case(case_id: str, fn: Callable[..., Any], inputs: list[np.ndarray], **kw: Any) -> None:
        op = case_id.split("/", 1)[0]
        out.append(Case(case_id, op, fn, inputs, **kw))

    # unary math the per-op tests do not reach
    for name, low, high in (
        ("Acosh", 1.1, 3.0), ("Asinh", -2.0, 2.0), ("Atanh", -0.9, 0.9), ("Log1p", -0.5, 2.0),
    ):  # fmt: skip
        op = getattr(raw, name)
        case(f"{name}/base", lambda x, op=op: op(x=x), [f32(2, 3, 4, low=low, high=high)])
    specials = np.array([[0.0, np.inf, -np.inf, np.nan, 1.5, -2.0]], np.float32)
    for name in ("IsFinite", "IsInf", "IsNan"):
        op = getattr(raw, name)
        case(f"{name}/base", lambda x, op=op: op(x=x), [np.repeat(specials, 2, axis=0)])
    case("CheckNumericsV2/base", lambda x: raw.CheckNumericsV2(tensor=x, message="bad") * 2.0, [f32(2, 3)])
    case("L2Loss/base", lambda x: raw.L2Loss(t=x), [f32(3, 4)])
    # binary math
    nonzero = f32(2, 3, 4, low=0.5, high=2.0) * np.where(rng.random((2, 3, 4)) > 0.5, 1, -1).astype(np.float32)
    with_zeros = nonzero * (rng.random((2, 3, 4)) > 0.3).astype(np.float32)
    case("DivNoNan/base", lambda x, y: raw.DivNoNan(x=x, y=y), [f32(2, 3, 4), with_zeros])
    case("Xdivy/base", lambda x, y: raw.Xdivy(x=x, y=y), [f32(2, 3, 4) * (rng.random((2, 3, 4)) > 0.3), nonzero])
    case(
        "Xlogy/base",
        lambda x, y: raw.Xlogy(x=x, y=y),
        [f32(2, 3, 4) * (rng.random((2, 3, 4)) > 0.3), f32(2, 3, 4, low=0.1, high=3)],
    )
    case(
        "Xlog1py/base",
        lambda x, y: raw.Xlog1py(x=x, y=y),
        [f32(2, 3, 4) * (rng.random((2, 3, 4)) > 0.3), f32(2, 3, 4, low=0.1, high=3)],
    )
    case("Mod/base", lambda x, y: raw.Mod(x=x, y=y), [i32(2, 6, low=-20, high=20), i32(2, 6, low=1, high=6)])
    case("Mod/float", lambda x, y: raw.Mod(x=x, y=y), [f32(2, 6, low=-9, high=9), f32(2, 6, low=0.5, high=3)])
    case(
        "TruncateMod/base",
        lambda x, y: raw.TruncateMod(x=x, y=y),
        [i32(2, 6, low=-20, high=20), np.array([[3, -3, 2, -2, 5, -5]] * 2, np.int32)],
    )
    case(
        "TruncateMod/float",
        lambda x, y: raw.TruncateMod(x=x, y=y),
        [f32(2, 6, low=-9, high=9), f32(2, 6, low=0.5, high=3)],
    )
    # more types and attributes for ops with extractors
    case("Abs/int32", lambda x: raw.Abs(x=x), [i32(2, 5, low=-9, high=9)])
    case("Neg/int64", lambda x: raw.Neg(x=x), [i32(2, 5).astype(np.int64)])
    case("Square/int32", lambda x: raw.Square(x=x), [i32(2, 5)])
    case("Maximum/int32", lambda x, y: raw.Maximum(x=x, y=y), [i32(2, 5), i32(5)])
    case("AddV2/f16", lambda x, y: raw.AddV2(x=x, y=y), [f32(2, 5).astype(np.float16), f32(2, 5).astype(np.float16)])
    case("Mul/f64", lambda x, y: raw.Mul(x=x, y=y), [f32(2, 5).astype(np.float64), f32(5).astype(np.float64)])
    case(
        "Sub/int64_broadcast", lambda x, y: raw.Sub(x=x, y=y), [i32(3, 1).astype(np.int64), i32(1, 4).astype(np.int64)]
    )
    case("Softmax/rank2", lambda x: raw.Softmax(logits=x), [f32(4, 7)])
    case(
        "Conv2D/valid_dilated",
        lambda x: raw.Conv2D(
            input=x, filter=f32(3, 3, 3, 4), strides=[1, 1, 1, 1], padding="VALID", dilations=[1, 2, 2, 1]
        ),
        [f32(1, 9, 9, 3)],
        atol=1e-4,
    )
    case(
        "Conv2D/explicit_padding",
        lambda x: raw.Conv2D(
            input=x,
            filter=f32(2, 3, 3, 2),
            strides=[1, 2, 1, 1],
            padding="EXPLICIT",
            explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0],
        ),
        [f32(1, 7, 6, 3)],
        atol=1e-4,
    )
    case(
        "Conv2D/computed_filter",
        lambda x, w: raw.Conv2D(input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME"),
        [f32(1, 6, 6, 3), f32(3, 3, 3, 2)],
        atol=1e-4,
    )
    case(
        "DepthwiseConv2dNative/same_strided",
        lambda x: raw.DepthwiseConv2dNative(input=x, filter=f32(3, 3, 3, 1), strides=[1, 2, 2, 1], padding="SAME"),
        [f32(1, 8, 8, 3)],
        atol=1e-4,
    )
    case(
        "Conv2DBackpropInput/valid",
        lambda x: raw.Conv2DBackpropInput(
            input_sizes=i(1, 9, 9, 2), filter=f32(3, 3, 2, 4), out_backprop=x, strides=[1, 2, 2, 1], padding="VALID"
        ),
        [f32(1, 4, 4, 4)],
        atol=1e-4,
    )
    case(
        "Conv2DBackpropInput/computed_sizes",
        lambda x, s: raw.Conv2DBackpropInput(
            input_sizes=s, filter=f32(3, 3, 2, 4), out_backprop=x, strides=[1, 2, 2, 1], padding="SAME"
        ),
        [f32(1, 4, 4, 4), i(1, 8, 8, 2)],
        atol=1e-4,
    )
    case(
        "MaxPool/valid",
        lambda x: raw.MaxPool(input=x, ksize=[1, 2, 3, 1], strides=[1, 2, 1, 1], padding="VALID"),
        [f32(2, 7, 6, 3)],
    )
    case(
        "AvgPool/valid",
        lambda x: raw.AvgPool(value=x, ksize=[1, 3, 2, 1], strides=[1, 1, 2, 1], padding="VALID"),
        [f32(2, 7, 6, 3)],
    )
    case(
        "MaxPoolV2/base",
        lambda x: raw.MaxPoolV2(input=x, ksize=i(1, 3, 3, 1), strides=i(1, 2, 2, 1), padding="SAME"),
        [f32(1, 7, 7, 2)],
    )
    case(
        "MaxPoolWithArgmax/base",
        lambda x: raw.MaxPoolWithArgmax(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")[0],
        [f32(1, 6, 6, 2)],
    )
    case(
        "MaxPoolWithArgmax/indices",
        lambda x: raw.MaxPoolWithArgmax(
            input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME", include_batch_in_index=True
        ),
        [f32(2, 5, 5, 2)],
    )
    case(
        "AvgPool3D/base",
        lambda x: raw.AvgPool3D(input=x, ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="SAME"),
        [f32(1, 5, 4, 4, 2)],
    )
    case(
        "MaxPool3D/base",
        lambda x: raw.MaxPool3D(input=x, ksize=[1, 2, 2, 2, 1], strides=[1, 1, 2, 2, 1], padding="VALID"),
        [f32(1, 4, 4, 4, 2)],
    )
    case(
        "Conv3D/base",
        lambda x: raw.Conv3D(input=x, filter=f32(2, 3, 3, 2, 4), strides=[1, 1, 2, 2, 1], padding="SAME"),
        [f32(1, 4, 6, 6, 2)],
        atol=1e-4,
    )
    case(
        "Conv3D/valid_dilated",
        lambda x: raw.Conv3D(
            input=x, filter=f32(2, 2, 2, 2, 3), strides=[1, 1, 1, 1, 1], padding="VALID", dilations=[1, 2, 1, 2, 1]
        ),
        [f32(1, 5, 4, 6, 2)],
        atol=1e-4,
    )
    case(
        "Conv3DBackpropInputV2/base",
        lambda x: raw.Conv3DBackpropInputV2(
            input_sizes=i(1, 4, 8, 8, 2),
            filter=f32(2, 3, 3, 2, 3),
            out_backprop=x,
            strides=[1, 1, 2, 2, 1],
            padding="SAME",
        ),
        [f32(1, 4, 4, 4, 3)],
        atol=1e-4,
    )
    case(
        "LRN/base",
        lambda x: raw.LRN(input=x, depth_radius=2, bias=1.0, alpha=0.1, beta=0.75),
        [f32(1, 3, 3, 8)],
        atol=1e-5,
    )
    case(
        "LRN/radius1",
        lambda x: raw.LRN(input=x, depth_radius=1, bias=2.0, alpha=0.5, beta=0.5),
        [f32(2, 2, 2, 5)],
        atol=1e-5,
    )
    case(
        "ExtractImagePatches/base",
        lambda x: raw.ExtractImagePatches(
            images=x, ksizes=[1, 3, 3, 1], strides=[1, 2, 2, 1], rates=[1, 1, 1, 1], padding="VALID"
        ),
        [f32(1, 7, 7, 2)],
    )
    case(
        "ExtractImagePatches/same_rates",
        lambda x: raw.ExtractImagePatches(
            images=x, ksizes=[1, 2, 2, 1], strides=[1, 3, 3, 1], rates=[1, 2, 2, 1], padding="SAME"
        ),
        [f32(2, 6, 6, 3)],
    )
    case("MatMul/transpose_a", lambda a, b: raw.MatMul(a=a, b=b, transpose_a=True), [f32(5, 3), f32(5, 4)])
    case(
        "BatchMatMulV2/broadcast", lambda a, b: raw.BatchMatMulV2(x=a, y=b, adj_y=True), [f32(2, 1, 3, 5), f32(3, 4, 5)]
    )
    case("Einsum/transpose", lambda a: raw.Einsum(inputs=[a], equation="ijk->kji"), [f32(2, 3, 4)])
    case("Einsum/outer", lambda a, b: raw.Einsum(inputs=[a, b], equation="i,j->ij"), [f32(3), f32(4)])
    case("Cumsum/reverse", lambda x: raw.Cumsum(x=x, axis=-1, reverse=True), [f32(3, 5)])
    case("Cumsum/computed_axis", lambda x, a: raw.Cumsum(x=x, axis=a), [f32(3, 5), np.int32(0)])
    case("Mean/keep_dims_negative_axis", lambda x: raw.Mean(input=x, axis=i(-1), keep_dims=True), [f32(2, 3, 4)])
    case("Transpose/identity_perm", lambda x: raw.Transpose(x=x, perm=i(0, 1, 2)), [f32(2, 3, 4)])
    case(
        "StridedSlice/ellipsis_new_axis",
        lambda x: raw.StridedSlice(
            input=x, begin=i(0, 1), end=i(0, 3), strides=i(1, 1), ellipsis_mask=1, new_axis_mask=0
        ),
        [f32(2, 3, 4)],
    )
    case(
        "StridedSlice/negative_stride",
        lambda x: raw.StridedSlice(input=x, begin=i(-1, 0), end=i(0, 0), strides=i(-1, 1), end_mask=3, begin_mask=2),
        [f32(4, 5)],
    )
    case("Split/computed_axis", lambda x, a: raw.Split(axis=a, value=x, num_split=3), [f32(2, 6), np.int32(1)])
    case(
        "ConcatV2/three_int", lambda a, b, c: raw.ConcatV2(values=[a, b, c], axis=0), [i32(1, 3), i32(2, 3), i32(1, 3)]
    )
    case("Pack/negative_axis", lambda a, b: raw.Pack(values=[a, b], axis=-1), [f32(2, 3), f32(2, 3)])
    case(
        "Gather/int_params",
        lambda x, j: raw.GatherV2(params=x, indices=j, axis=0, batch_dims=0),
        [i32(5, 3), i(4, 0, 2)],
    )
    case(
        "GatherV2/batch_dims",
        lambda x, j: raw.GatherV2(params=x, indices=j, axis=1, batch_dims=1),
        [f32(2, 5, 3), np.array([[0, 4], [2, 2]], np.int32)],
    )
    case(
        "GatherNd/batch",
        lambda x, j: raw.GatherNd(params=x, indices=j),
        [f32(3, 4), np.array([[[0, 1]], [[2, 3]]], np.int32)],
    )
    case(
        "ResizeBilinear/align_corners",
        lambda x: raw.ResizeBilinear(images=x, size=i(7, 9), align_corners=True),
        [f32(1, 4, 5, 2)],
    )
    case(
        "ResizeNearestNeighbor/align_corners",
        lambda x: raw.ResizeNearestNeighbor(images=x, size=i(7, 9), align_corners=True),
        [f32(1, 4, 5, 2)],
    )
    case("ArgMax/int64_axis0", lambda x: raw.ArgMax(input=x, dimension=np.int64(0), output_type=tf.int64), [f32(4, 3)])
    case(
        "Range/float",
        lambda x: raw.Range(start=np.float32(0.5), limit=np.float32(3.0), delta=np.float32(0.75)) + x,
        [f32(4)],
    )
    # ops of OpenVINO's list
    case("ReverseV2/base", lambda x: raw.ReverseV2(tensor=x, axis=i(1)), [f32(2, 3, 4)])
    case("ReverseV2/two_axes", lambda x: raw.ReverseV2(tensor=x, axis=i(0, -1)), [f32(2, 3, 4)])
    case("Reverse/base", lambda x: raw.Reverse(tensor=x, dims=np.array([True, False, True])), [f32(2, 3, 4)])
    case(
        "ReverseSequence/base",
        lambda x: raw.ReverseSequence(input=x, seq_lengths=np.array([1, 3, 2], np.int64), seq_dim=1, batch_dim=0),
        [f32(3, 4, 2)],
    )
    case(
        "ReverseSequence/batch1",
        lambda x: raw.ReverseSequence(input=x, seq_lengths=np.array([4, 0], np.int32), seq_dim=0, batch_dim=1),
        [f32(4, 2, 3)],
    )
    case("Roll/base", lambda x: raw.Roll(input=x, shift=i(2), axis=i(1)), [f32(2, 5)])
    case("Roll/multi_axis", lambda x: raw.Roll(input=x, shift=i(-1, 3), axis=i(0, 2)), [f32(3, 2, 4)])
    case("Roll/computed_shift", lambda x, s: raw.Roll(input=x, shift=s, axis=i(0)), [f32(5, 2), i(3)])
    case("InvertPermutation/base", lambda p: raw.InvertPermutation(x=p), [np.array([2, 0, 3, 1], np.int32)])
    case("BroadcastArgs/base", lambda a, b: raw.BroadcastArgs(s0=a, s1=b), [i(2, 1, 4), i(3, 1)])
    case("Bucketize/base", lambda x: raw.Bucketize(input=x, boundaries=[-0.5, 0.0, 0.5]), [f32(3, 4)])
    case(
        "LinSpace/base",
        lambda a, b: raw.LinSpace(start=a, stop=b, num=np.int32(5)),
        [np.float32(-1.0), np.float32(2.0)],
    )
    case("ListDiff/base", lambda x, y: raw.ListDiff(x=x, y=y)[0], [i(1, 2, 3, 4, 5, 6), i(1, 3, 5)])
    case("ShapeN/base", lambda a, b: raw.ShapeN(input=[a, b], out_type=tf.int32), [f32(2, 3), f32(4, 1, 2)])
    case("MatrixDiag/base", lambda x: raw.MatrixDiag(diagonal=x), [f32(2, 3)])
    case("EuclideanNorm/base", lambda x: raw.EuclideanNorm(input=x, axis=i(1), keep_dims=False), [f32(3, 4, 2)])
    case("EuclideanNorm/keep_dims", lambda x: raw.EuclideanNorm(input=x, axis=i(0, 2), keep_dims=True), [f32(3, 4, 2)])
    case(
        "AdjustContrastv2/base",
        lambda x: raw.AdjustContrastv2(images=x, contrast_factor=np.float32(1.7)),
        [f32(1, 4, 4, 3)],
    )
    case(
        "FakeQuantWithMinMaxArgs/base",
        lambda x: raw.FakeQuantWithMinMaxArgs(inputs=x, min=-0.5, max=0.7, num_bits=8),
        [f32(2, 3, 4)],
    )
    case(
        "FakeQuantWithMinMaxArgs/narrow4",
        lambda x: raw.FakeQuantWithMinMaxArgs(inputs=x, min=-1.0, max=1.0, num_bits=4, narrow_range=True),
        [f32(2, 3, 4)],
    )
    case(
        "FakeQuantWithMinMaxVars/base",
        lambda x: raw.FakeQuantWithMinMaxVars(inputs=x, min=np.float32(-0.4), max=np.float32(0.8)),
        [f32(2, 3, 4)],
    )
    case(
        "FakeQuantWithMinMaxVarsPerChannel/base",
        lambda x: raw.FakeQuantWithMinMaxVarsPerChannel(
            inputs=x, min=np.array([-0.5, -1.0, -0.2, -0.7], np.float32), max=np.array([0.5, 0.3, 1.0, 0.6], np.float32)
        ),
        [f32(2, 3, 4)],
    )
    case(
        "ScatterNd/base",
        lambda u: raw.ScatterNd(indices=np.array([[0], [2]], np.int32), updates=u, shape=i(4, 3)),
        [f32(2, 3)],
    )
    case(
        "ScatterNd/computed_shape",
        lambda u, s: raw.ScatterNd(indices=np.array([[1, 0], [0, 2]], np.int32), updates=u, shape=s),
        [f32(2), i(2, 3)],
    )
    case("SegmentSum/base", lambda x: raw.SegmentSum(data=x, segment_ids=i(0, 0, 1, 3)), [f32(4, 3)])
    case(
        "UnsortedSegmentSum/base",
        lambda x: raw.UnsortedSegmentSum(data=x, segment_ids=i(2, 0, 2, 1), num_segments=np.int32(4)),
        [f32(4, 3)],
    )
    case(
        "SparseSegmentSum/base",
        lambda x: raw.SparseSegmentSum(data=x, indices=i(0, 2, 3, 1), segment_ids=i(0, 0, 1, 2)),
        [f32(4, 3)],
    )
    case(
        "SparseToDense/base",
        lambda v: raw.SparseToDense(
            sparse_indices=np.array([[0, 1], [2, 3]], np.int32),
            output_shape=i(3, 4),
            sparse_values=v,
            default_value=np.float32(-1),
        ),
        [f32(2)],
    )
    case(
        "SparseReshape/base",
        lambda ix: raw.SparseReshape(
            input_indices=ix, input_shape=np.array([2, 6], np.int64), new_shape=np.array([3, -1], np.int64)
        ),
        [np.array([[0, 1], [1, 5]], np.int64)],
    )
    case(
        "SparseFillEmptyRows/base",
        lambda v: raw.SparseFillEmptyRows(
            indices=np.array([[0, 1], [2, 0]], np.int64),
            values=v,
            dense_shape=np.array([4, 3], np.int64),
            default_value=np.float32(9),
        )[:3],
        [f32(2)],
    )
    case(
        "DynamicPartition/base",
        lambda x: raw.DynamicPartition(data=x, partitions=i(1, 0, 1, 2), num_partitions=3),
        [f32(4, 2)],
    )
    case(
        "DynamicStitch/base",
        lambda a, b: raw.DynamicStitch(indices=[i(0, 2), i(1, 3)], data=[a, b]),
        [f32(2, 3), f32(2, 3)],
    )
    case(
        "ParallelDynamicStitch/base",
        lambda a, b: raw.ParallelDynamicStitch(indices=[i(3, 1), i(0, 2)], data=[a, b]),
        [f32(2, 3), f32(2, 3)],
    )
    case("Unique/base", lambda x: raw.Unique(x=x, out_idx=tf.int32), [np.array([4, 1, 4, 2, 1, 7], np.int32)])
    case("UnravelIndex/base", lambda x: raw.UnravelIndex(indices=x, dims=i(3, 4)), [np.array([0, 5, 11], np.int32)])
    case("TopK/base", lambda x: raw.TopK(input=x, k=2), [f32(3, 6)])
    case(
        "NonMaxSuppression/base",
        lambda b, s: raw.NonMaxSuppression(boxes=b, scores=s, max_output_size=np.int32(4), iou_threshold=0.5),
        _nms(rng),
    )
    case(
        "CTCGreedyDecoder/base",
        lambda x, n: raw.CTCGreedyDecoder(inputs=x, sequence_length=n, merge_repeated=True)[3],
        [f32(5, 2, 4), i(5, 3)],
    )
    case(
        "CTCLoss/base",
        lambda x: raw.CTCLoss(
            inputs=x,
            labels_indices=np.array([[0, 0], [0, 1], [1, 0]], np.int64),
            labels_values=i(1, 2, 1),
            sequence_length=i(5, 4),
        )[0],
        [f32(5, 2, 4)],
        atol=1e-4,
    )
    case(
        "RandomUniform/base",
        lambda x: raw.RandomUniform(shape=tf.shape(x), dtype=tf.float32, seed=1),
        [f32(2, 3)],
        check="shape",
    )
    case(
        "RandomUniformInt/base",
        lambda x: raw.RandomUniformInt(shape=tf.shape(x), minval=np.int32(0), maxval=np.int32(9), seed=1),
        [f32(2, 3)],
        check="shape",
    )
    case("BlockLSTM/base", lambda x: _block_lstm(raw, x, rng), [f32(4, 2, 3)], atol=1e-5)
    case("GRUBlockCell/base", lambda x, h: _gru_cell(raw, x, h, rng), [f32(2, 3), f32(2, 4)], atol=1e-5)
    case("EmptyTensorList/base", lambda x: _tensor_list_push(raw, tf, x), [f32(2, 3)])
    case(
        "TensorListFromTensor/base",
        lambda x: raw.TensorListStack(
            input_handle=raw.TensorListFromTensor(tensor=x, element_shape=i(3)),
            element_shape=i(3),
            element_dtype=tf.float32,
        ),
        [f32(4, 3)],
    )
    case(
        "TensorListGetItem/base",
        lambda x: raw.TensorListGetItem(
            input_handle=raw.TensorListFromTensor(tensor=x, element_shape=i(3)),
            index=np.int32(2),
            element_shape=i(3),
            element_dtype=tf.float32,
        ),
        [f32(4, 3)],
    )
    case(
        "TensorListLength/base",
        lambda x: raw.TensorListLength(input_handle=raw.TensorListFromTensor(tensor=x, element_shape=i(3))),
        [f32(4, 3)],
    )
    case("TensorListSetItem/base", lambda x, y: _tensor_list_set(raw, tf, x, y), [f32(4, 3), f32(3)])
    case("TensorListReserve/base", lambda y: _tensor_list_set(raw, tf, None, y), [f32(3)])
    case(
        "TensorListResize/base",
        lambda x: raw.TensorListStack(
            input_handle=raw.TensorListResize(
                input_handle=raw.TensorListFromTensor(tensor=x, element_shape=i(3)), size=np.int32(2)
            ),
            element_shape=i(3),
            element_dtype=tf.float32,
        ),
        [f32(4, 3)],
    )
    case(
        "TensorListStack/base",
        lambda x: raw.TensorListStack(
            input_handle=raw.TensorListFromTensor(tensor=x * 2.0, element_shape=i(2, 2)),
            element_shape=i(2, 2),
            element_dtype=tf.float32,
            num_elements=3,
        ),
        [f32(3, 2, 2)],
    )
    case("TensorListPushBack/base", lambda x: _tensor_list_push(raw, tf, x), [f32(2, 3)])
    case(
        "TensorListPopBack/base",
        lambda x: raw.TensorListPopBack(
            input_handle=raw.TensorListFromTensor(tensor=x, element_shape=i(3)),
            element_shape=i(3),
            element_dtype=tf.float32,
        )[1],
        [f32(4, 3)],
    )
    case(
        "TensorListGather/base",
        lambda x: raw.TensorListGather(
            input_handle=raw.TensorListFromTensor(tensor=x, element_shape=i(3)),
            indices=i(3, 0, 3),
            element_shape=i(3),
            element_dtype=tf.float32,
        ),
        [f32(4, 3)],
    )
    case(
        "TensorListElementShape/base",
        lambda x: raw.TensorListElementShape(
            input_handle=raw.TensorListFromTensor(tensor=x, element_shape=i(3)), shape_type=tf.int32
        ),
        [f32(4, 3)],
    )
    case("TensorListStack/in_while", lambda x: _scan_cumsum(tf, x), [f32(5, 3)])
    # TF1 graphs: v1 control flow (Switch/Merge/Enter/Exit/NextIteration/LoopCond), TensorArrayV3
    case("Switch/base", lambda x, p: _v1_cond(tf, x, p), [f32(2, 3), np.array(True)], tf1=True)
    case("Merge/base", lambda x, p: _v1_cond(tf, x, p), [f32(2, 3), np.array(False)], tf1=True)
    for op in ("Enter", "Exit", "NextIteration", "LoopCond"):
        case(f"{op}/base", lambda x: _v1_while(tf, x), [f32(2, 3)], tf1=True)
    case("Enter/data_dependent_trip", lambda x: _v1_while(tf, x, limit=None), [f32(2, 3)], tf1=True)
    case("TensorArrayV3/base", lambda x: _v1_tensor_array(tf, x), [f32(4, 3)], tf1=True)
    for op in (
        "TensorArrayWriteV3",
        "TensorArrayReadV3",
        "TensorArrayGatherV3",
        "TensorArrayScatterV3",
        "TensorArraySizeV3",
        "TensorArrayCloseV3",
    ):
        case(f"{op}/base", lambda x: _v1_tensor_array(tf, x), [f32(4, 3)], tf1=True)
    case("TensorArrayConcatV3/base", lambda x: _v1_tensor_array(tf, x, concat=True), [f32(4, 3)], tf1=True)
    return out  # fmt: skip


def _nms(rng: np.random.Generator) -> list[np.ndarray]:
    corners = rng.uniform(0, 1, (10, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rng.uniform(0.1, 0.4, (10, 2)).astype(np.float32)], axis=1)
    return [boxes, rng.permutation(10).astype(np.float32) / 10.0]


def _block_lstm(raw: Any, x: Any, rng: np.random.Generator) -> Any:
    t, b, n_in = 4, 2, 3
    units = 5
    w = rng.uniform(-0.5, 0.5, (n_in + units, 4 * units)).astype(np.float32)
    zeros = np.zeros((b, units), np.float32)
    peep = np.zeros(units, np.float32)
    outs = raw.BlockLSTM(
        seq_len_max=np.int64(t), x=x, cs_prev=zeros, h_prev=zeros, w=w, wci=peep, wcf=peep, wco=peep,
        b=rng.uniform(-0.1, 0.1, 4 * units).astype(np.float32), forget_bias=1.0, cell_clip=-1.0, use_peephole=False,
    )  # fmt: skip
    return outs[6]  # h


def _gru_cell(raw: Any, x: Any, h: Any, rng: np.random.Generator) -> Any:
    n_in, units = 3, 4
    w_ru = rng.uniform(-0.5, 0.5, (n_in + units, 2 * units)).astype(np.float32)
    w_c = rng.uniform(-0.5, 0.5, (n_in + units, units)).astype(np.float32)
    b_ru = rng.uniform(-0.1, 0.1, 2 * units).astype(np.float32)
    b_c = rng.uniform(-0.1, 0.1, units).astype(np.float32)
    return raw.GRUBlockCell(x=x, h_prev=h, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c)[3]


def _tensor_list_push(raw: Any, tf: Any, x: Any) -> Any:
    handle = raw.EmptyTensorList(element_shape=np.array([3], np.int32), max_num_elements=-1, element_dtype=tf.float32)
    handle = raw.TensorListPushBack(input_handle=handle, tensor=x[0])
    handle = raw.TensorListPushBack(input_handle=handle, tensor=x[1] * 2.0)
    return raw.TensorListStack(input_handle=handle, element_shape=np.array([3], np.int32), element_dtype=tf.float32)


def _tensor_list_set(raw: Any, tf: Any, x: Any, y: Any) -> Any:
    shape = np.array([3], np.int32)
    if x is None:
        handle = raw.TensorListReserve(element_shape=shape, num_elements=np.int32(3), element_dtype=tf.float32)
        for k in range(3):
            handle = raw.TensorListSetItem(input_handle=handle, index=np.int32(k), item=y * float(k + 1))
    else:
        handle = raw.TensorListFromTensor(tensor=x, element_shape=shape)
        handle = raw.TensorListSetItem(input_handle=handle, index=np.int32(1), item=y)
    return raw.TensorListStack(input_handle=handle, element_shape=shape, element_dtype=tf.float32)


def _scan_cumsum(tf: Any, x: Any) -> Any:
    """A TensorArray written inside a while loop (TensorListReserve/SetItem/Stack in the body)."""
    n = tf.shape(x)[0]
    ta = tf.TensorArray(tf.float32, size=n)

    def body(k: Any, acc: Any, ta: Any) -> Any:
        acc = acc + x[k]
        return k + 1, acc, ta.write(k, acc)

    _, _, ta = tf.while_loop(lambda k, *_: k < n, body, (tf.constant(0), tf.zeros_like(x[0]), ta))
    return ta.stack()


def _v1_cond(tf: Any, x: Any, p: Any) -> Any:
    return tf.compat.v1.cond(p, lambda: x * 3.0, lambda: x - 1.0)


def _v1_while(tf: Any, x: Any, limit: int | None = 5) -> Any:
    def cond(k: Any, y: Any) -> Any:
        if limit is None:
            return tf.logical_and(k < 20, tf.reduce_sum(tf.abs(y)) < 40.0)
        return k < limit

    _, y = tf.compat.v1.while_loop(cond, lambda k, y: (k + 1, y * 1.5 + 0.1), (tf.constant(0), x))
    return y


def _v1_tensor_array(tf: Any, x: Any, concat: bool = False) -> Any:
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[3])
    ta = ta.unstack(x)
    ta2 = tf.TensorArray(tf.float32, size=4, element_shape=[3])

    def body(k: Any, ta2: Any) -> Any:
        return k + 1, ta2.write(k, ta.read(k) * 2.0 + tf.cast(ta.size(), tf.float32))

    _, ta2 = tf.compat.v1.while_loop(lambda k, _: k < 4, body, (tf.constant(0), ta2))
    out = ta2.concat() if concat else ta2.stack()
    ta2.close()
    return out
