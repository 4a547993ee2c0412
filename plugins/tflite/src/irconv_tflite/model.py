"""A ``.tflite`` flatbuffer read into plain records, checked as it is read.

The file is memory-mapped; constant tensors are NumPy views of the mapping (never
copied), so the mapping must stay open while they are used (``TfliteModel.mapping``).
The flatbuffers runtime does not check offsets, so every read happens under one guard
that turns an out-of-range offset into a ``ModelFileError`` naming the file, and indices
between tables (tensor, buffer, operator code, sub-graph) are checked here: a corrupt or
hostile file gives one clear error, never a crash or a huge allocation.
"""

from __future__ import annotations

import math
import mmap
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from irconv.errors import ModelFileError, quoted
from irconv.graph.budget import ValueBudget, check_weight_bytes

from irconv_tflite.schema import tflite_generated as fb
from irconv_tflite.sniff import IDENTIFIER
from irconv_tflite.sparsity import Level, SparsityError, densify

#: TensorType code -> NumPy dtype (types a tensor's bytes can be read as).
NUMPY_TYPES: dict[int, np.dtype[Any]] = {
    fb.TensorType.FLOAT32: np.dtype("<f4"),
    fb.TensorType.FLOAT16: np.dtype("<f2"),
    fb.TensorType.FLOAT64: np.dtype("<f8"),
    fb.TensorType.INT32: np.dtype("<i4"),
    fb.TensorType.UINT8: np.dtype("u1"),
    fb.TensorType.INT64: np.dtype("<i8"),
    fb.TensorType.BOOL: np.dtype("?"),
    fb.TensorType.INT16: np.dtype("<i2"),
    fb.TensorType.INT8: np.dtype("i1"),
    fb.TensorType.UINT64: np.dtype("<u8"),
    fb.TensorType.UINT32: np.dtype("<u4"),
    fb.TensorType.UINT16: np.dtype("<u2"),
}

TYPE_NAMES: dict[int, str] = {v: k for k, v in vars(fb.TensorType).items() if not k.startswith("_")}
OPERATOR_NAMES: dict[int, str] = {v: k for k, v in vars(fb.BuiltinOperator).items() if not k.startswith("_")}


@dataclass(frozen=True, slots=True)
class Quantization:
    """``real = scale * (q - zero_point)``, per tensor or along ``axis``."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int

    @property
    def per_channel(self) -> bool:
        return self.scale.size > 1


@dataclass(slots=True)
class Tensor:
    index: int
    name: str
    type: int
    shape: tuple[int | None, ...] | None  # None: rank unknown; None dims: dynamic
    quantization: Quantization | None
    data: np.ndarray | None  # constant value: a view of the mapped file
    is_variable: bool = False

    @property
    def type_name(self) -> str:
        return TYPE_NAMES.get(self.type, str(self.type))


@dataclass(slots=True)
class Operator:
    index: int
    op_type: str  # BuiltinOperator name, or the custom code of a CUSTOM op
    custom: bool
    version: int
    inputs: tuple[int, ...]  # -1: an optional input left out
    outputs: tuple[int, ...]
    options_type: int
    options: Any  # the generated options table, or None
    custom_options: bytes | None


@dataclass(slots=True)
class Subgraph:
    index: int
    name: str
    tensors: list[Tensor]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    operators: list[Operator]


@dataclass(slots=True)
class Signature:
    key: str
    subgraph: int
    inputs: dict[int, str]  # tensor index -> alias
    outputs: dict[int, str]


@dataclass(slots=True)
class TfliteModel:
    path: Path
    version: int
    subgraphs: list[Subgraph]
    signatures: list[Signature]
    mapping: Any = field(repr=False)  # the mmap the constant views point into

    def signature_for(self, subgraph: int) -> Signature | None:
        return next((s for s in self.signatures if s.subgraph == subgraph), None)


class _Reader:
    """Reads the tables of one mapped file; ``bad`` names the file in every error."""

    def __init__(self, path: Path, data: Any) -> None:
        self.path = path
        self.data = data
        self.size = len(data)

    def bad(self, what: str) -> ModelFileError:
        return ModelFileError(f"{self.path}: {what}; the file is not a valid TFLite model (re-export it)")

    def model(self) -> TfliteModel:
        if self.size < 8:
            raise self.bad(f"only {self.size} bytes")
        if bytes(self.data[4:8]) != IDENTIFIER:
            raise self.bad(f"no TFLite identifier 'TFL3' at bytes 4..8 (found {bytes(self.data[4:8])!r})")
        root = fb.Model.GetRootAs(self.data, 0)
        version = root.Version()
        if version != 3:
            raise self.bad(f"schema version {version} (irconv reads version 3)")
        codes = [self._operator_code(root.OperatorCodes(i)) for i in range(root.OperatorCodesLength())]
        buffers = [root.Buffers(i) for i in range(root.BuffersLength())]
        count = root.SubgraphsLength()
        if count == 0:
            raise self.bad("no sub-graphs")
        subgraphs = [self._subgraph(i, root.Subgraphs(i), codes, buffers) for i in range(count)]
        signatures = [self._signature(root.SignatureDefs(i), subgraphs) for i in range(root.SignatureDefsLength())]
        self._check_calls(subgraphs)
        return TfliteModel(self.path, version, subgraphs, signatures, self.data)

    def _check_calls(self, subgraphs: list[Subgraph]) -> None:
        """Sub-graphs named by IF/WHILE/CALL_ONCE operators exist and never call themselves
        (directly or through others): a cycle would recurse forever."""
        calls = {sub.index: called_subgraphs(sub) for sub in subgraphs}
        for index, targets in calls.items():
            for target in targets:
                if not 0 <= target < len(subgraphs):
                    raise self.bad(f"sub-graph {quoted(subgraphs[index].name)} calls sub-graph {target}, "
                                   f"but there are {len(subgraphs)}")
        state: dict[int, int] = {}  # 1: on the current path, 2: done

        def visit(index: int, path: list[int]) -> None:
            state[index] = 1
            for target in calls[index]:
                if state.get(target) == 1:
                    cycle = " -> ".join(subgraphs[i].name for i in [*path, index, target])
                    raise self.bad(f"sub-graphs call each other in a cycle ({cycle})")
                if target not in state:
                    visit(target, [*path, index])
            state[index] = 2

        for index in calls:
            if index not in state:
                visit(index, [])

    def _operator_code(self, code: fb.OperatorCode) -> tuple[str, bool, int]:
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        if builtin == fb.BuiltinOperator.CUSTOM:
            return _text(code.CustomCode()) or "CUSTOM", True, code.Version()
        return OPERATOR_NAMES.get(builtin, f"BUILTIN_{builtin}"), False, code.Version()

    def _subgraph(self, index: int, sub: fb.SubGraph, codes: list[tuple[str, bool, int]],
                  buffers: list[fb.Buffer]) -> Subgraph:
        name = _text(sub.Name()) or f"subgraph{index}"
        tensors = [self._tensor(i, sub.Tensors(i), buffers, name) for i in range(sub.TensorsLength())]
        where = f"sub-graph {quoted(name)}"
        inputs = self._indices(_ints(sub.InputsAsNumpy()), len(tensors), f"{where} inputs")
        outputs = self._indices(_ints(sub.OutputsAsNumpy()), len(tensors), f"{where} outputs")
        operators = [self._operator(i, sub.Operators(i), codes, len(tensors), where)
                     for i in range(sub.OperatorsLength())]
        return Subgraph(index, name, tensors, inputs, outputs, operators)

    def _indices(self, values: tuple[int, ...], count: int, where: str, optional: bool = False) -> tuple[int, ...]:
        for v in values:
            if not (0 <= v < count or (optional and v == -1)):
                raise self.bad(f"{where} refer to tensor {v}, but there are {count} tensors")
        return values

    def _tensor(self, index: int, tensor: fb.Tensor, buffers: list[fb.Buffer], where: str) -> Tensor:
        name = _text(tensor.Name()) or f"tensor{index}"
        shape = self._shape(tensor, name)
        kind = tensor.Type()
        sparsity = tensor.Sparsity()
        quantization = self._quantization(tensor.Quantization())
        data = None
        buffer = tensor.Buffer()
        if buffer >= len(buffers):
            raise self.bad(f"tensor {quoted(name)} in sub-graph {quoted(where)} refers to buffer {buffer}, but there are {len(buffers)}")
        if sparsity is not None:
            if buffer == 0:
                raise self.bad(f"tensor {quoted(name)} is sparse but holds no values (only constants can be sparse)")
            data = self._sparse_constant(buffers[buffer], kind, shape, name, sparsity)
        elif buffer > 0:
            data = self._constant(buffers[buffer], kind, shape, name)
        return Tensor(index, name, kind, shape, quantization, data, bool(tensor.IsVariable()))

    def _shape(self, tensor: fb.Tensor, name: str) -> tuple[int | None, ...] | None:
        dims = _ints(tensor.ShapeAsNumpy())
        signature = _ints(tensor.ShapeSignatureAsNumpy())
        if not dims and not tensor.HasRank() and not signature:
            return ()  # older converters write scalars without has_rank
        if signature and len(signature) == len(dims):
            dims = tuple(d if s != -1 else -1 for d, s in zip(dims, signature, strict=True))
        if any(d < -1 for d in dims):
            raise self.bad(f"tensor {quoted(name)} declares the shape {list(dims)}")
        known = [d for d in dims if d >= 0]
        if math.prod(known) > ValueBudget().declared_elements:
            raise self.bad(f"tensor {quoted(name)} declares the shape {list(dims)}, larger than any real model")
        return tuple(None if d == -1 else d for d in dims)

    def _quantization(self, params: fb.QuantizationParameters | None) -> Quantization | None:
        if params is None or params.ScaleLength() == 0:
            return None
        scale = np.asarray(params.ScaleAsNumpy(), dtype=np.float32)
        zero = params.ZeroPointAsNumpy()
        zero_point = np.zeros(scale.shape, np.int64) if isinstance(zero, int) else np.asarray(zero, np.int64)
        if zero_point.size not in (1, scale.size):
            raise self.bad(f"{scale.size} scales but {zero_point.size} zero points")
        return Quantization(scale, np.broadcast_to(zero_point, scale.shape), params.QuantizedDimension())

    def _constant(self, buffer: fb.Buffer, kind: int, shape: tuple[int | None, ...] | None,
                  name: str) -> np.ndarray | None:
        start, size = self._buffer_span(buffer)
        if size == 0:
            return None
        dtype = NUMPY_TYPES.get(kind)
        if dtype is None:
            raise ModelFileError(f"{self.path}: constant tensor {quoted(name)} has type "
                                 f"{TYPE_NAMES.get(kind, kind)}, which irconv does not read")
        dims = None if shape is None else [d for d in shape if d is not None]
        if shape is None or dims is None or len(dims) != len(shape):
            raise self.bad(f"constant tensor {quoted(name)} has no static shape")
        check_weight_bytes(f"{self.path}: constant tensor {quoted(name)} ({TYPE_NAMES[kind]})", dims, dtype.itemsize, size)
        count = math.prod(dims)
        return np.frombuffer(self.data, dtype=dtype, count=count, offset=start).reshape(dims)

    def _sparse_constant(self, buffer: fb.Buffer, kind: int, shape: tuple[int | None, ...] | None, name: str,
                         sparsity: fb.SparsityParameters) -> np.ndarray:
        """A sparse constant's values placed in a dense array (``irconv_tflite.sparsity``)."""
        dtype = NUMPY_TYPES.get(kind)
        if dtype is None:
            raise ModelFileError(f"{self.path}: constant tensor {quoted(name)} has type "
                                 f"{TYPE_NAMES.get(kind, kind)}, which irconv does not read")
        if shape is None or None in shape:
            raise self.bad(f"sparse tensor {quoted(name)} has no static shape")
        start, size = self._buffer_span(buffer)
        if size % dtype.itemsize:
            raise self.bad(f"sparse tensor {quoted(name)}: {size} bytes are not whole {TYPE_NAMES[kind]} values")
        values = np.frombuffer(self.data, dtype=dtype, count=size // dtype.itemsize, offset=start)
        levels = []
        for i in range(sparsity.DimMetadataLength()):
            meta = sparsity.DimMetadata(i)
            if meta is None:
                raise self.bad(f"sparse tensor {quoted(name)}: dimension metadata {i} is missing")
            sparse = meta.Format() == fb.DimensionType.SPARSE_CSR
            levels.append(Level(sparse, meta.DenseSize(),
                                self._index_vector(meta.ArraySegmentsType(), meta.ArraySegments(), name) if sparse else None,
                                self._index_vector(meta.ArrayIndicesType(), meta.ArrayIndices(), name) if sparse else None))
        dims = tuple(int(d) for d in shape if d is not None)
        try:
            return densify(values, dims, list(_ints(sparsity.TraversalOrderAsNumpy())),
                           list(_ints(sparsity.BlockMapAsNumpy())), levels, f"{self.path}: sparse tensor {quoted(name)}")
        except SparsityError as exc:
            raise self.bad(f"sparse tensor {quoted(name)}: {exc}") from None

    def _index_vector(self, kind: int, table: Any, name: str) -> np.ndarray:
        """A SparseIndexVector union member's values."""
        classes = {fb.SparseIndexVector.Int32Vector: fb.Int32Vector, fb.SparseIndexVector.Uint16Vector: fb.Uint16Vector,
                   fb.SparseIndexVector.Uint8Vector: fb.Uint8Vector}
        if kind not in classes or table is None:
            raise self.bad(f"sparse tensor {quoted(name)}: a sparse dimension lacks its segments or indices")
        vector = classes[kind]()
        vector.Init(table.Bytes, table.Pos)
        raw = vector.ValuesAsNumpy()
        return np.zeros(0, np.int64) if isinstance(raw, int) else np.asarray(raw, np.int64)

    def _buffer_span(self, buffer: fb.Buffer) -> tuple[int, int]:
        """Where a buffer's bytes are: inside the flatbuffer, or after it (models > 2 GB)."""
        offset, size = buffer.Offset(), buffer.Size()
        if offset > 1:
            start = offset
        else:
            raw = buffer.DataAsNumpy()
            if isinstance(raw, int):  # no data vector
                return 0, 0
            size = raw.size
            # the vector's position in the file: the view's offset into the mapping
            start = raw.__array_interface__["data"][0] - _address(self.data)
        if start < 0 or start + size > self.size:
            raise self.bad(f"a buffer spans bytes {start}..{start + size} of a {self.size}-byte file")
        return start, size

    def _operator(self, index: int, op: fb.Operator, codes: list[tuple[str, bool, int]], n_tensors: int,
                  where: str) -> Operator:
        code = op.OpcodeIndex()
        if code >= len(codes):
            raise self.bad(f"operator {index} of {where} uses operator code {code}, but there are {len(codes)}")
        op_type, custom, version = codes[code]
        inputs = self._indices(_ints(op.InputsAsNumpy()), n_tensors, f"operator {index} ({op_type}) inputs", True)
        outputs = self._indices(_ints(op.OutputsAsNumpy()), n_tensors, f"operator {index} ({op_type}) outputs")
        custom_options = None
        if custom:
            raw = op.CustomOptionsAsNumpy()
            custom_options = None if isinstance(raw, int) else raw.tobytes()
        return Operator(index, op_type, custom, version, inputs, outputs, op.BuiltinOptionsType(),
                        op.BuiltinOptions(), custom_options)

    def _signature(self, sig: fb.SignatureDef, subgraphs: list[Subgraph]) -> Signature:
        key = _text(sig.SignatureKey()) or "serving_default"
        index = sig.SubgraphIndex()
        if index >= len(subgraphs):
            raise self.bad(f"signature {quoted(key)} refers to sub-graph {index}, but there are {len(subgraphs)}")
        count = len(subgraphs[index].tensors)

        def aliases(maps: list[fb.TensorMap]) -> dict[int, str]:
            found = {}
            for m in maps:
                if m.TensorIndex() >= count:
                    raise self.bad(f"signature {quoted(key)} refers to tensor {m.TensorIndex()} of {count}")
                found[m.TensorIndex()] = _text(m.Name()) or f"tensor{m.TensorIndex()}"
            return found

        return Signature(key, index, aliases([sig.Inputs(i) for i in range(sig.InputsLength())]),
                         aliases([sig.Outputs(i) for i in range(sig.OutputsLength())]))


#: Options fields naming the sub-graphs an operator runs.
_SUBGRAPH_FIELDS = ("then_subgraph_index", "else_subgraph_index", "cond_subgraph_index", "body_subgraph_index")


def called_subgraphs(subgraph: Subgraph) -> list[int]:
    """The sub-graphs the operators of ``subgraph`` run (IF branches, WHILE bodies)."""
    from irconv_tflite.attributes import builtin_attributes

    found = []
    for op in subgraph.operators:
        if op.op_type in ("IF", "WHILE"):
            attributes = builtin_attributes(op.options_type, op.options)
            found += [int(attributes.get(name)) for name in _SUBGRAPH_FIELDS if name in attributes]
    return found


def _text(value: bytes | None) -> str:
    return "" if value is None else value.decode("utf-8", errors="replace")


def _ints(values: Any) -> tuple[int, ...]:
    """A generated ``...AsNumpy()`` vector as ints (the runtime gives 0 for an absent one)."""
    return () if isinstance(values, int) else tuple(int(v) for v in values)


def _address(data: Any) -> int:
    return int(np.frombuffer(data, dtype=np.uint8, count=1).__array_interface__["data"][0])


@contextmanager
def _guard(path: Path) -> Iterator[None]:
    """Offsets past the end of the file surface as one error naming the file."""
    try:
        yield
    except ModelFileError:
        raise
    except (struct.error, IndexError, ValueError, OverflowError, TypeError, RecursionError, MemoryError) as exc:
        raise ModelFileError(
            f"{path}: the flatbuffer is corrupt or truncated ({type(exc).__name__}: {exc}); "
            "the file is not a valid TFLite model (re-export it)"
        ) from None


def read_tflite(path: Path) -> TfliteModel:
    """Map ``path`` and read its model; constants stay views of the mapping."""
    try:
        with open(path, "rb") as f:
            if f.seek(0, 2) == 0:
                raise ModelFileError(f"{path}: the file is empty; it is not a TFLite model")
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise ModelFileError(f"cannot read {path}: {exc.strerror}") from None
    with _guard(path):
        return _Reader(path, data).model()
