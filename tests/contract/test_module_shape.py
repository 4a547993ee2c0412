"""Every built-in front end shapes its extractor modules one way, the plugin guide's way.

Read from the sources (no front end is imported), so the rules hold for code paths no
model in the suite reaches:

- registration: ``@extractor(...)`` on a named function at module level (``aliases(...)``
  for a function under several names or opset ranges), gathered by ``collect``; no lists
  built inside functions, no lambdas;
- one return type: an extractor returns ``list[OutPort]``;
- the framework's node object through ``ctx.source_as(T)``, not ``ctx.source``;
- errors name the node with ``ctx.where()``, not a hand-written ``node {name!r}``;
- ONNX opset differences as versioned records, not ``opset(ctx)`` branches in a body.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTRACTOR_TREES = {
    "onnx": ["plugins/onnx/src/irconv_onnx/extractors"],
    "tf": ["plugins/tf/src/irconv_tf/extractors", "plugins/tf/src/irconv_tf/keras_reader/extractors"],
    "tflite": ["plugins/tflite/src/irconv_tflite/extractors"],
    "caffe": ["plugins/caffe/src/irconv_caffe/extractors"],
    "mxnet": ["plugins/mxnet/src/irconv_mxnet/extractors"],
    "torch": ["plugins/torch/src/irconv_torch/extractors"],
    "paddle": ["plugins/paddle/src/irconv_paddle/extractors"],
    "example-swish": ["plugins/example-swish/src/irconv_example_swish/extractors.py"],
    "jax": ["plugins/jax/src/irconv_jax/extractors"],
}
REGISTRARS = {"extractor", "aliases"}


def _modules(frontend: str) -> Iterator[tuple[Path, ast.Module]]:
    for tree in EXTRACTOR_TREES[frontend]:
        root = ROOT / tree
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            yield path, ast.parse(path.read_text(), str(path))


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"


def registration_breaches(path: Path, module: ast.Module) -> list[str]:
    """Records made inside functions, records made around lambdas, decorated functions
    that do not return ``list[OutPort]``."""
    found: list[str] = []
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and _called_name(inner) in REGISTRARS and inner not in node.decorator_list:
                    found.append(f"{_where(path, inner)}: a record made inside {node.name}() (register at module level)")
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and _called_name(decorator) in REGISTRARS:
                    returns = ast.unparse(node.returns) if node.returns is not None else "nothing"
                    if returns != "list[OutPort]":
                        found.append(f"{_where(path, node)}: {node.name}() returns {returns}, not list[OutPort]")
        if isinstance(node, ast.Call) and _called_name(node) in REGISTRARS \
                and any(isinstance(arg, ast.Lambda) for arg in node.args):
            found.append(f"{_where(path, node)}: an extractor made from a lambda (decorate a named function)")
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and _called_name(node) == "partial" and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in REGISTRARS:
            found.append(f"{_where(path, node)}: a partial of {node.args[0].id} (write @extractor(framework, ...))")
    decorators = {id(d) for node in ast.walk(module) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for d in node.decorator_list}
    for statement in module.body:
        for call in ast.walk(statement):
            if isinstance(call, ast.Call) and _called_name(call) == "extractor" and id(call) not in decorators:
                found.append(f"{_where(path, call)}: extractor(...) as a factory (decorate the function; "
                             "aliases(...) for a function under several names)")
    return found


def source_breaches(path: Path, module: ast.Module) -> list[str]:
    """``ctx.source`` read directly instead of ``ctx.source_as(T)``."""
    return [f"{_where(path, node)}: ctx.source (use ctx.source_as(T))" for node in ast.walk(module)
            if isinstance(node, ast.Attribute) and node.attr == "source"
            and isinstance(node.value, ast.Name) and node.value.id == "ctx"]


def error_breaches(path: Path, module: ast.Module) -> list[str]:
    """A raised message that names the node by hand (``f"node {...}"``, a layer's ``describe()``)."""
    found: list[str] = []
    for node in ast.walk(module):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        text = ast.unparse(node.exc)
        if "node {" in text or ".describe()" in text or "node.name" in text:
            found.append(f"{_where(path, node)}: the node named by hand (use ctx.where())")
    return found


def opset_branch_breaches(path: Path, module: ast.Module) -> list[str]:
    """``opset(ctx)`` read in a body: ONNX versions belong in the records' ``versions``."""
    return [f"{_where(path, node)}: opset(ctx) in a body (register one record per opset range)"
            for node in ast.walk(module) if isinstance(node, ast.Call) and _called_name(node) == "opset"]


CHECKS = (registration_breaches, source_breaches, error_breaches, opset_branch_breaches)


@pytest.mark.parametrize("frontend", sorted(EXTRACTOR_TREES))
def test_extractor_modules_have_the_one_shape(frontend):
    breaches = [line for path, module in _modules(frontend) for check in CHECKS for line in check(path, module)]
    assert not breaches, f"{len(breaches)} breaches:\n" + "\n".join(breaches)


PLANTED = {
    registration_breaches: [
        "def extractors():\n    return [extractor('onnx', 'Relu', relu)]\n",
        "RELU = extractor('onnx', 'Relu', lambda node, ctx: [ctx.input(0)])\n",
        "RELU = extractor('mxnet', 'relu', extract_relu, produces=[ReLU])\n",
        "tf = partial(extractor, 'tf')\n",
        "@extractor('onnx', 'Relu', produces=[ReLU])\ndef relu(node: Node, ctx: ExtractContext) -> Op:\n    ...\n",
    ],
    source_breaches: ["def f(ctx):\n    return ctx.source.blobs\n"],
    error_breaches: [
        "def f(node, ctx):\n    raise ConversionError(f\"node {node.name!r}: bad\")\n",
        "def f(layer):\n    raise ConversionError(f\"{layer.describe()}: bad\")\n",
    ],
    opset_branch_breaches: ["def f(ctx):\n    if opset(ctx) < 13:\n        pass\n"],
}


@pytest.mark.parametrize(("check", "source"), [(c, s) for c, sources in PLANTED.items() for s in sources])
def test_each_rule_catches_a_planted_breach(check, source):
    path = ROOT / "planted.py"
    assert check(path, ast.parse(source))


def test_the_guides_shape_passes():
    source = (
        "@extractor('onnx', 'ChannelAffine', produces=[Multiply, Add])\n"
        "def extract_channel_affine(node: Node, ctx: ExtractContext) -> list[OutPort]:\n"
        "    layer = ctx.source_as(Layer)\n"
        "    raise ConversionError(f'{ctx.where()}: bad')\n"
        "RELUS = aliases('onnx', ['Relu', 'ReLU'], extract_channel_affine)\n"
    )
    module = ast.parse(source)
    assert not [line for check in CHECKS for line in check(ROOT / "guide.py", module)]
