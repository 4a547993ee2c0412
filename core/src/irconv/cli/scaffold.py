"""``irconv new-plugin NAME``: write a ready plugin distribution whose tests pass as generated.

The plugin declares an op of its own custom opset, an extractor for one framework op, a back
transform lowering the op into stock OpenVINO ops, and an option turning that off: the four
things a plugin author writes, in the shape docs/plugin-guide.md describes.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from string import Template
from typing import Any

from irconv.errors import UsageError, UserError

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def add_parser(commands: Any) -> None:
    p = commands.add_parser("new-plugin", help="write a new plugin distribution (op, extractor, transform, "
                            "option, tests) ready to install")
    p.add_argument("name", help="the plugin's name: lower case, e.g. myops (distribution irconv-myops)")
    p.add_argument("--framework", default="onnx", help="the framework its extractor is for (default: onnx)")
    p.add_argument("-o", dest="out", type=Path, default=None, help="folder to create (default: ./irconv-NAME)")
    p.set_defaults(run=run)


def placeholders(name: str, framework: str) -> dict[str, str]:
    if not _NAME.match(name):
        raise UsageError(f"plugin name {name!r}: use lower case letters, digits and _, starting with a letter")
    if not _NAME.match(framework):
        raise UsageError(f"--framework {framework!r}: a framework's loader name, e.g. onnx, tf, caffe")
    camel = "".join(part.capitalize() for part in name.split("_"))
    return {
        "name": name,
        "package": f"irconv_{name}",
        "distribution": f"irconv-{name.replace('_', '-')}",
        "framework": framework,
        "domain": f"com.{name}",
        "opset": f"irconv_{name}",
        "Op": f"{camel}ScaleShift",
        "flag": f"--{name.replace('_', '-')}-keep",
        "core_range": ">=0.2,<0.3",
    }


def write_plugin(folder: Path, name: str, framework: str) -> list[Path]:
    """Write the plugin's files under ``folder`` (which must not exist); returns them."""
    from irconv.cli.scaffold_templates import FILES

    values = placeholders(name, framework)
    if folder.exists():
        raise UserError(f"{folder} exists already; choose another folder with -o")
    written = []
    for relative, text in FILES.items():
        path = folder / Template(relative).substitute(values)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(text).substitute(values))
        written.append(path)
    return written


def run(args: argparse.Namespace) -> int:
    folder = args.out or Path.cwd() / f"irconv-{args.name.replace('_', '-')}"
    written = write_plugin(folder, args.name, args.framework)
    print(f"wrote {len(written)} files to {folder}")
    print(f"next: pip install -e {folder}[test] && python -m pytest -q {folder / 'tests'}")
    return 0
