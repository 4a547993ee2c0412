"""An operator's builtin options as plain values: the ``SourceAttributes`` extractors read.

The options table's fields are decoded by their schema names (``stride_w``,
``fused_activation_function``); enums as their names (``"SAME"``, ``"RELU6"``), vectors as
lists. Custom operators' options (a FlexBuffer map, as TFLite_Detection_PostProcess
writes them) are decoded the same way.
"""

from __future__ import annotations

import re
from typing import Any

from irconv.errors import ModelFileError
from irconv.ops.source import MappingAttributes

from irconv_tflite.schema import tflite_generated as fb

#: Option fields holding an enum, by field name: decoded to the enum's member names.
_ENUMS: dict[str, type] = {
    "padding": fb.Padding,
    "fused_activation_function": fb.ActivationFunctionType,
    "mode": fb.MirrorPadMode,
    "kernel_type": fb.LSTMKernelType,
    "in_data_type": fb.TensorType,
    "out_data_type": fb.TensorType,
    "output_type": fb.TensorType,
    "out_type": fb.TensorType,
    "idx_out_type": fb.TensorType,
}
_OPTION_CLASSES: dict[int, str] = {v: k for k, v in vars(fb.BuiltinOptions).items() if not k.startswith("_")}
_ACCESSOR_SUFFIXES = ("AsNumpy", "Length", "IsNone")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _fields(cls: type) -> list[str]:
    """The generated accessor methods of an options table, one per schema field."""
    return [name for name, value in vars(cls).items()
            if callable(value) and name[0].isupper() and name != "Init" and not name.startswith("GetRootAs")
            and not name.endswith(_ACCESSOR_SUFFIXES) and not name.endswith("HasIdentifier")]


def _enum_name(enum: type, value: int) -> str:
    names = {v: k for k, v in vars(enum).items() if not k.startswith("_")}
    return names.get(value, str(value))


def builtin_attributes(options_type: int, table: Any) -> MappingAttributes:
    """The fields of a builtin options table (``None``: the operator has no options)."""
    if table is None or options_type == 0:
        return MappingAttributes({})
    class_name = _OPTION_CLASSES.get(options_type)
    if class_name is None:  # options of an operator irconv has no extractor for
        return MappingAttributes({})
    options = getattr(fb, class_name)()
    options.Init(table.Bytes, table.Pos)
    values: dict[str, Any] = {}
    for method in _fields(type(options)):
        name = _snake(method)
        as_numpy = getattr(options, method + "AsNumpy", None)
        if as_numpy is not None:
            raw = as_numpy()
            values[name] = [] if isinstance(raw, int) else [v.item() for v in raw]
            continue
        value = getattr(options, method)()
        values[name] = _enum_name(_ENUMS[name], value) if name in _ENUMS else value
    return MappingAttributes(values)


def custom_attributes(op_type: str, options: bytes | None) -> MappingAttributes:
    """A custom operator's FlexBuffer map of options (empty when it has none)."""
    if not options:
        return MappingAttributes({})
    from flatbuffers import flexbuffers

    try:
        decoded = flexbuffers.Loads(options)
    except Exception as exc:  # noqa: BLE001 - any decoding failure is the file's
        raise ModelFileError(f"custom operator {op_type}: its options are not a FlexBuffer map ({exc})") from None
    if not isinstance(decoded, dict):
        return MappingAttributes({})
    return MappingAttributes({str(k): v for k, v in decoded.items()})
