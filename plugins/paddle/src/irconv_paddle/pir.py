"""Reading a PIR inference program (``<prefix>.json``, what Paddle 3 writes) into a :class:`Program`.

The file is JSON: ``base_code`` (``magic`` "pir", a format ``version``) and ``program``,
whose first region's first block holds the operators in order. An operator is an object:
``#`` its name as ``<dialect id>.<op>`` (``1.conv2d``; dialect 0 is ``builtin``, 1 is
``pd_op``), or ``p`` for a parameter (``A[3]`` its name); ``I`` its operands (``{"%": id}``,
0 for none); ``O`` its results with their types (``TT``: ``0.t_dtensor`` with element type,
dims, layout; ``0.t_vec`` a vector of them); ``A`` its attributes (for ``p``, ``OA[0]`` its persistable flag), ``{"N": name, "AT":
{"#": type, "D": value}}``. ``pd_op.data`` ops are the inputs and ``pd_op.fetch`` ops
the outputs; ``builtin.combine`` packs values into a vector operand and ``builtin.split``
unpacks a vector result. Control flow ops hold ``regions`` of blocks whose last op,
``cf.yield``, gives their results; blocks read values of the enclosing ones by id. Parameters are stored in ``.pdiparams`` in the order of their
sorted names.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from irconv.errors import NAME_LIMIT, ModelFileError, shortened

from irconv_paddle.dtypes import dtype_of_name, dtype_of_pir_type
from irconv_paddle.program import Feed, PaddleOp, Program

#: Operators that write into their first operand (a tensor array): later readers of it read the result.
_WRITES_IN_PLACE = {"pd_op.array_write"}

#: Dialect ids of the op names the serializer writes.
_DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf"}


def read_pir(path: Path) -> Program:
    try:
        document = json.loads(path.read_text())
        block = document["program"]["regions"][0]["blocks"][0]
        raw_ops = block["ops"]
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{path}: not a readable Paddle PIR program ({exc}); the file is truncated or not "
                             "a Paddle .json: save the model again with paddle.jit.save") from None
    except (KeyError, IndexError, TypeError):
        raise ModelFileError(f"{path}: JSON without a PIR program (program.regions[0].blocks[0].ops); "
                             "not a Paddle 3 model") from None
    return _Reader(path).read(raw_ops)


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.values: dict[int, tuple[str, ...]] = {}  # value id -> element names (one unless a vector)
        self.shapes: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
        self.counts: Counter[str] = Counter()

    def read(self, raw_ops: list[dict[str, Any]]) -> Program:
        self.ops: list[PaddleOp] = []
        self.feeds: list[Feed] = []
        self.fetches: dict[int, tuple[str, str]] = {}
        self.params: list[str] = []
        self._block(raw_ops)
        return Program("pir", self.ops, self.feeds, [self.fetches[c] for c in sorted(self.fetches)],
                       sorted(self.params), self.shapes)

    def _block(self, raw_ops: list[dict[str, Any]]) -> tuple[str, ...]:
        """Read a block's operators into the program; the values its ``cf.yield`` gives back."""
        yielded: tuple[str, ...] = ()
        for raw in raw_ops:
            kind = raw.get("#", "")
            results = raw.get("O", [])
            results = [results] if isinstance(results, dict) else results
            if kind == "p":
                name = raw["A"][3]
                if _persistable(raw):
                    self._name(results[0], (name,))
                    self.params.append(name)
                else:  # a run-time state (an RNN's dropout state): not saved, read as an absent operand
                    self.values[results[0]["%"]] = ()
                continue
            dialect, _, op = kind.partition(".")
            full = f"{_DIALECTS.get(dialect, dialect)}.{op.removesuffix('_') if dialect == '1' else op}"
            attrs = {a["N"]: _attr_value(a["AT"]) for a in raw.get("A", []) if isinstance(a, dict)}
            operands = [self._operand(o) for o in raw.get("I", [])]
            if full == "cf.yield":
                yielded = tuple(n for names in operands for n in names)
            elif full == "builtin.combine":
                self._name(results[0], tuple(n for names in operands for n in names))
            elif full == "builtin.split":
                for result, name in zip(results, operands[0], strict=False):
                    self._name(result, (name,))
            elif full == "pd_op.data":
                name = str(attrs["name"])
                self._name(results[0], (name,))
                shape, dtype = self.shapes[name]
                self.feeds.append(Feed(name, shape, dtype))
            elif full == "pd_op.fetch":
                self.fetches[int(attrs.get("col", len(self.fetches)))] = (operands[0][0], str(attrs.get("name", "")))
            elif full == "pd_op.while":
                self._while(raw, op, operands, results, attrs)
            else:
                if full == "pd_op.create_array":  # the elements' type and dims, from its result's type
                    element = _tensor_type(results[0].get("TT", {})) or ((-1,), np.dtype("float32"))
                    attrs = {"dtype": element[1].name, "dims": list(element[0][1:])}
                if full == "pd_op.if":
                    # Both branches are read into the program: the if selects between their results.
                    branches = [self._block(block["ops"]) for region in raw.get("regions", [])
                                for block in region.get("blocks", [])[:1]]
                    operands += [(name,) for branch in branches for name in branch]
                self.counts[op] += 1
                node = f"{op.removesuffix('_')}_{self.counts[op] - 1}"
                names = tuple(self._name(r, None, node, i) for i, r in enumerate(results))
                self.ops.append(PaddleOp(full, node, tuple(operands), names, attrs))
                if full in _WRITES_IN_PLACE and operands and operands[0]:
                    # later readers of the operand (and the enclosing blocks, after a loop) see the write
                    self.values[raw["I"][0]["%"]] = names[0]
        return yielded

    def _while(self, raw: dict[str, Any], op: str, operands: list[tuple[str, ...]], results: list[dict[str, Any]],
               attrs: dict[str, Any]) -> None:
        """``while(cond, carried...)``: its body block (arguments: the carried values; ``cf.yield``:
        the next condition and carried values) read as a program of its own."""
        self.counts[op] += 1
        node = f"{op}_{self.counts[op] - 1}"
        block = raw["regions"][0]["blocks"][0]
        arguments = []
        for k, argument in enumerate(block.get("args", [])):  # block arguments carry their id under "#"
            arguments.append(self._name({"%": argument["#"], "TT": argument.get("TT", {})}, (f"{node}/carried{k}",))[0])
        outer, self.ops = self.ops, []
        before = dict(self.values)
        yielded = self._block(block["ops"])
        body_ops, self.ops = self.ops, outer
        # values the body writes in place (a tensor array appended to) are carried too
        own = {argument["#"] for argument in block.get("args", [])}
        written = [ident for ident, names in before.items() if self.values[ident] != names and ident not in own]
        updated = [self.values[ident][0] for ident in written]
        initial = [before[ident][0] for ident in written]
        made = {n for body_op in body_ops for names in body_op.results for n in names} | set(arguments) | set(initial)
        captured = list(dict.fromkeys(n for body_op in body_ops for names in body_op.args for n in names
                                      if n not in made))
        captured += [n for n in yielded if n not in made and n not in captured]
        feeds = [Feed(n, *self.shapes.get(n, ((), np.dtype("float32")))) for n in [*arguments, *initial, *captured]]
        body = Program("pir", body_ops, feeds, [(n, n) for n in [*yielded, *updated]], [], self.shapes)
        names = tuple(self._name(r, None, node, i) for i, r in enumerate(results))
        names += tuple((f"{node}:{len(names) + k}",) for k in range(len(written)))
        for ident, (name,) in zip(written, names[len(results):], strict=True):
            self.values[ident] = (name,)
            self.shapes[name] = self.shapes.get(before[ident][0], ((), np.dtype("float32")))
        args = (*operands, *((n,) for n in initial), *((n,) for n in captured))
        self.ops.append(PaddleOp("pd_op.while", node, args, names, {**attrs, "captured": len(captured)}, body=body))

    def _operand(self, operand: Any) -> tuple[str, ...]:
        if not isinstance(operand, dict) or operand.get("%", 0) == 0:
            return ()
        ident = operand["%"]
        if ident not in self.values:
            raise ModelFileError(f"{self.path}: value %{shortened(str(ident), NAME_LIMIT)} is used before any "
                                 "operator makes it: the program is damaged")
        return self.values[ident]

    def _name(self, result: dict[str, Any], names: tuple[str, ...] | None, node: str = "", index: int = 0
              ) -> tuple[str, ...]:
        """Record ``result``'s value under ``names`` (made from ``node`` and ``index`` when
        None: ``node`` for output 0, ``node:i`` after, ``...#k`` for a vector's elements)."""
        ident = result.get("%", 0)
        kind = result.get("TT", {})
        if names is None:
            base = node if index == 0 else f"{node}:{index}"
            if kind.get("#", "").endswith("t_vec"):
                names = tuple(f"{base}#{k}" for k in range(len(kind.get("D", []))))
            else:
                names = (base,)
        elements = kind.get("D", []) if kind.get("#", "").endswith("t_vec") else [kind]
        for name, element in zip(names, elements, strict=False):
            typed = _tensor_type(element)
            if typed is not None:
                self.shapes[name] = typed
        if ident:
            self.values[ident] = names
        return names


def _persistable(raw: dict[str, Any]) -> bool:
    """A parameter op's first output attribute (``OA``) is its persistable flag; only
    persistable parameters are in ``.pdiparams``."""
    flags = raw.get("OA", [1])
    return not flags or bool(flags[0])


def _tensor_type(kind: dict[str, Any]) -> tuple[tuple[int, ...], np.dtype] | None:
    """A dense tensor's dims and type; a tensor array's as one tensor, [count, *element dims]."""
    name = kind.get("#", "")
    data = kind.get("D", [])
    if name.endswith("t_dense_tensor_array") and len(data) >= 2 and isinstance(data[0], dict):
        dtype = dtype_of_pir_type(data[0].get("#", ""))
        return None if dtype is None else ((-1, *(int(d) for d in data[1])), dtype)
    if not name.endswith("t_dtensor"):
        return None
    dtype = dtype_of_pir_type(data[0].get("#", "")) if data and isinstance(data[0], dict) else None
    if dtype is None or len(data) < 2:
        return None
    return tuple(int(d) for d in data[1]), dtype


def _attr_value(value: Any) -> Any:
    """An attribute's ``{"#": type, "D": data}`` as a plain Python value (arrays as lists;
    a ``dtype`` as its NumPy name)."""
    if not isinstance(value, dict):
        return value
    if "VD" in value:  # a float the JSON cannot hold: "INF", "-INF", "NAN"
        return float(value["VD"])
    kind, data = value.get("#", ""), value.get("D")
    if kind.endswith("a_array"):
        return [_attr_value(v) for v in data or []]
    if kind.endswith("a_dtype"):
        dtype = dtype_of_name(str(data))
        return str(data) if dtype is None else dtype.name
    if isinstance(data, dict):
        return _attr_value(data)
    if isinstance(data, list):
        return [_attr_value(v) for v in data]
    return data
