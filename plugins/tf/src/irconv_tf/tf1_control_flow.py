"""TF1 control flow (Switch/Merge/Enter/Exit/NextIteration/LoopCond) raised to functional While/If.

Graphs written with ``tf.compat.v1`` control flow v1, and every graph frozen with
``convert_variables_to_constants_v2`` (which lowers functional While/If), hold loops as
*frames*: per loop variable ``Enter -> Merge <- NextIteration``, ``Switch(Merge, LoopCond)``
whose false output leaves through ``Exit`` and whose true output feeds the body; loop
invariants enter through constant ``Enter`` nodes. A ``tf.cond`` is ``Switch(x, pred)`` on
every value a branch reads and ``Merge(false_result, true_result)`` per output.

This pass runs on the flat node table, before the irconv graph is built (a frame is a
cycle, which extraction cannot walk). It replaces each construct, innermost first, by a
functional ``While`` or ``If`` node whose bodies are synthesized ``FunctionDef`` s added to
the function library, so the functional path (``control_flow.body_graph`` and the
``While``/``If`` extractors) converts them:

- a frame becomes ``While(vars..., invariants...)`` with ``cond(args) -> pred`` (the
  nodes between the Merges and LoopCond) and ``body(args) -> (next vars..., invariants...)``
  (the nodes between the Switches' true outputs and NextIteration); each Exit becomes an
  Identity of the While's output, so names and consumers stay;
- a Merge of a cond becomes ``If(pred, switched values...)`` named as the Merge, whose
  branches are the nodes between the Switches and that Merge input.

Constants reached only through control edges (TF pins them in a frame that way) are copied
into the body that reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from irconv.errors import ModelFileError, quoted

from irconv_tf.control_flow import ARG_SHAPE
from irconv_tf.dtypes import DT_VARIANT, data_type
from irconv_tf.nodes import Tensor, TFNode, reachable

ENTER = frozenset({"Enter", "RefEnter"})
EXIT = frozenset({"Exit", "RefExit"})
MERGE = frozenset({"Merge", "RefMerge"})
SWITCH = frozenset({"Switch", "RefSwitch"})
NEXT = frozenset({"NextIteration", "RefNextIteration"})
LOOP_COND = frozenset({"LoopCond"})
CONTROL_OPS = ENTER | EXIT | MERGE | SWITCH | NEXT | LOOP_COND
_DT_FLOAT = 1
_DT_BOOL = 10


def has_tf1_control_flow(nodes: Mapping[str, TFNode]) -> bool:
    return any(node.op in MERGE or node.op in ENTER for node in nodes.values())


@dataclass
class _Closure:
    """Nodes between a set of boundary tensors and some target tensors."""

    nodes: list[str] = field(default_factory=list)  # producers first
    constants: set[str] = field(default_factory=set)  # Consts copied in
    blocked: str | None = None  # a control-flow node of an unprocessed construct
    switches: dict[Tensor, None] = field(default_factory=dict)  # Switch outputs reached (cond walks)
    outside: dict[Tensor, None] = field(default_factory=dict)  # input-less values from outside


class Functionalizer:
    """Rewrites the flat node table of a graph in place; adds FunctionDefs to ``functions``."""

    def __init__(
        self, nodes: dict[str, TFNode], functions: dict[str, Any], control_inputs: Mapping[str, list[str]]
    ) -> None:
        self.nodes = nodes
        self.functions = functions
        self.control_inputs = control_inputs
        self.touched: set[str] = set()

    # ------------------------------------------------------------------ driver
    def run(self) -> None:
        data_used = {src for node in self.nodes.values() for src, _ in node.inputs}
        control_used = {src for names in self.control_inputs.values() for src in names}
        sinks = [n for n in self.nodes if n not in data_used and n not in control_used]
        while True:
            progress = False
            for frame, enters in self._frames().items():
                progress |= self._try_loop(frame, enters)
            for merge in [n for n, node in self.nodes.items() if node.op in MERGE and not self._is_loop_merge(node)]:
                if merge in self.nodes and self.nodes[merge].op in MERGE:
                    progress |= self._try_cond(merge)
            if not progress:
                break
        self._prune(sinks)
        self._check_done(sinks)

    def _check_done(self, sinks: list[str]) -> None:
        """One clear error for a construct left over (an unusual frame or cond shape)."""
        live = reachable(self.nodes, [(s, 0) for s in sinks if s in self.nodes])
        left = sorted(n for n in live if self.nodes[n].op in CONTROL_OPS)
        if left:
            shown = ", ".join(f"{n} ({self.nodes[n].op})" for n in left[:4])
            raise ModelFileError(
                f"TF1 control flow could not be turned into While/If around {len(left)} node(s): {shown}"
                f"{', ...' if len(left) > 4 else ''}"
            )

    def _prune(self, sinks: list[str]) -> None:
        """Drop the replaced constructs' leftovers (nothing any output reads any more)."""
        live = set(reachable(self.nodes, [(s, 0) for s in sinks if s in self.nodes]))
        for name in list(self.nodes):
            if name in self.touched and name not in live:
                del self.nodes[name]

    def _consumers(self) -> dict[str, list[tuple[str, int, int]]]:
        """node -> [(consumer, consumer input index, producer port)]."""
        result: dict[str, list[tuple[str, int, int]]] = {}
        for name, node in self.nodes.items():
            for idx, (src, port) in enumerate(node.inputs):
                result.setdefault(src, []).append((name, idx, port))
        return result

    def _frames(self) -> dict[str, list[str]]:
        frames: dict[str, list[str]] = {}
        for name, node in self.nodes.items():
            if node.op in ENTER:
                frames.setdefault(str(node.get("frame_name", "")), []).append(name)
        return frames

    def _is_loop_merge(self, node: TFNode) -> bool:
        return any(self.nodes[src].op in ENTER | NEXT for src, _ in node.inputs if src in self.nodes)

    def _unique(self, base: str) -> str:
        name, i = base, 1
        while name in self.nodes or name in self.functions:
            name, i = f"{base}_{i}", i + 1
        return name

    # ------------------------------------------------------------------ walks
    def _walk(self, targets: Iterable[Tensor], boundary: Mapping[Tensor, int], *, stop_at_switch: bool) -> _Closure:
        """Nodes the targets need, producers first, not crossing ``boundary`` tensors."""
        closure = _Closure()
        state: dict[str, int] = {}
        for target in targets:
            stack: list[tuple[Tensor, bool]] = [(target, False)]
            while stack:
                tensor, done = stack.pop()
                name = tensor[0]
                if done:
                    if state.get(name) != 2:
                        state[name] = 2
                        closure.nodes.append(name)
                    continue
                if tensor in boundary or state.get(name) or name in closure.constants:
                    continue
                node = self.nodes.get(name)
                if node is None:
                    raise ModelFileError(f"control flow reads unknown node {quoted(name)}")
                if stop_at_switch and node.op in SWITCH:
                    closure.switches[tensor] = None
                    continue
                if node.op in CONTROL_OPS:
                    closure.blocked = closure.blocked or name
                    continue
                if not node.inputs:
                    if node.op == "Const" or node.value is not None:
                        closure.constants.add(name)
                    else:
                        closure.outside[tensor] = None
                    continue
                state[name] = 1
                stack.append((tensor, True))
                for src in reversed(node.inputs):
                    stack.append((src, False))
        return closure

    def _switch_polarity(self, start: Tensor) -> int | None:
        """Which Switch output (0 false, 1 true) a value depends on, control edges included."""
        seen: set[str] = set()
        stack = [start]
        while stack:
            name, port = stack.pop()
            if name in seen or name not in self.nodes:
                continue
            seen.add(name)
            node = self.nodes[name]
            if node.op in SWITCH:
                return port
            stack.extend(node.inputs)
            stack.extend((c, 0) for c in self.control_inputs.get(name, ()))
        return None

    # ------------------------------------------------------------------ functions
    def _function(
        self,
        name: str,
        args: list[tuple[str, int]],
        boundary: Mapping[Tensor, int],
        closure: _Closure,
        returns: list[Tensor],
        shapes: Mapping[int, Any] | None = None,
    ) -> None:
        """A FunctionDef ``name(args) -> returns`` holding the closure's nodes."""
        from irconv_tf.proto import graph_pb2

        shapes = shapes or {}
        fdef = graph_pb2.FunctionDef()
        fdef.signature.name = name
        arg_names = [f"arg{i}" for i in range(len(args))]
        for index, (arg_name, (_, dtype)) in enumerate(zip(arg_names, args, strict=True)):
            fdef.signature.input_arg.add(name=arg_name, type=dtype)
            if index in shapes:
                fdef.attr[f"{ARG_SHAPE}_{index}"].CopyFrom(graph_pb2.AttrValue(shape=shapes[index]))
        local = set(closure.nodes) | closure.constants

        def spell(tensor: Tensor) -> str:
            if tensor in boundary:
                return arg_names[boundary[tensor]]
            if tensor[0] not in local:
                raise ModelFileError(f"control flow body {quoted(name)} reads {quoted(tensor[0])} from outside its frame")
            return f"{tensor[0]}:o:{tensor[1]}"

        for node_name in sorted(closure.constants) + closure.nodes:
            node = self.nodes[node_name]
            nd = fdef.node_def.add(name=node_name, op=node.op)
            nd.input.extend(spell(t) for t in node.inputs)
            for key, value in node.attr.items():
                nd.attr[key].CopyFrom(value)
            if node.value is not None and node.op != "Const":
                raise ModelFileError(f"control flow body {quoted(name)} holds a variable {quoted(node_name)}")
        for i, tensor in enumerate(returns):
            fdef.signature.output_arg.add(name=f"out{i}", type=_DT_FLOAT)
            fdef.ret[f"out{i}"] = spell(tensor)
        self.functions[name] = fdef

    def _dtype(self, name: str, key: str = "T") -> int:
        dtype = int(self.nodes[name].get(key, _DT_FLOAT) or _DT_FLOAT)
        return _DT_FLOAT if dtype == DT_VARIANT else dtype  # a TensorList: the Loop infers it

    # ------------------------------------------------------------------ loops
    def _try_loop(self, frame: str, enters: list[str]) -> bool:
        consumers = self._consumers()

        def only(name: str, port: int, ops: frozenset[str]) -> str | None:
            found = [c for c, _, p in consumers.get(name, []) if p == port and self.nodes[c].op in ops]
            return found[0] if found else None

        variables: list[tuple[str, str, str, str | None, Tensor]] = []  # enter, merge, switch, exit, next value
        invariants: list[str] = []
        loop_cond: str | None = None
        for enter in sorted(enters):
            if self.nodes[enter].get("is_constant", False):
                invariants.append(enter)
                continue
            merge = only(enter, 0, MERGE)
            if merge is None:
                return False
            nexts = [src for src, _ in self.nodes[merge].inputs if self.nodes[src].op in NEXT]
            switch = only(merge, 0, SWITCH)
            if len(nexts) != 1 or switch is None:
                raise ModelFileError(
                    f"while frame {quoted(frame)}: loop variable {quoted(enter)} has no Merge/Switch/NextIteration"
                )
            cond_src = self.nodes[switch].inputs[1][0]
            if self.nodes[cond_src].op not in LOOP_COND:
                return False
            loop_cond = cond_src
            variables.append((enter, merge, switch, only(switch, 0, EXIT), self.nodes[nexts[0]].inputs[0]))
        if loop_cond is None:
            return False
        for enter, _, _, exit_name, _ in variables:
            if exit_name is not None:
                self._hint_element_rank(self.nodes[enter].inputs[0], exit_name)
        count = len(variables) + len(invariants)
        cond_boundary: dict[Tensor, int] = {}
        body_boundary: dict[Tensor, int] = {}
        for i, (_, merge, switch, _, _) in enumerate(variables):
            cond_boundary[(merge, 0)] = i
            body_boundary[(merge, 0)] = i
            body_boundary[(switch, 1)] = i
        for j, enter in enumerate(invariants):
            cond_boundary[(enter, 0)] = body_boundary[(enter, 0)] = len(variables) + j
        cond = self._walk([self.nodes[loop_cond].inputs[0]], cond_boundary, stop_at_switch=False)
        body = self._walk([v[4] for v in variables], body_boundary, stop_at_switch=False)
        if cond.blocked or body.blocked:
            return False  # an inner construct first
        outside = list(dict.fromkeys([*cond.outside, *body.outside]))
        for k, tensor in enumerate(outside):
            cond_boundary[tensor] = body_boundary[tensor] = count + k
        args = [(v[0], self._dtype(v[0])) for v in variables] + [(e, self._dtype(e)) for e in invariants]
        args += [(t[0], self._dtype(t[0], "dtype")) for t in outside]
        base = self._unique(f"{frame}/While")
        cond_name, body_name = self._unique(f"{base}_cond"), self._unique(f"{base}_body")
        invariant_args = [(e, 0) for e in invariants] + outside
        shapes = {}
        for k, tensor in enumerate(self.nodes[e].inputs[0] for e in invariants):
            shape = self._static_shape(tensor)
            if shape is not None:
                shapes[len(variables) + k] = shape
        self._function(cond_name, args, cond_boundary, cond, [self.nodes[loop_cond].inputs[0]], shapes)
        body_returns = [v[4] for v in variables] + invariant_args
        self._function(body_name, args, body_boundary, body, body_returns, shapes)
        from irconv_tf.proto import graph_pb2

        inputs = [self.nodes[v[0]].inputs[0] for v in variables] + [self.nodes[e].inputs[0] for e in invariants]
        inputs += outside
        attr = {
            "cond": graph_pb2.AttrValue(func=graph_pb2.NameAttrList(name=cond_name)),
            "body": graph_pb2.AttrValue(func=graph_pb2.NameAttrList(name=body_name)),
            "T": graph_pb2.AttrValue(list=graph_pb2.AttrValue.ListValue(type=[data_type(a[1]) for a in args])),
        }
        self.nodes[base] = TFNode(base, "While", inputs, attr)
        for i, (_, _, _, exit_name, _) in enumerate(variables):
            if exit_name is not None:
                old = self.nodes[exit_name]
                self.nodes[exit_name] = TFNode(exit_name, "Identity", [(base, i)], dict(old.attr))
        self.touched.update(cond.nodes, body.nodes, cond.constants, body.constants)
        self._drop_frame(enters, {v[3] for v in variables if v[3]})
        return True

    def _drop_frame(self, enters: list[str], exits: set[str]) -> None:
        """Remove every node forward of the frame's Enters up to its Exits: all of them now
        live in the While's functions (or were dead)."""
        consumers = self._consumers()
        stack = list(enters)
        dropped: set[str] = set()
        while stack:
            name = stack.pop()
            if name in dropped or name in exits:
                continue
            dropped.add(name)
            stack.extend(c for c, _, _ in consumers.get(name, []))
        for name in dropped:
            del self.nodes[name]

    def _static_shape(self, tensor: Tensor) -> Any:
        """The TensorShapeProto a loop invariant always has: a Placeholder's declared shape
        or a constant's, followed through Identity and constant Enter nodes; else None."""
        from irconv_tf.proto import tensor_pb2

        node = self.nodes.get(tensor[0])
        while node is not None and node.op in ("Identity", *ENTER) and node.inputs:
            node = self.nodes.get(node.inputs[0][0])
        if node is None:
            return None
        if node.op == "Placeholder" and "shape" in node.attr:
            proto = node.attr["shape"].shape
            return None if proto.unknown_rank else proto
        value = _constant(node)
        if value is None or not hasattr(value, "shape"):
            return None
        return tensor_pb2.TensorShapeProto(dim=[tensor_pb2.TensorShapeProto.Dim(size=d) for d in np.shape(value)])

    def _hint_element_rank(self, initial: Tensor, exit_name: str) -> None:
        """A list (TensorArrayV3 flow, TensorListReserve) of elements of unknown rank carried
        by the loop takes the element shape that its reader after the loop states, so the
        list keeps one rank through the Loop (the CPU plugin refuses a Loop of dynamic rank)."""
        from irconv_tf.proto import graph_pb2, tensor_pb2

        producer = self.nodes.get(initial[0])
        if producer is None or producer.op not in ("TensorArrayV3", "TensorListReserve"):
            return
        if producer.op == "TensorArrayV3" and (initial[1] != 1 or producer.get("element_shape") is not None):
            return
        if producer.op == "TensorListReserve":
            shape_node = self.nodes.get(producer.inputs[0][0])
            if shape_node is None or _constant(shape_node) is None or np.ndim(_constant(shape_node)) != 0:
                return
        rank = None
        for node in self.nodes.values():
            if not node.inputs or exit_name not in {src for src, _ in node.inputs}:
                continue
            if node.op == "TensorArrayGatherV3" and node.get("element_shape") is not None:
                rank = len(node.get("element_shape"))
            elif node.op == "TensorListStack":
                stated = self.nodes.get(node.inputs[1][0])
                value = None if stated is None else _constant(stated)
                if value is not None and np.ndim(value) == 1:
                    rank = len(value)
        if rank is None:
            return
        unknown = tensor_pb2.TensorShapeProto(dim=[tensor_pb2.TensorShapeProto.Dim(size=-1)] * rank)
        if producer.op == "TensorArrayV3":
            attrs = dict(producer.attr)
            attrs["element_shape"] = graph_pb2.AttrValue(shape=unknown)
            producer.attr = attrs
        else:
            name = self._unique(f"{producer.name}/element_shape_hint")
            self.nodes[name] = TFNode(name, "Const", [], {}, value=np.full(rank, -1, np.int32))
            producer.inputs = [(name, 0), *producer.inputs[1:]]

    # ------------------------------------------------------------------ conds
    def _try_cond(self, merge: str) -> bool:
        node = self.nodes[merge]
        if len(node.inputs) != 2:
            raise ModelFileError(f"Merge {quoted(merge)} has {len(node.inputs)} inputs; a cond has 2")
        if any(p == 1 for c in self._consumers().get(merge, []) for _, _, p in [c]):
            raise ModelFileError(f"Merge {quoted(merge)}: its value_index output is read, which If cannot give")
        walks = [self._walk([t], {}, stop_at_switch=True) for t in node.inputs]
        if any(w.blocked for w in walks):
            return False
        switches = list(dict.fromkeys([*walks[0].switches, *walks[1].switches]))
        preds = {self.nodes[s].inputs[1] for s, _ in switches}
        if len(preds) != 1:
            if not preds:
                return False  # no branch reads a switched value: not a cond TF writes
            raise ModelFileError(f"Merge {quoted(merge)} joins values switched on different predicates {sorted(preds)}")
        (pred,) = preds
        polarity: list[int | None] = []
        for walk, tensor in zip(walks, node.inputs, strict=True):
            ports = {p for _, p in walk.switches}
            if len(ports) > 1:
                raise ModelFileError(f"Merge {quoted(merge)}: a branch reads both outputs of a Switch")
            polarity.append(ports.pop() if ports else self._switch_polarity(tensor))
        if polarity[0] is None and polarity[1] is not None:
            polarity[0] = 1 - polarity[1]
        if polarity[1] is None and polarity[0] is not None:
            polarity[1] = 1 - polarity[0]
        if polarity[0] is None or polarity[0] == polarity[1]:
            raise ModelFileError(f"Merge {quoted(merge)}: cannot tell which input is the true branch")
        sources = list(dict.fromkeys(s for s, _ in switches))
        outside = list(dict.fromkeys([*walks[0].outside, *walks[1].outside]))
        boundary: dict[Tensor, int] = {}
        for k, switch in enumerate(sources):
            boundary[(switch, 0)] = boundary[(switch, 1)] = k
        for k, tensor in enumerate(outside):
            boundary[tensor] = len(sources) + k
        args = [(s, self._dtype(s)) for s in sources] + [(t[0], self._dtype(t[0], "dtype")) for t in outside]
        base = self._unique(f"{merge}/If")
        then_name, else_name = self._unique(f"{base}_then"), self._unique(f"{base}_else")
        by_polarity = {polarity[0]: 0, polarity[1]: 1}
        then_index, else_index = by_polarity[1], by_polarity[0]
        self._function(then_name, args, boundary, walks[then_index], [node.inputs[then_index]])
        self._function(else_name, args, boundary, walks[else_index], [node.inputs[else_index]])
        from irconv_tf.proto import graph_pb2

        attr = {
            "then_branch": graph_pb2.AttrValue(func=graph_pb2.NameAttrList(name=then_name)),
            "else_branch": graph_pb2.AttrValue(func=graph_pb2.NameAttrList(name=else_name)),
            "T": node.attr.get("T", graph_pb2.AttrValue(type=data_type(_DT_FLOAT))),
        }
        inputs = [pred] + [self.nodes[s].inputs[0] for s in sources] + outside
        self.nodes[merge] = TFNode(merge, "If", inputs, attr)
        self.touched.update(walks[0].nodes, walks[1].nodes, sources)
        return True


def _constant(node: TFNode) -> Any:
    if node.value is not None:
        return node.value
    return node.get("value") if node.op == "Const" else None


def functionalize(nodes: dict[str, TFNode], functions: dict[str, Any], control_inputs: Mapping[str, list[str]]) -> None:
    """Replace the TF1 control-flow constructs of ``nodes`` by functional While/If nodes."""
    if has_tf1_control_flow(nodes):
        Functionalizer(nodes, functions, control_inputs).run()
