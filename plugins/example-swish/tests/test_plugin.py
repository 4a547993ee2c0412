"""The plugin as irconv loads it: its records, and the imports a plugin must not make."""

import ast
from pathlib import Path

import irconv_example_swish
from irconv import Extractor, Transform
from irconv_example_swish import plugin
from irconv_example_swish.ops import ExampleSwish
from irconv_example_swish.options import OPTIONS

PACKAGE = Path(irconv_example_swish.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_hooks_return_records():
    assert plugin.declare_ops() == [ExampleSwish]
    assert list(plugin.declare_options()) == list(OPTIONS)
    extractors = plugin.extract_op(None)
    assert all(isinstance(e, Extractor) for e in extractors)
    assert {(e.framework, e.domain, e.op) for e in extractors} == {
        ("onnx", "com.example", "Swish"),
        ("tf", "", "ExampleSwish"),
        ("caffe", "", "ExampleSwish"),
        ("caffe", "example_layers.ExampleSwishLayer", "Python"),
    }
    assert [(e.framework, e.op) for e in plugin.extract_op("tf")] == [("tf", "ExampleSwish")]
    assert plugin.extract_op("mxnet") == []
    transforms = [*plugin.front_transform(), *plugin.back_transform()]
    assert all(isinstance(t, Transform) for t in transforms)
    assert [t.id for t in transforms] == ["example.replace_swish_subgraph", "example.lower_swish"]


def test_only_the_public_api_and_openvino_only_in_the_runtime_module():
    for path in sorted(PACKAGE.glob("*.py")):
        modules = imported_modules(path)
        private = sorted(m for m in modules if m.startswith(("irconv.pipeline", "irconv.plugins.", "networkx")))
        assert not private, f"{path.name} imports {private}"
        if path.name != "runtime.py":
            assert not any(m.split(".")[0] == "openvino" for m in modules), path.name
