"""The explicit options object passed down the pipeline (no globals)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irconv.errors import UserError
from irconv.types import ElementType, MaybeShape

_INPUT_SPEC = re.compile(r"^(?P<name>[^\[\]{}]*?)(?:\[(?P<shape>[^\]]*)\])?(?:\{(?P<type>[^}]*)\})?$")


@dataclass(frozen=True)
class InputSpec:
    """``--input name[1,3,?,?]{f32}``: override a model input's shape and/or type.

    An empty name means "the model's only input"; a ``shape`` of None leaves the shape as is.
    """

    name: str
    shape: MaybeShape = None
    element_type: ElementType | None = None

    @classmethod
    def parse(cls, text: str) -> InputSpec:
        found = _INPUT_SPEC.match(text.strip())
        if not found or (not found["name"] and found["shape"] is None and found["type"] is None):
            raise UserError(
                f"bad --input {text!r}: expected name[d0,d1,...]{{type}}, e.g. data[1,3,224,224]{{f32}} "
                "(shape and type are each optional; ? or -1 for a dynamic dimension)"
            )
        shape: MaybeShape = None
        if found["shape"] is not None:
            shape = tuple(_parse_dim(d, text) for d in found["shape"].split(",") if d.strip() != "")
        element_type = None
        if found["type"]:
            try:
                element_type = ElementType.parse(found["type"])
            except ValueError:
                raise UserError(
                    f"bad --input {text!r}: unknown element type {found['type']!r} (try f32, i64, u8)"
                ) from None
        return cls(found["name"].strip(), shape, element_type)


def _parse_dim(text: str, spec: str) -> int | None:
    text = text.strip()
    if text in ("?", "-1"):
        return None
    try:
        value = int(text)
    except ValueError:
        raise UserError(f"bad --input {spec!r}: dimension {text!r} is not an integer, ? or -1") from None
    if value < 0:
        raise UserError(f"bad --input {spec!r}: negative dimension {value}")
    return value


@dataclass
class ConversionOptions:
    """Everything that steers one conversion. Plugins read the fields they document.

    ``plugin_options`` carries ``--option key=value`` pairs for third-party plugins
    (keys are namespaced by the plugin, e.g. ``caffe.custom_layers``).
    """

    framework: str | None = None
    inputs: list[InputSpec] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    static_shape: bool = False
    compress_to_fp16: bool = True
    disabled_transforms: set[str] = field(default_factory=set)
    weights: Path | None = None
    proto: Path | None = None
    saved_model_tags: list[str] = field(default_factory=list)
    signature: str | None = None
    layout_inputs: str | None = None
    nhwc_to_nchw: bool = True
    output_format: str = "ir11"
    plugin_options: dict[str, str] = field(default_factory=dict)
    validate: bool = False

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> ConversionOptions:
        """Build from keyword arguments, accepting ``--input`` strings for ``inputs``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise UserError(f"unknown conversion option(s): {', '.join(unknown)}; known: {', '.join(sorted(names))}")
        inputs = kwargs.pop("inputs", None) or []
        parsed = [spec if isinstance(spec, InputSpec) else InputSpec.parse(spec) for spec in inputs]
        for key in ("weights", "proto"):
            if kwargs.get(key) is not None:
                kwargs[key] = Path(kwargs[key])
        if "disabled_transforms" in kwargs:
            kwargs["disabled_transforms"] = set(kwargs["disabled_transforms"])
        return cls(inputs=parsed, **kwargs)

    def input_override(self, name: str, index: int, count: int) -> InputSpec | None:
        """The ``--input`` spec for a model input, matched by name (or the only input)."""
        for spec in self.inputs:
            if spec.name == name:
                return spec
        if count == 1 and index == 0:
            for spec in self.inputs:
                if spec.name == "":
                    return spec
        return None
