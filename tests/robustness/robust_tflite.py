"""TFLite seeds (made by TensorFlow's converter with the TFLite tests' builders) and a
structure-aware flatbuffer mutator.

The mutator walks the file the way a reader does (root offset, each table's vtable, vectors
of tables) and records where every field it knows sits: tensor shapes, types and buffer
indices, operator opcode indices and input/output lists, subgraph inputs/outputs, operator
codes, builtin options, quantization and sparsity parameters, buffer data lengths; and the
offsets themselves (a table's soffset to its vtable, vtable entries, uoffsets to vectors,
tables and strings). A case overwrites one or two of those in place with values a reader
must refuse or survive, or flips/truncates bytes.
"""

from __future__ import annotations

import random
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DIMS = (0, -1, 1, 2, 7, 1 << 20, (1 << 31) - 1, -7)
FLOATS = (0x7FC00000, 0x7F800000, 0xFF800000, 0, 0x80000000, 0xBF800000, 0x3F800000, 0x4B800000)
OPTIONS = (0, 1, -1, 2, 3, 255, 1 << 16, (1 << 31) - 1, -(1 << 31), *FLOATS)


@dataclass(frozen=True)
class Spot:
    """A field of the file: where, how wide (bytes), what it means (``kind``), for the record."""

    what: str
    pos: int
    width: int
    kind: str


# ------------------------------------------------------------------------------ seeds
def seeds(folder: Path) -> list[Path]:
    """A full-integer conv net, a float net of STRIDED_SLICE/SPLIT/MEAN, a sparse MLP (DENSIFY)."""
    sys.path.insert(0, str(Path(__file__).parent.parent / "tflite"))
    import tensorflow as tf
    from tflite_support import ModelCache

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    w_conv = rng.uniform(-0.5, 0.5, (3, 3, 3, 4)).astype(np.float32)
    w_dense = rng.uniform(-0.5, 0.5, (64, 5)).astype(np.float32)
    w_sparse = rng.uniform(-0.5, 0.5, (16, 12)).astype(np.float32)
    w_sparse[rng.random(w_sparse.shape) < 0.85] = 0
    w_sparse2 = rng.uniform(-0.5, 0.5, (12, 6)).astype(np.float32)
    w_sparse2[rng.random(w_sparse2.shape) < 0.85] = 0

    def convnet(x):  # type: ignore[no-untyped-def]
        y = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, w_conv, 1, "SAME")), 2, 2, "VALID")
        return tf.nn.softmax(tf.reshape(y, [1, -1]) @ w_dense)

    def slicing(x):  # type: ignore[no-untyped-def]
        a, b = tf.split(x[:, 1:7:2, ::-1, :], 2, axis=3)
        return tf.reduce_mean(a * b, axis=[1, 2]), x[:, 2, :, 1]

    cache = ModelCache(folder)
    image = rng.uniform(-1, 1, (1, 8, 8, 4)).astype(np.float32)
    made = [
        cache.from_function("convnet_int8", convnet, [image[..., :3].copy()], "int8"),
        cache.from_function("slicing", slicing, [image]),
        cache.from_function(
            "sparse_mlp",
            lambda x: tf.nn.relu(x @ w_sparse) @ w_sparse2,
            [rng.uniform(-1, 1, (2, 16)).astype(np.float32)],
            "sparse",
        ),
    ]
    return [m.path for m in made]


# ------------------------------------------------------------------------ flatbuffer
class Flat:
    """Reading a flatbuffer's tables, vectors and offsets by position (no schema classes)."""

    def __init__(self, buf: bytearray) -> None:
        self.buf = buf

    def _get(self, fmt: str, pos: int) -> int:
        if pos < 0 or pos + struct.calcsize(fmt) > len(self.buf):
            raise IndexError(pos)
        return struct.unpack_from(fmt, self.buf, pos)[0]

    def vtable(self, table: int) -> int:
        return table - self._get("<i", table)

    def slots(self, table: int) -> list[int]:
        """Positions of the table's present fields (by vtable order)."""
        vt = self.vtable(table)
        count = (self._get("<H", vt) - 4) // 2
        offsets = (self._get("<H", vt + 4 + 2 * k) for k in range(count))
        return [table + o for o in offsets if o]

    def field(self, table: int, slot: int) -> int | None:
        vt = self.vtable(table)
        if 4 + 2 * slot >= self._get("<H", vt):
            return None
        o = self._get("<H", vt + 4 + 2 * slot)
        return table + o if o else None

    def ref(self, pos: int) -> int:
        return pos + self._get("<I", pos)

    def table(self, table: int, slot: int) -> int | None:
        p = self.field(table, slot)
        return None if p is None else self.ref(p)

    def vector(self, table: int, slot: int) -> tuple[int, int] | None:
        """(position of the length word, element count)."""
        p = self.field(table, slot)
        if p is None:
            return None
        v = self.ref(p)
        return v, self._get("<I", v)

    def tables(self, table: int, slot: int) -> list[int]:
        vec = self.vector(table, slot)
        if vec is None:
            return []
        v, n = vec
        return [self.ref(v + 4 + 4 * i) for i in range(n)]


class _Walk:
    """Every :class:`Spot` of a .tflite model (slot numbers from schema/tflite.fbs)."""

    def __init__(self, buf: bytearray) -> None:
        self.fb = Flat(buf)
        self.spots: list[Spot] = []
        self.counts = {"tensors": 0, "buffers": 0, "opcodes": 0}

    def scalar(self, what: str, table: int, slot: int, width: int, kind: str) -> None:
        p = self.fb.field(table, slot)
        if p is not None:
            self.spots.append(Spot(what, p, width, kind))

    def ints(self, what: str, table: int, slot: int, kind: str, width: int = 4) -> None:
        """A vector's length word and each element."""
        vec = self.fb.vector(table, slot)
        if vec is None:
            return
        v, n = vec
        self.spots.append(Spot(f"{what} length", v, 4, "length"))
        self.spots += [Spot(f"{what}[{i}]", v + 4 + width * i, width, kind) for i in range(n)]

    def offsets(self, what: str, table: int, slots: tuple[int, ...]) -> None:
        """The table's soffset to its vtable, its vtable entries, and its uoffset fields."""
        self.spots.append(Spot(f"{what} soffset", table, 4, "soffset"))
        vt = self.fb.vtable(table)
        count = (self.fb._get("<H", vt) - 4) // 2
        self.spots += [Spot(f"{what} vtable[{k}]", vt + 4 + 2 * k, 2, "vtable") for k in range(count)]
        for s in slots:
            p = self.fb.field(table, s)
            if p is not None:
                self.spots.append(Spot(f"{what} field {s} uoffset", p, 4, "uoffset"))

    def model(self) -> None:
        fb = self.fb
        model = fb.ref(0)
        self.offsets("model", model, (1, 2, 3, 4))
        codes = fb.tables(model, 1)
        buffers = fb.tables(model, 4)
        self.counts.update(opcodes=len(codes), buffers=len(buffers))
        for i, code in enumerate(codes):
            self.scalar(f"operator_codes[{i}].deprecated_builtin_code", code, 0, 1, "opcode")
            self.scalar(f"operator_codes[{i}].builtin_code", code, 3, 4, "opcode")
        for i, buffer in enumerate(buffers):
            vec = fb.vector(buffer, 0)
            if vec is not None and vec[1]:
                self.spots.append(Spot(f"buffers[{i}].data length", vec[0], 4, "data-length"))
                self.offsets(f"buffers[{i}]", buffer, (0,))
        for g, subgraph in enumerate(fb.tables(model, 2)):
            self.subgraph(f"subgraphs[{g}]", subgraph)

    def subgraph(self, what: str, subgraph: int) -> None:
        fb = self.fb
        self.offsets(what, subgraph, (0, 1, 2, 3, 4))
        tensors = fb.tables(subgraph, 0)
        self.counts["tensors"] = max(self.counts["tensors"], len(tensors))
        self.ints(f"{what}.inputs", subgraph, 1, "tensor-index")
        self.ints(f"{what}.outputs", subgraph, 2, "tensor-index")
        for t, tensor in enumerate(tensors):
            name = f"{what}.tensors[{t}]"
            self.offsets(name, tensor, (0, 3, 4, 6, 7))
            self.ints(f"{name}.shape", tensor, 0, "dim")
            self.ints(f"{name}.shape_signature", tensor, 7, "dim")
            self.scalar(f"{name}.type", tensor, 1, 1, "type")
            self.scalar(f"{name}.buffer", tensor, 2, 4, "buffer-index")
            quant = fb.table(tensor, 4)
            if quant is not None:
                self.ints(f"{name}.quantization.scale", quant, 2, "float")
                self.ints(f"{name}.quantization.zero_point", quant, 3, "dim", width=8)
                self.scalar(f"{name}.quantization.quantized_dimension", quant, 6, 4, "dim")
            sparsity = fb.table(tensor, 6)
            if sparsity is not None:
                self.sparsity(f"{name}.sparsity", sparsity)
        for o, operator in enumerate(fb.tables(subgraph, 3)):
            name = f"{what}.operators[{o}]"
            self.offsets(name, operator, (1, 2, 4))
            self.scalar(f"{name}.opcode_index", operator, 0, 4, "opcode-index")
            self.ints(f"{name}.inputs", operator, 1, "tensor-index")
            self.ints(f"{name}.outputs", operator, 2, "tensor-index")
            self.scalar(f"{name}.builtin_options_type", operator, 3, 1, "option")
            options = fb.table(operator, 4)
            if options is not None:
                self.options(f"{name}.builtin_options", options)

    def sparsity(self, what: str, sparsity: int) -> None:
        fb = self.fb
        self.offsets(what, sparsity, (0, 1, 2))
        self.ints(f"{what}.traversal_order", sparsity, 0, "dim")
        self.ints(f"{what}.block_map", sparsity, 1, "dim")
        for d, dim in enumerate(fb.tables(sparsity, 2)):
            name = f"{what}.dim_metadata[{d}]"
            self.scalar(f"{name}.format", dim, 0, 1, "option")
            self.scalar(f"{name}.dense_size", dim, 1, 4, "dim")
            for slot, part in ((3, "array_segments"), (5, "array_indices")):
                values = fb.table(dim, slot)
                kind = fb.field(dim, slot - 1)
                if values is not None and kind is not None:
                    self.scalar(f"{name}.{part}_type", dim, slot - 1, 1, "option")
                    width = {1: 4, 2: 2, 3: 1}.get(fb.buf[kind], 4)  # Int32/Uint16/Uint8Vector
                    self.ints(f"{name}.{part}.values", values, 0, "dim", width)

    def options(self, what: str, table: int) -> None:
        """Every present field of a builtin options table; its width from the next field's place."""
        places = sorted(self.fb.slots(table))
        ends = [*places[1:], places[-1] + 4] if places else []
        for p, end in zip(places, ends, strict=True):
            width = max(w for w in (1, 2, 4) if w <= max(end - p, 1))
            self.spots.append(Spot(f"{what} @{p - table}", p, width, "option"))


def spots(buf: bytearray) -> tuple[list[Spot], dict[str, int]]:
    walk = _Walk(buf)
    walk.model()
    return walk.spots, walk.counts


def _value(spot: Spot, old: int, counts: dict[str, int], rng: random.Random) -> int:
    kind = spot.kind
    if kind == "dim":
        return rng.choice(DIMS)
    if kind == "float":
        return rng.choice(FLOATS)
    if kind == "tensor-index":
        n = counts["tensors"]
        return rng.choice((-1, 0, n - 1, n, n + 5, (1 << 31) - 1, rng.randrange(max(n, 1))))
    if kind == "buffer-index":
        n = counts["buffers"]
        return rng.choice((0, n, (1 << 32) - 1, rng.randrange(max(n, 1))))
    if kind == "opcode-index":
        n = counts["opcodes"]
        return rng.choice((n, (1 << 32) - 1, rng.randrange(max(n, 1))))
    if kind == "opcode":
        return rng.choice((rng.randrange(210), 127, 255, 1000, -1))
    if kind == "type":
        return rng.choice((rng.randrange(20), 255))
    if kind in ("length", "data-length"):
        return rng.choice((0, old // 2, max(old - 1, 0), old + 1, (1 << 31) - 1))
    if kind == "soffset":
        return rng.choice((0, old + 2, old - 4, (1 << 31) - 1, -(1 << 31), -len(spot.what)))
    if kind == "vtable":
        return rng.choice((0, 0xFFFF, old + 4, max(old - 4, 0), rng.randrange(64)))
    if kind == "uoffset":
        return rng.choice((0, (1 << 32) - 1, old + 4, max(old - 4, 0), 1 << 30))
    return rng.choice(OPTIONS)


def _write(buf: bytearray, spot: Spot, value: int) -> None:
    mask = (1 << (8 * spot.width)) - 1
    buf[spot.pos : spot.pos + spot.width] = (value & mask).to_bytes(spot.width, "little")


def mutate(seed: Path, out: Path, rng: random.Random) -> str:
    buf = bytearray(seed.read_bytes())
    roll = rng.random()
    if roll < 0.06:
        for _ in range(rng.randrange(1, 6)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        out.write_bytes(bytes(buf))
        return "bytes: flipped"
    if roll < 0.1:
        keep = rng.randrange(len(buf))
        out.write_bytes(bytes(buf[:keep]))
        return f"bytes: truncated to {keep}"
    found, counts = spots(buf)
    done = []
    kinds = sorted({s.kind for s in found})
    for _ in range(rng.choice((1, 1, 2))):
        kind = rng.choice(kinds)  # each kind of field as likely, however many of it there are
        spot = rng.choice([s for s in found if s.kind == kind])
        old = int.from_bytes(buf[spot.pos : spot.pos + spot.width], "little", signed=spot.kind == "soffset")
        value = _value(spot, old, counts, rng)
        _write(buf, spot, value)
        stored = int.from_bytes(buf[spot.pos : spot.pos + spot.width], "little", signed=spot.kind == "soffset")
        done.append(f"{spot.what}: {old} -> {stored}")
    out.write_bytes(bytes(buf))
    return "; ".join(done)
