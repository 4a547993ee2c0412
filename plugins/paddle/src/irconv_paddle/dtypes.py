"""Paddle's element types, as the legacy program (``VarType.Type`` numbers) and the PIR
program (``t_f32``-style type names, ``float32``-style dtype attributes) spell them."""

from __future__ import annotations

import numpy as np

#: VarType.Type -> NumPy (bf16 has no NumPy dtype here; it is left out, and refused by name).
_VAR_TYPES = {0: "bool", 1: "<i2", 2: "<i4", 3: "<i8", 4: "<f2", 5: "<f4", 6: "<f8", 20: "u1", 21: "i1",
              23: "<c8", 24: "<c16", 36: "<u2", 37: "<u4", 38: "<u8"}

#: PIR type names (``0.t_f32`` without the dialect) -> NumPy.
_PIR_TYPES = {"t_bool": "bool", "t_i16": "<i2", "t_i32": "<i4", "t_i64": "<i8", "t_f16": "<f2", "t_f32": "<f4",
              "t_f64": "<f8", "t_ui8": "u1", "t_i8": "i1", "t_c64": "<c8", "t_c128": "<c16"}

#: dtype attribute values (``full``'s ``dtype``) -> NumPy.
_DTYPE_NAMES = {"bool": "bool", "int16": "<i2", "int32": "<i4", "int64": "<i8", "float16": "<f2",
                "float32": "<f4", "float64": "<f8", "uint8": "u1", "int8": "i1"}


def dtype_of_var_type(code: int) -> np.dtype | None:
    name = _VAR_TYPES.get(int(code))
    return None if name is None else np.dtype(name)


def dtype_of_pir_type(name: str) -> np.dtype | None:
    found = _PIR_TYPES.get(name.rpartition(".")[2])
    return None if found is None else np.dtype(found)


def dtype_of_name(name: str | int) -> np.dtype | None:
    """A dtype attribute: a PIR name (``float32``) or a legacy ``VarType.Type`` number."""
    if isinstance(name, int):
        return dtype_of_var_type(name)
    found = _DTYPE_NAMES.get(name.lower().removeprefix("paddle."))
    return None if found is None else np.dtype(found)
