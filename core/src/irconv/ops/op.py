"""The declarative ``Op`` base.

An op is a dataclass: its fields are the operation's typed attributes, with defaults,
and the IR emitter reads them from the declaration. Class variables say what the op is
(IR type, opset version, output count) and how it behaves in the pipeline.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from irconv.ops.traits import Trait

if TYPE_CHECKING:
    from irconv.graph import Node


def attr(
    default: Any = dataclasses.MISSING,
    *,
    factory: Any = dataclasses.MISSING,
    ir: str | None = None,
    emit: bool = True,
    choices: Sequence[Any] = (),
) -> Any:
    """Declare an op attribute.

    ``ir`` is the IR spelling when it differs from the field name (``type`` clashes);
    ``emit=False`` keeps a field out of the IR (bodies of control-flow ops, front-end
    bookkeeping). ``choices`` lists the values irconv may write for a text, element-type
    or enum attribute: the operation's specification's, less any OpenVINO's CPU plugin does
    not implement (an ``enum.Enum`` field without ``choices`` allows every member). The
    pipeline refuses other values (``Op.undeclared_choice``); tests sweep every declared one.
    """
    metadata = {"ir": ir, "emit": emit, "choices": tuple(choices)}
    if factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


class Op:
    """Base of every operation. Subclasses are ``@dataclass`` declarations.

    Class variables:
      type: the IR type name (``Convolution``, ``SoftMax``, ``Const``).
      version: the opset in which this op version appeared (``8`` for SoftMax-8);
        ``0`` marks an internal op that must be rewritten before emit.
      outputs: the number of output ports (override ``num_outputs`` when it depends on
        attributes).
      arity: ``(fewest, most)`` inputs the op version's specification allows (most None: any
        number); the emitter refuses a node outside it. None: not declared (custom ops).
      traits: what the op is (``Trait``), for transforms that work by kind rather than by
        type name.
      custom_opset: the IR ``version`` of an op outside the OpenVINO opsets (``"my_opset"``);
        the runtime needs an extension that implements it. Empty for OpenVINO ops.
    """

    # No instance dict here: a subclass declared with ``slots=True`` then has none either.
    __slots__ = ()
    if TYPE_CHECKING:  # every concrete op is a dataclass: dataclasses.replace(op, ...) type-checks
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    type: ClassVar[str] = ""
    version: ClassVar[int] = 0
    outputs: ClassVar[int] = 1
    arity: ClassVar[tuple[int, int | None] | None] = None
    traits: ClassVar[frozenset[Trait]] = frozenset()
    custom_opset: ClassVar[str] = ""
    #: True for an op whose output is declared, not computed from inputs (Parameter, Const):
    #: inference checks the declared size and never forgets its value. The graph asks this
    #: (and ``declared_value``) instead of knowing the concrete ops.
    declares_output: ClassVar[bool] = False

    @property
    def opset(self) -> str:
        """The IR ``version`` attribute, e.g. ``opset8`` (or the custom opset's name)."""
        return self.custom_opset or f"opset{self.version}"

    @property
    def is_opset_op(self) -> bool:
        """True for ops the emitter may write: an opset version or a custom opset."""
        return self.version > 0 or bool(self.custom_opset)

    def has(self, trait: Trait) -> bool:
        return trait in self.traits

    def num_outputs(self) -> int:
        return self.outputs

    def infer(self, node: Node) -> None:
        """Set shapes and element types of the node's outputs from its inputs."""
        raise NotImplementedError(f"{type(self).__name__} has no shape inference")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray] | None:
        """Compute constant outputs from constant inputs, or None when not supported."""
        return None

    def declared_value(self) -> np.ndarray | None:
        """The value the op holds for its output (a Const's), None for an op computing one."""
        return None

    def check(self, node: Node) -> None:
        """Rules the OpenVINO runtime enforces that a front end may break for a while, until a
        transform repairs the graph (a grouped convolution extracted as a Convolution, made
        a GroupConvolution once shapes are known). Called on the finished graph, after the
        back phase; a broken rule is a ``ConversionError``."""

    def ir_attributes(self) -> dict[str, str]:
        """The IR ``<data>`` attributes, every declared one written out (in field order)."""
        if not dataclasses.is_dataclass(self):
            return {}
        result: dict[str, str] = {}
        for f in dataclasses.fields(self):
            if not f.metadata.get("emit", True):
                continue
            result[f.metadata.get("ir") or f.name] = format_attr(getattr(self, f.name))
        return result

    def undeclared_choice(self) -> tuple[str, str, tuple[str, ...]] | None:
        """The first written attribute whose value is not among its declared ``choices``, as
        ``(IR name, value, the choices)`` in IR spelling; None when every value is declared."""
        if not dataclasses.is_dataclass(self):
            return None
        for f in dataclasses.fields(self):
            choices = f.metadata.get("choices", ())
            if choices and f.metadata.get("emit", True):
                allowed = tuple(format_attr(c) for c in choices)
                value = format_attr(getattr(self, f.name))
                if value not in allowed:
                    return f.metadata.get("ir") or f.name, value, allowed
        return None

    def describe(self) -> str:
        """``SoftMax-8`` for messages and tables."""
        return f"{self.type}-{self.version}" if self.version else self.type


def format_attr(value: Any) -> str:
    """Spell an attribute value the way the IR reader parses it."""
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _format_float(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return ",".join(format_attr(v) for v in value)
    raise TypeError(f"cannot write attribute value {value!r} into the IR")


def _format_float(value: float) -> str:
    text = repr(value)
    if text in ("inf", "-inf", "nan"):
        return text
    # repr gives the shortest text that reads back exactly; IR readers accept it.
    return text[:-2] if text.endswith(".0") else text
