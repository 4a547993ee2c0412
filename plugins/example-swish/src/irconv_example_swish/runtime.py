"""The runtime half: ExampleSwish for the OpenVINO runtime, as a Python extension.

An IR holding ``<layer type="ExampleSwish" version="irconv_example">`` reads in OpenVINO
only when an extension for that (type, opset) pair is added to the ``Core``::

    import openvino as ov
    from irconv_example_swish.runtime import add_to

    core = ov.Core()
    add_to(core)                       # core.add_extension(OpExtension(ExampleSwishRuntime))
    compiled = core.compile_model(core.read_model("model.xml"), "CPU")

To compare the IR's outputs with a reference, compile it the way the tests and ``--verify``
do: ``irconv.runtime.compile_for_comparison("model.xml", core=core)`` (f32 whatever the
CPU's default precision; without ``core``, every installed plugin's extension is added).

The CPU plugin runs the op through ``evaluate`` (NumPy, on the host). This module imports
``openvino`` (install the plugin with its ``runtime`` extra); the converter side of the
plugin never imports it. For deployment without Python, the same op is written in C++
against OpenVINO's ``ov::op::Op`` and shipped as a shared library (see README.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from openvino import DiscreteTypeInfo, Op, OpExtension

from irconv_example_swish.ops import OPSET, ExampleSwish, reference


class ExampleSwishRuntime(Op):  # type: ignore[misc]  # openvino is untyped to mypy (pyproject.toml)
    """OpenVINO's view of ExampleSwish: type info, attributes, shape inference, evaluate."""

    class_type_info = DiscreteTypeInfo(ExampleSwish.type, OPSET)

    def __init__(self, inputs: Any = None, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(self, inputs)
        self._beta = float((attrs or {}).get("beta", 1.0))

    def get_type_info(self) -> DiscreteTypeInfo:
        return ExampleSwishRuntime.class_type_info

    def validate_and_infer_types(self) -> None:
        self.set_output_type(0, self.get_input_element_type(0), self.get_input_partial_shape(0))

    def visit_attributes(self, visitor: Any) -> bool:
        # The IR reader fills the dict in place from <data beta="…"/>; a writer reads it.
        values = {"beta": self._beta}
        visitor.on_attributes(values)
        self._beta = float(values["beta"])
        return True

    def clone_with_new_inputs(self, new_inputs: Any) -> ExampleSwishRuntime:
        return ExampleSwishRuntime(new_inputs, {"beta": self._beta})

    def has_evaluate(self) -> bool:
        return True

    def evaluate(self, outputs: Any, inputs: Any) -> bool:
        x = np.asarray(inputs[0].data)
        outputs[0].shape = inputs[0].shape
        outputs[0].data[:] = reference(x, self._beta)
        return True


def extension() -> OpExtension:
    """The extension object for ``Core.add_extension``."""
    return OpExtension(ExampleSwishRuntime)


def add_to(core: Any) -> Any:
    """Add the extension to an ``openvino.Core``; returns the core."""
    core.add_extension(extension())
    return core
