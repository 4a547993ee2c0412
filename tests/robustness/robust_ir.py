"""IR (.xml + .bin) seeds and mutators: XML attribute and element edits, weights truncation."""

from __future__ import annotations

import random
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import robust_onnx

ELEMENT_TYPES = ("f32", "f16", "i64", "i32", "u8", "boolean", "bf16", "dynamic", "junk", "", "f64", "u1", "string")
NUMBERS = ("0", "-1", "1", "3", "4294967296", "1099511627776", "-9999999999", "1.5", "x", "", "999999999999999999999")
SHAPES = ("", "1", "?", "-1", "1,3,8,8", "0,0", "1..8", "1099511627776,1099511627776", "a,b", "-5", "1,,2")
TYPES = (
    "Relu",
    "ReLU",
    "Add",
    "Convolution",
    "Const",
    "Parameter",
    "Result",
    "Junk",
    "If",
    "Loop",
    "TensorIterator",
    "",
)
VERSIONS = ("opset1", "opset8", "opset13", "opset99", "extension", "", "opset0")


def seeds(folder: Path) -> list[Path]:
    """IRs irconv writes for the ONNX seed models."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for onnx_path in robust_onnx.seeds(folder / "onnx"):
        xml = folder / f"{onnx_path.stem}.xml"
        proc = subprocess.run(
            [sys.executable, "-m", "irconv", "convert", str(onnx_path), "-o", str(xml)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"seed IR for {onnx_path.name} failed: {proc.stderr}")
        out.append(xml)
    return out


def _edit_attribute(root: ET.Element, rng: random.Random) -> str:
    elements = [e for e in root.iter() if e.attrib]
    e = rng.choice(elements)
    key = rng.choice(sorted(e.attrib))
    if key == "element_type":
        value = rng.choice(ELEMENT_TYPES)
    elif key in ("shape", "strides", "pads_begin", "pads_end", "dilations", "kernel", "axes"):
        value = rng.choice(SHAPES)
    elif key == "type":
        value = rng.choice(TYPES)
    elif key == "version":
        value = rng.choice(VERSIONS)
    elif key == "precision":
        value = rng.choice(("FP32", "FP16", "I64", "BOOL", "JUNK", ""))
    elif key in ("names", "name"):
        value = rng.choice(("", "x", "<&\"'>\n", "名前", "a,b", "a" * 3000))
    elif rng.random() < 0.6:
        value = rng.choice(NUMBERS)
    else:
        value = rng.choice(("", "true", "false", "numpy", "none", "explicit", "xyz"))
    e.set(key, value)
    return f"xml: <{e.tag} {key}={value[:30]!r}>"


def _edit_structure(root: ET.Element, rng: random.Random) -> str:
    parents = [(p, c) for p in root.iter() for c in list(p)]
    parent, child = rng.choice(parents)
    action = rng.randrange(4)
    if action == 0:
        parent.remove(child)
        return f"xml: removed <{child.tag}>"
    if action == 1:
        parent.append(child)  # a duplicate (same element twice)
        return f"xml: duplicated <{child.tag}>"
    if action == 2:
        edges = root.find("edges")
        if edges is not None and len(edges):
            edge = rng.choice(list(edges))
            edge.set(rng.choice(("from-layer", "to-layer", "from-port", "to-port")), rng.choice(NUMBERS[:5]))
            return "xml: rewired an edge"
    dims = [e for e in root.iter("dim")]
    if dims:
        d = rng.choice(dims)
        d.text = rng.choice(NUMBERS)
        return f"xml: <dim>{d.text}</dim>"
    return "xml: nothing"


def mutate(seed: Path, out: Path, rng: random.Random) -> str:
    """``out`` (model.xml, with model.bin copied beside it) gets one to three edits."""
    bin_path = out.with_suffix(".bin")
    if rng.random() < 0.15:
        blob = bin_path.read_bytes()
        keep = rng.choice((0, 1, len(blob) // 2, max(len(blob) - 1, 0)))
        bin_path.write_bytes(blob[:keep])
        return f"bin: truncated to {keep} of {len(blob)} bytes"
    if rng.random() < 0.05:
        text = seed.read_bytes()
        i = rng.randrange(len(text))
        out.write_bytes(text[:i] + bytes([rng.randrange(256)]) + text[i + 1 :])
        return "xml: one byte changed"
    root = ET.parse(seed).getroot()
    done = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        done.append(_edit_attribute(root, rng) if rng.random() < 0.6 else _edit_structure(root, rng))
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)
    return "; ".join(done)
