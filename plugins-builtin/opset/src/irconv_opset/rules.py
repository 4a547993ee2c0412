"""Input rules OpenVINO checks when it reads an IR (its ``validate_and_infer_types``).

Ops call these from ``infer`` so a model that breaks one fails at conversion, naming the node,
the input and the rule, instead of converting into an IR the runtime refuses at deployment.
Unknown facts (dynamic element type, dynamic rank or dim) never fail a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irconv.errors import ConversionError, quoted
from irconv.types import Dim, ElementType, format_shape

from irconv_opset.shapes import in_shape, in_type

if TYPE_CHECKING:
    from irconv.graph import Node


def _fail(node: Node, idx: int, role: str, rule: str) -> ConversionError:
    return ConversionError(f"node {quoted(node.name)} ({node.op.describe()}): input {idx} ({role}) {rule}")


def require_inputs(node: Node, count: int) -> None:
    """The op reads ``count`` inputs; a model that gives it fewer (an op swapped for another)
    would make the runtime index past the node's inputs."""
    missing = [i for i in range(count) if not node.has_input(i)]
    if missing:
        raise ConversionError(
            f"node {quoted(node.name)} ({node.op.describe()}) needs {count} inputs, "
            f"but input {missing[0]} is not connected (it has {node.num_inputs()})"
        )


def require_at_most(node: Node, count: int) -> None:
    """The op has ``count`` inputs at most; an operation swapped in for one with more inputs
    keeps them, and the runtime then reads a node index past its own."""
    if node.num_inputs() > count:
        raise ConversionError(
            f"node {quoted(node.name)} ({node.op.describe()}) takes at most {count} input(s), "
            f"but the model gives it {node.num_inputs()}"
        )


def require_integer(node: Node, idx: int, role: str) -> None:
    """Shapes, axes, indices, repeats and pads must be of an integer type (not float, not boolean)."""
    if not node.has_input(idx):
        return
    et = in_type(node, idx)
    if et is not ElementType.dynamic and not et.is_integer:
        raise _fail(node, idx, role, f"must have an integer element type, got {et.value}")


def require_float(node: Node, idx: int, role: str) -> None:
    """Inputs the runtime computes in floating point only (recurrent cells, normalisations)."""
    if not node.has_input(idx):
        return
    et = in_type(node, idx)
    if et is not ElementType.dynamic and not et.is_float:
        raise _fail(node, idx, role, f"must have a floating-point element type, got {et.value}")


def require_rank(node: Node, idx: int, role: str, *ranks: int) -> None:
    """The input's rank must be one of ``ranks`` (``0, 1``: a scalar or a 1-D list)."""
    if not node.has_input(idx):
        return
    shape = in_shape(node, idx)
    if shape is not None and len(shape) not in ranks:
        allowed = " or ".join(str(r) for r in ranks)
        raise _fail(node, idx, role, f"must have rank {allowed}, got shape {list(shape)}")


def require_same_type(node: Node, first: int, second: int, role: str) -> None:
    """Two inputs the runtime computes together must share one element type."""
    if not (node.has_input(first) and node.has_input(second)):
        return
    a, b = in_type(node, first), in_type(node, second)
    if ElementType.dynamic not in (a, b) and a is not b:
        raise _fail(node, second, role, f"must have the element type of input {first} ({a.value}), got {b.value}")


def require_length(node: Node, idx: int, role: str, length: Dim, allow_empty: bool = False) -> None:
    """A 1-D input's static length must equal ``length`` (one entry per data axis);
    ``allow_empty``: an empty list is also fine (Transpose's "reverse the axes")."""
    if length is None or not node.has_input(idx):
        return
    shape = in_shape(node, idx)
    if shape is None or len(shape) != 1 or shape[0] is None or shape[0] == length:
        return
    if not (allow_empty and shape[0] == 0):
        raise _fail(node, idx, role, f"must have {length} element(s), one per data axis, got {shape[0]}")


def require_equal_lengths(node: Node, role: str, *indices: int) -> None:
    """1-D inputs that pair up entry by entry (begin/end/strides) must have one static length."""
    lengths = {}
    for idx in indices:
        shape = in_shape(node, idx) if node.has_input(idx) else None
        if shape is not None and len(shape) == 1 and shape[0] is not None:
            lengths[idx] = shape[0]
    if len(set(lengths.values())) > 1:
        found = ", ".join(f"input {i}: {n}" for i, n in lengths.items())
        raise ConversionError(f"node {quoted(node.name)} ({node.op.describe()}): {role} must have one length, got {found}")


def require_slope_shape(node: Node) -> None:
    """PReLU: a 1-D slope of one value or one per channel (dim 1; dim 0 of 1-D data) applies
    per channel; any other slope broadcasts to the data NumPy-style without growing it (the
    CPU plugin refuses the rest when it compiles)."""
    data, slope = in_shape(node, 0), in_shape(node, 1)
    if data is None or slope is None:
        return
    if len(slope) == 1:
        channels = data[1] if len(data) >= 2 else (data[0] if data else 1)
        if slope[0] is None or channels is None or slope[0] in (1, channels):
            return
    if len(slope) > len(data) or any(
        s is not None and d is not None and s not in (1, d)
        for s, d in zip(reversed(slope), reversed(data), strict=False)
    ):
        raise _fail(
            node,
            1,
            "slope",
            f"of shape {list(slope)} is neither one value per channel nor broadcasts to the data shape {list(data)}",
        )


def refuse_run_time_rank(node: Node, role: str) -> None:
    """The runtime's rule: OpenVINO's CPU plugin compiles no model holding a tensor of dynamic
    rank. Called by ops whose output rank is the length of ``role``: when every input's rank
    is known and the output's is not, that length is a run-time value and this op is where
    the rank is lost (an op downstream of a rank already unknown is not blamed)."""
    if node.out_port(0).data.get_rank() is not None:
        return
    if any(port.is_connected() and port.data.get_rank() is None for port in node.in_ports()):
        return
    raise ConversionError(
        f"node {quoted(node.name)} ({node.op.describe()}): the {role} has a length known only at run time, "
        "so the output's rank is too, and OpenVINO's CPU plugin compiles no model with such a tensor; "
        "give the input it comes from a fixed shape (--input NAME[SHAPE])"
    )


def require_static_inputs(node: Node, roles: dict[int, str]) -> None:
    """The CPU plugin's rule for ops it implements with static shapes only: each input of
    ``roles`` (index -> role) that is connected has every dimension known."""
    for idx, role in roles.items():
        if not node.has_input(idx):
            continue
        shape = in_shape(node, idx)
        if shape is None or None in shape:
            raise ConversionError(
                f"node {quoted(node.name)} ({node.op.describe()}): input {idx} ({role}) has the shape "
                f"{format_shape(shape)}, and OpenVINO's CPU plugin runs this op on static shapes only; "
                "give the model's inputs fixed shapes (--input NAME[SHAPE])"
            )
