"""Error messages quote what the model file names through ``irconv.errors.quoted``/``shortened``.

A name or a text taken from the input can be any length (a mutated file's 5,000-character node
name); a message that interpolates it whole is a screenful. This check reads each converted
plugin's source and flags, in an error message, an interpolation shown as ``repr`` (``{x!r}``,
``%r``) or between quotes (``'{x}'``) that does not go through ``quoted(...)`` or
``shortened(...)``. An error message is an f-string inside a ``raise``, inside a call of an
``...Error`` class, assigned to ``where``, or returned by a ``where``/``describe`` method (the
texts messages start with).

``CONVERTED`` lists the source trees checked; a plugin goes in once its messages are
converted. ``FROM_THE_CODE`` lists the interpolations whose values come from irconv's code or
are bounded by it, not from the file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Source trees whose error messages quote names through quoted/shortened.
CONVERTED = (
    "plugins/onnx/src",
    "plugins/tf/src",
    "plugins/tflite/src",
    "plugins/caffe/src",
    "plugins/mxnet/src",
    "plugins/torch/src",
    "plugins/paddle/src",
    "plugins/jax/src",
    "plugins-builtin/llm/src",
    "plugins-builtin/ir/src",
    "plugins-builtin/opset/src",
    "plugins-builtin/transforms/src",
)

#: (path relative to the repository, the interpolated expression as ``ast.unparse`` spells it):
#: values irconv's code gives or bounds, never a name from the file.
FROM_THE_CODE = {
    # a module's __getattr__: the attribute name Python code asked for
    ("plugins-builtin/opset/src/irconv_opset/__init__.py", "__name__"),
    ("plugins-builtin/opset/src/irconv_opset/__init__.py", "name"),
    # four bytes of the file's header
    ("plugins/tflite/src/irconv_tflite/model.py", "bytes(self.data[4:8])"),
}

#: Calls whose result is a message part already cut to length.
_CUTTERS = {"quoted", "shortened", "shortened_quotes"}
_QUOTES = ("'", '"', "`")


def _is_cut(expr: ast.expr) -> bool:
    func = expr.func if isinstance(expr, ast.Call) else None
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in _CUTTERS


def _quoted_whole(text: ast.JoinedStr) -> list[str]:
    """The interpolations of ``text`` shown as repr or between quotes without being cut."""
    found = []
    parts = text.values
    for i, part in enumerate(parts):
        if not isinstance(part, ast.FormattedValue) or _is_cut(part.value):
            continue
        before = parts[i - 1] if i else None
        after = parts[i + 1] if i + 1 < len(parts) else None
        between_quotes = (
            isinstance(before, ast.Constant) and str(before.value).endswith(_QUOTES)
            and isinstance(after, ast.Constant) and str(after.value).startswith(_QUOTES)
        )
        if part.conversion == ord("r") or between_quotes:
            found.append(ast.unparse(part.value))
    return found


def _message_roots(tree: ast.Module) -> list[ast.AST]:
    """The nodes whose strings are error messages or the ``where`` texts they start with."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            roots.append(node.exc)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name.endswith("Error"):
                roots.append(node)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "where" for t in node.targets):
            roots.append(node.value)
        elif isinstance(node, ast.FunctionDef) and node.name in ("where", "describe"):
            roots.extend(n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None)
    return roots


def unquoted_names(source_tree: Path, root: Path = ROOT) -> list[str]:
    """``path:line: expression`` (path relative to ``root``) for every name a message in
    ``source_tree`` quotes whole."""
    found: set[str] = set()
    for path in sorted(source_tree.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/testing/" in rel or path.name.endswith("_pb2.py") or "/schema/" in rel:
            continue
        module = ast.parse(path.read_text(), str(path))
        for message in _message_roots(module):
            for node in ast.walk(message):
                if isinstance(node, ast.JoinedStr):
                    found.update(
                        f"{rel}:{node.lineno}: {expr}" for expr in _quoted_whole(node) if (rel, expr) not in FROM_THE_CODE
                    )
                elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
                      and isinstance(node.left, ast.Constant) and "%r" in str(node.left.value)):
                    found.add(f"{rel}:{node.lineno}: %r")
    return sorted(found)


@pytest.mark.parametrize("tree", CONVERTED)
def test_messages_quote_names_from_the_file_cut_to_length(tree):
    if not (ROOT / tree).is_dir():
        pytest.skip(f"{tree} is not in this checkout")
    whole = unquoted_names(ROOT / tree)
    assert not whole, (
        "error messages interpolate a name or text from the model file whole; wrap it in "
        "irconv.errors.quoted(name) or shortened(repr(value)) (or list it in FROM_THE_CODE if the "
        "code, not the file, gives it):\n" + "\n".join(whole)
    )


def test_the_check_finds_a_name_quoted_whole(tmp_path):
    """The checker itself flags the forms it is for and passes their cut spellings."""
    (tmp_path / "probe.py").write_text(
        "def f(node, where, key):\n"
        "    if key:\n"
        "        raise ValueError(f'node {node.name!r} ok {quoted(node.name)}')\n"
        "    if where:\n"
        "        raise KeyError(f\"field '{key}' of {shortened(repr(key))}\")\n"
        "    raise TypeError('bad %r' % key)\n"
        "def describe(self):\n"
        "    return f'layer {self.name!r}'\n"
        "def g(x):\n"
        "    return f'{x!r} is not a message'\n"
    )
    found = unquoted_names(tmp_path, tmp_path)
    assert [line.split(": ", 1)[1] for line in found] == ["node.name", "key", "%r", "self.name"]
