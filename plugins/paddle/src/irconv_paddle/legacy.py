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

_DENSE_TENSOR, _FEED_MINIBATCH, _FETCH_LIST, _TENSOR_ARRAY = 7, 9, 10, 13

#: Operators that write a variable they do not read by name (a tensor array's element): the
#: slot given the variable's value before the write.
_WRITES_INTO = {"write_to_array": "Array"}


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
    shapes: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
    params: list[str] = []
    arrays: list[str] = []
    for block in desc.blocks:
        for var in block.vars:
            if var.type.type == _TENSOR_ARRAY:  # its values as one tensor: [count, *element dims]
                dtype = dtype_of_var_type(var.type.tensor_array.tensor.data_type)
                dims = tuple(int(d) for d in var.type.tensor_array.tensor.dims)
                if dtype is not None and var.name not in shapes:
                    shapes[var.name] = ((-1, *dims), dtype)
                    arrays.append(var.name)
            if var.type.type != _DENSE_TENSOR:
                continue
            tensor = var.type.dense_tensor.tensor
            dtype = dtype_of_var_type(tensor.data_type)
            if dtype is not None:
                shapes.setdefault(var.name, (tuple(int(d) for d in tensor.dims), dtype))
            if var.persistable and block.idx == 0:
                params.append(var.name)
    reader = _BlockReader(desc, shapes)
    ops = [reader.create_array(name) for name in arrays]
    ops += reader.read(0, reader.scopes[0])
    current = reader.scopes[0]
    fetches = [(current.get(name, name), name) for _, name in sorted(reader.fetches.items())]
    return Program("legacy", ops, [reader.feeds[c] for c in sorted(reader.feeds)], fetches, sorted(params), shapes)


class _BlockReader:
    """The operators of a block in order, variables renamed so that each write makes a new
    value (``x``, then ``x@1``, ...): a legacy program writes variables in place (an
    assignment in a loop body, batch norm's running mean)."""

    def __init__(self, desc: Any, shapes: dict[str, tuple[tuple[int, ...], np.dtype]]) -> None:
        self.desc = desc
        self.shapes = shapes
        self.feeds: dict[int, Feed] = {}
        self.fetches: dict[int, str] = {}
        self.scopes: dict[int, dict[str, str]] = {0: {}}
        self.written: dict[str, int] = {}

    def create_array(self, name: str) -> PaddleOp:
        """The empty tensor array ``name`` starts as (the program makes it without an operator)."""
        dims, dtype = self.shapes[name]
        value = self._write(name, self.scopes[0])
        return PaddleOp("create_array", value, (), ((value,),), {"dtype": dtype.name, "dims": list(dims[1:])})

    def read(self, index: int, current: dict[str, str]) -> list[PaddleOp]:
        self.scopes[index] = current
        ops: list[PaddleOp] = []
        for op in self.desc.blocks[index].ops:
            attrs = {a.name: _attr_value(a) for a in op.attrs if a.name not in _BOOKKEEPING}
            inputs = {v.parameter: tuple(current.get(n, n) for n in v.arguments) for v in op.inputs}
            outputs = {v.parameter: tuple(v.arguments) for v in op.outputs}
            if op.type in _WRITES_INTO:
                inputs[_WRITES_INTO[op.type]] = tuple(current.get(n, n) for n in outputs.get("Out", ()))
            if op.type == "feed":
                name = self._write(outputs["Out"][0], current)
                shape, dtype = self.shapes.get(name, ((), np.dtype("float32")))
                self.feeds[int(attrs.get("col", len(self.feeds)))] = Feed(name, shape, dtype)
            elif op.type == "fetch":
                self.fetches[int(attrs.get("col", len(self.fetches)))] = op.inputs[0].arguments[0]
            elif op.type == "while":
                ops.append(self._while(op, inputs, outputs, attrs, current))
            elif op.type == "conditional_block":
                ops.extend(self._conditional_block(op, inputs, outputs, attrs, current))
            else:
                in_slots = slot_order(op.type, list(inputs), outputs=False)
                out_slots = slot_order(op.type, list(outputs), outputs=True)
                results = tuple(tuple(self._write(n, current) for n in outputs.get(s, ())) for s in out_slots)
                first = next((names[0] for names in results if names), op.type)
                ops.append(PaddleOp(op.type, first, tuple(inputs.get(s, ()) for s in in_slots), results, attrs,
                                    tuple(in_slots)))
        return ops

    def _write(self, name: str, current: dict[str, str]) -> str:
        """A new value for variable ``name``: its own name the first time, ``name@k`` after."""
        count = self.written.get(name, 0)
        self.written[name] = count + 1
        value = name if count == 0 else f"{name}@{count}"
        if value != name and name in self.shapes:
            self.shapes[value] = self.shapes[name]
        current[name] = value
        return value

    def _while(self, op: Any, inputs: dict[str, tuple[str, ...]], outputs: dict[str, tuple[str, ...]],
               attrs: dict[str, Any], current: dict[str, str]) -> PaddleOp:
        """``while``: the variables it writes (``Out``) are carried from one iteration to the
        next, the others it reads (``X``) are passed in; its sub-block is the body."""
        condition = next(v.arguments[0] for v in op.inputs if v.parameter == "Condition")
        carried = list(outputs.get("Out", ()))
        read = [v for v in (a for v_ in op.inputs if v_.parameter == "X" for a in v_.arguments) if v not in carried]
        body_scope = {name: name for name in [*carried, *read]}
        for name in body_scope:
            self.written.setdefault(name, 1)
        body_ops = self.read(int(attrs["sub_block"]), body_scope)
        feeds = [Feed(n, *self.shapes.get(n, ((), np.dtype("float32")))) for n in [*carried, *read]]
        fetches = [(body_scope[n], n) for n in [condition, *carried]]
        body = Program("legacy", body_ops, feeds, fetches, [], self.shapes)
        args = ((current.get(condition, condition),), *((current.get(n, n),) for n in [*carried, *read]))
        results = tuple((self._write(n, current),) for n in carried)
        return PaddleOp("while", results[0][0] if results else "while", args, results,
                        {"captured": len(read)}, ("Condition", *carried, *read), body=body)

    def _conditional_block(self, op: Any, inputs: dict[str, tuple[str, ...]], outputs: dict[str, tuple[str, ...]],
                           attrs: dict[str, Any], current: dict[str, str]) -> list[PaddleOp]:
        """``conditional_block`` (the legacy ``if``): its sub-block's operators are read in line,
        on a copy of the enclosing names, as if the block always ran (inference programs'
        branches have no side effects). A variable it makes anew is then the block's value
        (``select_input`` picks between the branches' ones); a variable it writes over is
        chosen by the condition between the block's value and the one before, by the
        ``conditional_block`` op this returns after the block's operators."""
        branch = dict(current)
        ops = self.read(int(attrs["sub_block"]), branch)
        written = [v for v in outputs.get("Out", ()) if v in branch]
        kept = [v for v in written if v in current and current[v] != branch[v]]
        for name in written:
            if name not in kept:
                current[name] = branch[name]
        condition = inputs.get("Cond", ())
        if kept or not attrs.get("is_scalar_condition", True):
            args = (condition, *((branch[v],) for v in kept), *((current[v],) for v in kept))
            results = tuple((self._write(v, current),) for v in kept)
            name = results[0][0] if results else f"{op.type}_{int(attrs['sub_block'])}"
            ops.append(PaddleOp("conditional_block", name, args, results,
                                {"is_scalar_condition": attrs.get("is_scalar_condition", True)},
                                ("Cond", *kept, *kept)))
        return ops


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
