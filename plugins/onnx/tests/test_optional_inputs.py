"""The audit of optional inputs: every extractor declares each optional input of its op
(a default, or HANDLED), checked against the ONNX schemas of every opset it covers; and
the filling mechanism on its own."""

from __future__ import annotations

import numpy as np
import onnx.defs
import pytest
from irconv_onnx.extractors import all_extractors
from irconv_onnx.extractors._optional import WithDefaults


def _schemas_in(op: str, domain: str, versions: range) -> list[onnx.defs.OpSchema]:
    """The schema versions of ``op`` that apply to some opset in ``versions``."""
    history = sorted((s for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain == domain),
                     key=lambda s: s.since_version)
    found = []
    for i, schema in enumerate(history):
        until = history[i + 1].since_version if i + 1 < len(history) else 10**6
        if schema.since_version < versions.stop and until > versions.start:
            found.append(schema)
    return found


def test_every_optional_input_of_every_extracted_op_is_declared() -> None:
    optional = onnx.defs.OpSchema.FormalParameterOption.Optional
    missing = []
    for extractor in all_extractors():
        if extractor.domain != "":
            continue  # com.microsoft schemas are not in the onnx package
        declared = extractor.extract.defaults if isinstance(extractor.extract, WithDefaults) else {}
        for schema in _schemas_in(extractor.op, "", extractor.opsets):
            for idx, param in enumerate(schema.inputs):
                if param.option == optional and idx not in declared:
                    missing.append(f"{extractor.op}-{schema.since_version} input {idx} ({param.name})")
    assert not missing, "optional inputs without a declared default or HANDLED: " + ", ".join(sorted(set(missing)))


def test_declared_inputs_exist_in_the_schema() -> None:
    for extractor in all_extractors():
        if extractor.domain != "" or not isinstance(extractor.extract, WithDefaults):
            continue
        schemas = _schemas_in(extractor.op, "", extractor.opsets)
        most = max(len(s.inputs) for s in schemas)
        assert max(extractor.extract.defaults) < most, f"{extractor.op}: declares an input it does not have"


def test_a_hole_without_default_is_one_clear_error(save_model) -> None:
    """An extractor that returns a bare op while an undeclared empty input sits before a given one."""
    from irconv import ConversionError, ConversionOptions, ExtractContext
    from irconv_onnx.loader import load_onnx
    from irconv_opset import Clamp
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node("Clip", ["x", "", "hi"], ["y"], name="clip")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
                              [numpy_helper.from_array(np.array(1, np.float32), "hi")])
    loaded = load_onnx(save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])))
    clip = loaded.node("clip")
    ctx = ExtractContext(loaded, clip, ConversionOptions(), None)  # type: ignore[arg-type]
    bare = WithDefaults(lambda node, ctx: Clamp(min=-1.0, max=1.0), {1: None})
    with pytest.raises(ConversionError, match="optional input 1 is empty while a later input is given"):
        bare(clip, ctx)


def test_a_declared_default_fills_the_hole_on_the_node(save_model) -> None:
    from irconv import ConversionOptions, ExtractContext
    from irconv_onnx.extractors._optional import lowest
    from irconv_onnx.loader import load_onnx
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node("Clip", ["x", "", "hi"], ["y"], name="clip")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [3])],
                              [numpy_helper.from_array(np.array(1, np.float16), "hi")])
    loaded = load_onnx(save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])))
    for n in loaded.topological_order():  # what the core does before extracting a node: infer its inputs
        if n.name != "clip":
            n.op.infer(n)
    clip = loaded.node("clip")
    ctx = ExtractContext(loaded, clip, ConversionOptions(), None)  # type: ignore[arg-type]
    seen = []
    filled = WithDefaults(lambda node, ctx: seen.append(ctx.input_value(1)) or [ctx.input(0)], {1: lowest()})
    filled(clip, ctx)
    assert clip.in_port(1).get_source() is not None
    np.testing.assert_array_equal(seen[0], np.array(np.finfo(np.float16).min, np.float16))
