"""With `pip install irconv` (core + built-ins, no front end): IR emitter present, no loaders
but the IR reader, and an ONNX file still gets the "install irconv-onnx" answer."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    plugins = json.loads(subprocess.run(["irconv", "plugins", "--json"], capture_output=True, text=True, check=True).stdout)
    names = {p["name"]: p for p in plugins}
    ok = all(names.get(n, {}).get("status") == "active" for n in ("opset", "ir", "transforms", "layout", "prep"))
    ok = ok and not any(n in names for n in ("onnx", "tf", "caffe"))
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "x.onnx"
        model.write_bytes(b"\x08\x07\x12\x04test")
        run = subprocess.run(["irconv", "convert", str(model)], capture_output=True, text=True, cwd=tmp)
    print(f"plugins: {sorted(names)}; convert exit {run.returncode}: {run.stderr.strip()}")
    ok = ok and run.returncode != 0 and "install irconv-onnx" in run.stderr
    print("builtins check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
