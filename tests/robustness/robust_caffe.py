"""Caffe seeds (public deploy prototxts, small ones) and mutators: prototxt token edits,
caffemodel protobuf edits."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

SHARED = Path("/work/shared/models/caffe")
SMALL = ("mtcnn_pnet", "mtcnn_onet", "squeezenet_v1_1")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[-+]?\d[\w.+-]*|[A-Za-z_]\w*|[{}:]')
NUMBERS = (
    "0",
    "-1",
    "1",
    "2",
    "3",
    "65536",
    "2147483648",
    "1e30",
    "-1e30",
    "nan",
    "1099511627776",
    "0.5",
    "99999999999",
)
WORDS = ("Convolution", "Pooling", "ReLU", "Junk", "Input", "Concat", "Reshape", "Eltwise", "MAX", "AVE", "true")


def prototxt_seeds(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in SMALL:
        source = SHARED / name / "deploy.prototxt"
        if source.exists():
            dest = folder / f"{name}.prototxt"
            shutil.copyfile(source, dest)
            out.append(dest)
    return out


def mutate_prototxt(seed: Path, out: Path, rng: random.Random) -> str:
    text = seed.read_text()
    done = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        text, what = _edit(text, rng)
        done.append(what)
    out.write_text(text)
    return "; ".join(done)


def _edit(text: str, rng: random.Random) -> tuple[str, str]:
    """Mostly value edits (numbers, names, enum words) that keep the syntax; some syntax edits."""
    tokens = list(_TOKEN.finditer(text))
    roll = rng.random()
    if roll < 0.08:  # a whole line
        lines = text.splitlines(keepends=True)
        i = rng.randrange(len(lines))
        if rng.random() < 0.5:
            del lines[i]
            return "".join(lines), f"line {i + 1} deleted"
        lines.insert(i, lines[i])
        return "".join(lines), f"line {i + 1} duplicated"
    if roll < 0.55:
        pool = [t for t in tokens if t.group()[0].isdigit() or t.group()[0] in "+-"]
    elif roll < 0.85:
        pool = [t for t in tokens if t.group().startswith('"')]
    elif roll < 0.95:
        pool = [t for t in tokens if t.group()[0].isupper()]  # enum values: MAX, AVE, SUM, ...
    else:
        pool = tokens
    t = rng.choice(pool or tokens)
    old = t.group()
    if roll >= 0.95:
        new = rng.choice(("", "{", "}", ":", *WORDS))
    elif old.startswith('"'):
        names = [m.group() for m in tokens if m.group().startswith('"')]
        new = rng.choice([*names, '"missing"', '""', '"<&\\"\'>"', '"名前"'])
    elif old[0].isdigit() or old[0] in "+-":
        new = rng.choice(NUMBERS)
    else:
        new = rng.choice(("MAX", "AVE", "SUM", "PROD", "STOCHASTIC", "CAFFE", "JUNK", "true"))
    return text[: t.start()] + new + text[t.end() :], f"token {old[:20]!r} -> {new[:20]!r} at {t.start()}"


def make_prototxt_case(seed: Path, in_dir: Path, rng: random.Random) -> tuple[Path, list[str], str]:
    """``seed`` is a caffemodel seed: its prototxt is mutated, its weights given as they are."""
    out = in_dir / "model.prototxt"
    weights = in_dir / "model.caffemodel"
    shutil.copyfile(seed, weights)
    return out, ["--weights", str(weights)], mutate_prototxt(seed.with_suffix(".prototxt"), out, rng)


def caffemodel_seeds(folder: Path) -> list[Path]:
    """Each prototxt seed with a seeded random-weight caffemodel beside it (same stem)."""
    from irconv_caffe.testing.random_model import write_random_caffemodel

    out = []
    for proto in prototxt_seeds(folder):
        weights = proto.with_suffix(".caffemodel")
        write_random_caffemodel(proto, weights, seed=0)
        out.append(weights)
    return out


def mutate_caffemodel(seed: Path, out: Path, rng: random.Random) -> str:
    from irconv_caffe.proto import caffe_pb2 as pb

    data = seed.read_bytes()
    if rng.random() < 0.1:
        buf = bytearray(data)
        for _ in range(rng.randrange(1, 6)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        out.write_bytes(bytes(buf))
        return "bytes: flipped"
    if rng.random() < 0.05:
        keep = rng.randrange(len(data))
        out.write_bytes(data[:keep])
        return f"bytes: truncated to {keep}"
    net = pb.NetParameter.FromString(data)
    layers = [layer for layer in net.layer if layer.blobs] or list(net.layer)
    layer = rng.choice(layers)
    action = rng.randrange(6)
    if action == 0 and layer.blobs:
        blob = rng.choice(layer.blobs)
        if blob.shape.dim:
            i = rng.randrange(len(blob.shape.dim))
            blob.shape.dim[i] = rng.choice((0, 1, 2, 1 << 20, 1 << 40, -1 & ((1 << 63) - 1)))
            what = f"{layer.name}: blob dim {i} -> {blob.shape.dim[i]}"
        else:
            blob.shape.dim.append(3)
            what = f"{layer.name}: blob dim added"
    elif action == 1 and layer.blobs:
        blob = rng.choice(layer.blobs)
        n = len(blob.data)
        keep = rng.choice((0, 1, n // 2, max(n - 1, 0)))
        del blob.data[keep:]
        what = f"{layer.name}: blob data {n} -> {keep}"
    elif action == 2 and layer.blobs:
        del layer.blobs[-1]
        what = f"{layer.name}: last blob removed"
    elif action == 3:
        layer.blobs.add().CopyFrom(layer.blobs[0] if layer.blobs else pb.BlobProto())
        what = f"{layer.name}: blob added"
    elif action == 4:
        layer.name = rng.choice([lay.name for lay in net.layer] + ["missing", ""])
        what = f"layer renamed to {layer.name!r}"
    else:
        layer.type = rng.choice(WORDS)
        what = f"{layer.name}: type -> {layer.type}"
    out.write_bytes(net.SerializeToString())
    return what


def make_caffemodel_case(seed: Path, in_dir: Path, rng: random.Random) -> tuple[Path, list[str], str]:
    proto = in_dir / "model.prototxt"
    shutil.copyfile(seed.with_suffix(".prototxt"), proto)
    weights = in_dir / "model.caffemodel"
    return proto, ["--weights", str(weights)], mutate_caffemodel(seed, weights, rng)
