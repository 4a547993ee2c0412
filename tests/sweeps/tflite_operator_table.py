"""Which TFLite builtin operators OpenVINO's TFLite front end reads, against irconv's extractors.

OpenVINO publishes no list of the operators its front end reads, so each builtin operator
of the schema is written into a one-operator model (two float [2, 2] inputs, one float
output, no options; ``plugins/tflite/tests/tiny_models.py``) and read with
``openvino.Core().read_model``: "No translator found" means the front end has no
translator for it; any other outcome (read, or refused for the made-up inputs) means it
has one. irconv's side is its registry of TFLite extractors.

    python tests/sweeps/tflite_operator_table.py [--dir /tmp/tflite-operators]

Prints the counts and the operators only one of the two reads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "plugins" / "tflite" / "tests"))  # tiny_models: the flatbuffers writer

#: Codes that are no operator of their own.
NOT_OPERATORS = {"CUSTOM", "DELEGATE", "PLACEHOLDER_FOR_GREATER_OP_CODES"}


def openvino_reads(folder: Path) -> set[str]:
    import openvino as ov
    from irconv_tflite.schema import tflite_generated as fb
    from tiny_models import Operand, build, single_op_model

    core = ov.Core()
    read = set()
    for name, code in sorted(vars(fb.BuiltinOperator).items()):
        if name.startswith("_") or name in NOT_OPERATORS:
            continue
        path = folder / f"{name}.tflite"
        path.write_bytes(build(single_op_model(code, [Operand("a", [2, 2]), Operand("b", [2, 2])], {"y": [2, 2]})))
        try:
            core.read_model(str(path))
        except Exception as exc:  # noqa: BLE001 - the message says whether a translator exists
            if "No translator found" in str(exc):
                continue
        read.add(name)
    return read


def irconv_reads() -> set[str]:
    from irconv.plugins.manager import PluginHost

    registry = PluginHost().registry()
    return {p.item.op for p in registry.all_extractors("tflite") if not p.item.domain}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/tflite-operators"))
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    openvino, irconv = openvino_reads(args.dir), irconv_reads()
    print("| front end | builtin operators read |")
    print("|---|---:|")
    print(f"| OpenVINO | {len(openvino)} |")
    print(f"| irconv | {len(irconv)} |")
    print(f"\nOpenVINO only ({len(openvino - irconv)}): {', '.join(sorted(openvino - irconv)) or '-'}")
    print(f"irconv only ({len(irconv - openvino)}): {', '.join(sorted(irconv - openvino)) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
