"""Functional control flow bodies (While/If branches) as irconv sub-graphs.

A body function becomes a graph whose Parameters are the function's arguments (all of
them, in order) and whose Results are its return values (in order); nested calls are
inlined. Variable reads inside a body read the (constant) value passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irconv.errors import ModelFileError, quoted
from irconv.graph import Graph

from irconv_tf.build import Endpoint, build_graph
from irconv_tf.dtypes import data_type
from irconv_tf.inline import Flattener
from irconv_tf.nodes import TFNode

BODY_ATTRS: dict[str, tuple[str, ...]] = {
    "While": ("cond", "body"),
    "StatelessWhile": ("cond", "body"),
    "If": ("then_branch", "else_branch"),
    "StatelessIf": ("then_branch", "else_branch"),
}
_RESOURCE = 20
#: function attribute ``_irconv_arg_shape_<i>``: a shape (AttrValue.shape) argument i always has
ARG_SHAPE = "_irconv_arg_shape"
_VARIANT = 21


WHILE_OPS = ("While", "StatelessWhile")


def add_initial_conditions(nodes: dict[str, TFNode], flattener: Flattener) -> None:
    """Give each While its condition on the initial values as one more (last) input: the
    cond function inlined on the While's inputs, in the graph around it. A TF While checks
    the condition before the first iteration, a Loop takes that check as an input; inlined
    here, the condition's nodes are extracted by their own extractors like any other."""
    for name, node in list(nodes.items()):
        if node.op not in WHILE_OPS:
            continue
        (condition,) = flattener.add_function(node.need("cond"), f"{name}/initial_cond/", list(node.inputs))
        node.inputs.append(condition)
    flattener.finish()


def body_graph(functions: Mapping[str, Any], fname: str, name: str) -> Graph:
    from irconv_tf.proto import graph_pb2

    fdef = functions.get(fname)
    if fdef is None:
        raise ModelFileError(f"control-flow function {quoted(fname)} is not in the function library")
    flattener = Flattener(None)
    flattener.functions = dict(functions)
    args = []
    inputs = []
    for index, arg in enumerate(fdef.signature.input_arg):
        placeholder = f"{name}/{arg.name}"
        # A resource argument carries a variable's value once variables became constants;
        # a variant one a TensorList (a tensor with a leading list axis): float32 stands in
        # until the Loop/If infers the body from its inputs.
        dtype = 1 if arg.type in (_RESOURCE, _VARIANT) else arg.type
        attrs = {"dtype": graph_pb2.AttrValue(type=data_type(dtype))}
        # A shape stated for the argument (the TF1 frame pass states loop invariants' shapes)
        # lets the body's extractors see ranks before the Loop feeds the body.
        key = f"{ARG_SHAPE}_{index}"
        stated = fdef.attr.get(key)
        if stated is not None and dtype not in (_RESOURCE, _VARIANT):
            attrs["shape"] = stated
        flattener.nodes[placeholder] = TFNode(placeholder, "Placeholder", [], attrs)
        args.append((placeholder, 0))
        inputs.append(Endpoint((placeholder, 0), [arg.name]))
    returned = flattener.add_function(fname, f"{name}/", args)
    nodes = flattener.finish()
    add_initial_conditions(nodes, flattener)
    for node in nodes.values():
        if node.op == "ReadVariableOp":
            node.op = "Identity"
    outputs = [Endpoint(flattener.resolve(t), [f"{name}/output{i}"]) for i, t in enumerate(returned)]
    return build_graph(nodes, inputs, outputs, name, bodies=_nested_bodies(nodes, flattener))


def _nested_bodies(nodes: dict[str, TFNode], flattener: Flattener) -> dict[str, dict[str, Graph]]:
    result: dict[str, dict[str, Graph]] = {}
    for name, node in nodes.items():
        attrs = BODY_ATTRS.get(node.op)
        if attrs:
            result[name] = {a: body_graph(flattener.functions, node.need(a), f"{name}/{a}") for a in attrs}
    return result
