"""Functional control flow bodies (While/If branches) as irconv sub-graphs.

A body function becomes a graph whose Parameters are the function's arguments (in order)
and whose Results are its return values (in order); nested calls are inlined.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irconv.errors import ModelFileError
from irconv.graph import Graph
from irconv_tf.build import Endpoint, build_graph
from irconv_tf.inline import Flattener
from irconv_tf.nodes import TFNode

BODY_ATTRS: dict[str, tuple[str, ...]] = {
    "While": ("cond", "body"),
    "StatelessWhile": ("cond", "body"),
    "If": ("then_branch", "else_branch"),
    "StatelessIf": ("then_branch", "else_branch"),
}


def body_graph(functions: Mapping[str, Any], fname: str, name: str) -> Graph:
    fdef = functions.get(fname)
    if fdef is None:
        raise ModelFileError(f"control-flow function {fname!r} is not in the function library")
    flattener = Flattener(None)
    flattener.functions = dict(functions)
    args = []
    inputs = []
    for arg in fdef.signature.input_arg:
        placeholder = f"{name}/arg/{arg.name}"
        flattener.nodes[placeholder] = TFNode(placeholder, "Placeholder", [], {})
        args.append((placeholder, 0))
        inputs.append(Endpoint((placeholder, 0), [arg.name]))
    outputs = [Endpoint(t, [f"{name}/ret{i}"]) for i, t in enumerate(flattener.add_function(fname, f"{name}/", args))]
    nodes = flattener.finish()
    outputs = [Endpoint(flattener.resolve(ep.tensor), ep.names) for ep in outputs]
    for ep, arg in zip(inputs, fdef.signature.input_arg):
        nodes[ep.tensor[0]].attr = {}
        ep.names = [arg.name]
        nodes[ep.tensor[0]].value = None
        nodes[ep.tensor[0]].arg_dtype = int(arg.type) or 0  # type: ignore[attr-defined]
    return build_graph(nodes, inputs, outputs, name)
