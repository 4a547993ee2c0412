"""With only irconv-core installed: `irconv convert x.onnx` must say what to install.

Run by tox's `core` environment (not collected by pytest: it needs that install set).
"""

import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "x.onnx"
        model.write_bytes(b"\x08\x07\x12\x04test")
        run = subprocess.run(["irconv", "convert", str(model)], capture_output=True, text=True, cwd=tmp)
        leftovers = sorted(p.name for p in Path(tmp).iterdir())
    message = run.stderr.strip()
    print(f"exit {run.returncode}: {message}")
    ok = run.returncode != 0 and "install irconv-onnx" in message and "Traceback" not in message
    ok = ok and leftovers == ["x.onnx"]
    print("core-alone check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
