"""Reading a legacy inference program (``<prefix>.pdmodel``, a ``ProgramDesc``) into a :class:`Program`.

Block 0 holds the network: ``feed`` ops name the inputs (by their ``col``), ``fetch`` ops
the outputs, persistable dense tensors (other than the feed and fetch lists) are the
parameters, stored in ``.pdiparams`` in the order of their sorted names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from irconv.errors import ModelFileError

from irconv_paddle.dtypes import dtype_of_var_type
from irconv_paddle.program import Feed, PaddleOp, Program
from irconv_paddle.slots import slot_order

#: Attributes Paddle adds to every op for training and debugging; no extractor reads them.
_BOOKKEEPING = {"op_callstack", "op_device", "op_namescope", "op_role", "op_role_var", "with_quant_attr"}

_DENSE_TENSOR, _FEED_MINIBATCH, _FETCH_LIST = 7, 9, 10


def read_legacy(path: Path) -> Program:
    from google.protobuf.message import DecodeError

    from irconv_paddle.proto import framework_pb2

    desc = framework_pb2.ProgramDesc()
    try:
        desc.ParseFromString(path.read_bytes())
    except DecodeError as exc:
        raise ModelFileError(f"{path}: not a readable Paddle program ({exc}); the file is truncated or not a "
                             ".pdmodel: save the model again with paddle.jit.save") from None
    if not desc.blocks:
        raise ModelFileError(f"{path}: the program has no blocks: it is empty or not a Paddle .pdmodel")
    block = desc.blocks[0]
    shapes: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
    params: list[str] = []
    for var in block.vars:
        if var.type.type != _DENSE_TENSOR:
            continue
        tensor = var.type.dense_tensor.tensor
        dtype = dtype_of_var_type(tensor.data_type)
        if dtype is not None:
            shapes[var.name] = (tuple(int(d) for d in tensor.dims), dtype)
        if var.persistable:
            params.append(var.name)
    feeds: dict[int, Feed] = {}
    fetches: dict[int, tuple[str, str]] = {}
    ops: list[PaddleOp] = []
    for op in block.ops:
        attrs = {a.name: _attr_value(a) for a in op.attrs if a.name not in _BOOKKEEPING}
        inputs = {v.parameter: tuple(v.arguments) for v in op.inputs}
        outputs = {v.parameter: tuple(v.arguments) for v in op.outputs}
        if op.type == "feed":
            name = outputs["Out"][0]
            shape, dtype = shapes.get(name, ((), np.dtype("float32")))
            feeds[int(attrs.get("col", len(feeds)))] = Feed(name, shape, dtype)
            continue
        if op.type == "fetch":
            name = inputs["X"][0]
            fetches[int(attrs.get("col", len(fetches)))] = (name, name)
            continue
        in_slots = slot_order(op.type, list(inputs), outputs=False)
        out_slots = slot_order(op.type, list(outputs), outputs=True)
        results = tuple(outputs.get(s, ()) for s in out_slots)
        first = next((names[0] for names in results if names), op.type)
        ops.append(PaddleOp(op.type, first, tuple(inputs.get(s, ()) for s in in_slots), results, attrs,
                            tuple(in_slots)))
    return Program("legacy", ops, [feeds[c] for c in sorted(feeds)], [fetches[c] for c in sorted(fetches)],
                   sorted(params), shapes)


def _attr_value(attr: Any) -> Any:
    """An ``OpDesc.Attr``'s value as a plain Python value, chosen by its declared type."""
    from irconv_paddle.proto import framework_pb2 as pb

    kind = attr.type
    single = {pb.INT: "i", pb.FLOAT: "f", pb.STRING: "s", pb.BOOLEAN: "b", pb.BLOCK: "block_idx", pb.LONG: "l",
              pb.VAR: "var_name", pb.FLOAT64: "float64"}
    repeated = {pb.INTS: "ints", pb.FLOATS: "floats", pb.STRINGS: "strings", pb.BOOLEANS: "bools",
                pb.BLOCKS: "blocks_idx", pb.LONGS: "longs", pb.FLOAT64S: "float64s", pb.VARS: "vars_name"}
    if kind in single:
        return getattr(attr, single[kind])
    if kind in repeated:
        return list(getattr(attr, repeated[kind]))
    if kind == pb.SCALAR:
        return _scalar(attr.scalar)
    if kind == pb.SCALARS:
        return [_scalar(s) for s in attr.scalars]
    return None


def _scalar(scalar: Any) -> Any:
    from irconv_paddle.proto import framework_pb2 as pb

    if scalar.type == pb.Scalar.BOOLEAN:
        return scalar.b
    if scalar.type == pb.Scalar.LONG:
        return scalar.i
    if scalar.type == pb.Scalar.FLOAT64:
        return scalar.r
    return complex(scalar.c.r, scalar.c.i)
