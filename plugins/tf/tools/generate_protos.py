"""Regenerate the vendored protobuf modules of ``irconv_tf.proto`` (and their ``.pyi`` type
stubs, which mypy reads) from their ``.proto`` sources.

Run from anywhere: ``python plugins/tf/tools/generate_protos.py``. Needs ``grpcio-tools``
whose bundled protoc is not newer than the protobuf runtime we declare (grpcio-tools 1.85.1
bundles protoc 35.1 = gencode 7.35.1; the runtime range is ``protobuf>=7.35.1,<8``).
Each generated module records the SHA-256 of its source so a test notices a stale module.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PROTO_DIR = SRC / "irconv_tf" / "proto"
MARK = "# irconv-source-sha256: "


def proto_sources() -> list[Path]:
    return sorted(PROTO_DIR.glob("*.proto"))


def source_digest(proto: Path) -> str:
    return hashlib.sha256(proto.read_bytes()).hexdigest()


def generate(out_dir: Path) -> dict[str, str]:
    """Run protoc over every source into ``out_dir``; return {module or stub file name: text}."""
    # protoc runs in its own process: in-process it can clash with an imported TensorFlow.
    args = [sys.executable, "-m", "grpc_tools.protoc", f"-I{SRC}", f"--python_out={out_dir}", f"--pyi_out={out_dir}"]
    args += [str(p.relative_to(SRC)) for p in proto_sources()]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"protoc failed: {result.stderr}")
    modules = {}
    for proto in proto_sources():
        for name in (proto.stem + "_pb2.py", proto.stem + "_pb2.pyi"):
            text = (out_dir / "irconv_tf" / "proto" / name).read_text()
            modules[name] = f"{MARK}{source_digest(proto)}\n{text}"
    return modules


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in generate(Path(tmp)).items():
            (PROTO_DIR / name).write_text(text)
            print(f"wrote {PROTO_DIR / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
