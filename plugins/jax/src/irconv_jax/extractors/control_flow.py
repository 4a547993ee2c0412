"""StableHLO control flow: ``while`` as OpenVINO's Loop, ``case`` as If (nested for more than
two branches). The reader (``irconv_jax.program``) has read the regions into body graphs,
with the values they capture as extra inputs; the core extracted those bodies first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from irconv import ConversionError, ExtractContext
from irconv.frontend import extractor, i64
from irconv.graph import Graph, Node, OutPort
from irconv.ops import Op, Parameter, Result
from irconv.types import ElementType
from irconv_opset import Const, Equal, If, Loop
from irconv_opset.ops.control_flow import BackEdge, BodyInput, BodyOutput

from irconv_jax.program import FRAMEWORK


@extractor("jax", "stablehlo.while", produces=[Loop])
def extract_while(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """Loop with no trip count, run while the body's last result (the condition on the new
    values) holds and entered on the condition of the initial values (the node's last input).
    Carried values are back edges; captured values feed their parameters unchanged."""
    carried = ctx.source_op.n_outputs
    (captures,) = ctx.attrs.ints("captures")
    values = [ctx.input(i) for i in range(carried + captures)]
    loop = Loop(
        body=ctx.body("body"),
        input_map=tuple(BodyInput(external=2 + i, parameter=i) for i in range(carried + captures)),
        output_map=tuple(BodyOutput(external=i, result=i) for i in range(carried)),
        back_edges=tuple(BackEdge(result=i, parameter=i) for i in range(carried)),
        current_iteration=-1,
        condition_output=carried,
    )
    made = ctx.add(loop, [i64(ctx, -1, "trip_count"), ctx.input(carried + captures), *values], "loop")
    return [made.out_port(i) for i in range(carried)]


#: adds an op to the graph being built: (op, inputs, name suffix) -> node
_Add = Callable[[Op, Sequence[OutPort], str], Node]


@extractor("jax", "stablehlo.case", produces=[If, Equal])
def extract_case(node: Node, ctx: ExtractContext) -> list[OutPort]:
    """``If(index == 0, branch0, If(index == 1, branch1, ... branchN-1))``: an index out of
    range runs the last branch, as StableHLO specifies."""
    counts = ctx.attrs.ints("captures")
    if len(counts) < 2:
        raise ConversionError(f"{ctx.where()}: a case with {len(counts)} branch (at least two are converted)")
    branches: list[tuple[Graph, list[OutPort]]] = []
    first = 1
    for index, count in enumerate(counts):
        branches.append((ctx.body(f"branch{index}"), [ctx.input(first + i) for i in range(count)]))
        first += count

    def add(op: Op, inputs: Sequence[OutPort], suffix: str) -> Node:
        return ctx.add(op, inputs, suffix)

    return _select_branch(add, ctx.input(0), branches, 0, ctx.source_op.n_outputs, node.name)


def _select_branch(add: _Add, index: OutPort, branches: list[tuple[Graph, list[OutPort]]], position: int,
                   outputs: int, name: str) -> list[OutPort]:
    """The outputs of ``branches[0]`` if ``index == position``, else of the other branches
    (an If over them in the else body when there are more than one)."""
    then_body, then_inputs = branches[0]
    if len(branches) == 2:
        else_body, else_inputs = branches[1]
    else:
        else_body, else_inputs = _rest(index, branches[1:], position + 1, outputs, f"{name}/else")
    value = add(Const(np.array(position, np.int32)), [], f"is{position}/value").out_port(0)
    condition = add(Equal(), [index, value], f"is{position}").out_port(0)
    skip = 1 + len(then_inputs)
    op = If(
        then_body=then_body,
        else_body=else_body,
        then_inputs=tuple(BodyInput(external=1 + i, parameter=i) for i in range(len(then_inputs))),
        else_inputs=tuple(BodyInput(external=skip + i, parameter=i) for i in range(len(else_inputs))),
        then_outputs=tuple(BodyOutput(external=i, result=i) for i in range(outputs)),
        else_outputs=tuple(BodyOutput(external=i, result=i) for i in range(outputs)),
    )
    made = add(op, [condition, *then_inputs, *else_inputs], f"if{position}")
    return [made.out_port(i) for i in range(outputs)]


def _rest(index: OutPort, branches: list[tuple[Graph, list[OutPort]]], position: int, outputs: int,
          name: str) -> tuple[Graph, list[OutPort]]:
    """A body choosing among ``branches`` (numbered from ``position``): its parameters are
    the index and every branch's inputs, in order; returns it with the outer ports feeding
    them."""
    body = Graph(name, FRAMEWORK)
    # the If types every parameter from the port feeding it
    inner_index = body.add_node(Parameter((), ElementType.i32), f"{name}/index").out_port(0)
    inner: list[tuple[Graph, list[OutPort]]] = []
    for graph, ports in branches:
        parameters = [body.add_node(Parameter(None, ElementType.dynamic), f"{name}/{graph.name}/input{i}").out_port(0)
                      for i in range(len(ports))]
        inner.append((graph, parameters))

    def add(op: Op, inputs: Sequence[OutPort], suffix: str) -> Node:
        return body.add_node(op, f"{name}/{suffix}", list(inputs))

    for i, port in enumerate(_select_branch(add, inner_index, inner, position, outputs, name)):
        body.add_node(Result(), f"{name}/result{i}", [port])
    return body, [index, *(port for _, ports in branches for port in ports)]
