"""PyTorch ``.pt2`` seeds (``torch.export.save`` of two small modules) and their mutators:
the program JSON (node targets and arguments, tensor metas, graph signature), the weight
records (truncated, emptied, swapped, their config), and the archive's layout (members
missing or renamed, zip bytes corrupted)."""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

from robust_tf import WEIRD_DIMS, _json_edit

TARGETS = ("torch.ops.aten.relu.default", "torch.ops.aten.add.Tensor", "torch.ops.aten.conv2d.default",
           "torch.ops.aten.view.default", "torch.ops.aten.junk.default", "torch.ops.higher_order.cond",
           "builtins.getattr", "os.system", "")  # fmt: skip
DTYPES = (0, 1, 3, 4, 5, 6, 7, 8, 11, 12, 13, 99, -1)


def seeds(folder: Path) -> list[Path]:
    """A conv net (static shapes) and an MLP exported with a dynamic batch dimension."""
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)

    class ConvNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.fc = torch.nn.Linear(4, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = torch.nn.functional.max_pool2d(torch.relu(self.conv(x)), 2)
            return torch.softmax(self.fc(y.mean((2, 3))), -1)

    class Mlp(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Linear(6, 8)
            self.b = torch.nn.Linear(8, 3)
            self.register_buffer("shift", torch.linspace(-1, 1, 3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.b(torch.tanh(self.a(x))).reshape(x.shape[0], -1) + self.shift

    batch = torch.export.Dim("batch", min=1, max=64)
    programs = {
        "convnet": torch.export.export(ConvNet().eval(), (torch.randn(1, 3, 8, 8),)),
        "mlp_dynamic": torch.export.export(Mlp().eval(), (torch.randn(2, 6),), dynamic_shapes=({0: batch},)),
    }
    out = []
    for name, program in programs.items():
        path = folder / f"{name}.pt2"
        torch.export.save(program, path)
        out.append(path)
    return out


def _well_formed(program: object) -> bool:
    """The parts the structured edits reach still have the types they expect."""
    module = program.get("graph_module") if isinstance(program, dict) else None
    graph = module.get("graph") if isinstance(module, dict) else None
    if not isinstance(graph, dict) or not isinstance(module.get("signature"), dict):  # type: ignore[union-attr]
        return False
    nodes, values = graph.get("nodes"), graph.get("tensor_values")
    return (
        isinstance(nodes, list)
        and all(isinstance(n, dict) and isinstance(n.get("inputs"), list) for n in nodes)
        and all(isinstance(a, dict) for n in nodes for a in n["inputs"])
        and isinstance(values, dict)
        and all(
            isinstance(m, dict) and all(isinstance(m.get(f), list) for f in ("sizes", "strides"))
            for m in values.values()
        )
    )


def _program_edit(program: dict, rng: random.Random) -> str:  # type: ignore[type-arg]
    """One edit where the loader looks: a node, a tensor meta, the signature, or anywhere."""
    if not _well_formed(program):  # an earlier edit of the same case replaced a part
        return _json_edit(program, rng) if program else "nothing"
    graph = program["graph_module"]["graph"]
    roll = rng.randrange(6)
    if roll == 0 and graph["nodes"]:
        node = rng.choice(graph["nodes"])
        old, node["target"] = node["target"], rng.choice(TARGETS)
        return f"node {node['name']}: target {old} -> {node['target']!r}"
    if roll == 1 and graph["nodes"]:
        node = rng.choice(graph["nodes"])
        args = node["inputs"]
        if args and rng.random() < 0.5:
            i = rng.randrange(len(args))
            names = sorted(graph["tensor_values"])
            args[i]["arg"] = rng.choice(
                (
                    {"as_tensor": {"name": rng.choice([*names, "missing"])}},
                    {"as_int": rng.choice(WEIRD_DIMS)},
                    {"as_ints": [1 << 40, -1]},
                    {"as_none": True},
                    {"as_float": float("nan")},
                    {},
                )
            )
            return f"node {node['name']}: input {i} -> {json.dumps(args[i]['arg'])[:60]}"
        if args:
            del args[rng.randrange(len(args))]
            return f"node {node['name']}: an input removed"
        return _json_edit(node, rng)
    if roll == 2 and graph["tensor_values"]:
        name = rng.choice(sorted(graph["tensor_values"]))
        meta = graph["tensor_values"][name]
        field = rng.choice(("sizes", "strides", "dtype", "storage_offset", "sizes"))
        if field == "dtype":
            meta["dtype"] = rng.choice(DTYPES)
        elif field == "storage_offset":
            meta["storage_offset"] = {"as_int": rng.choice(WEIRD_DIMS)}
        elif meta[field] and rng.random() < 0.7:
            meta[field][rng.randrange(len(meta[field]))] = {"as_int": rng.choice(WEIRD_DIMS)}
        else:
            meta[field] = meta[field][:-1] if meta[field] else [{"as_int": 3}]
        return f"tensor {name}: {field} -> {json.dumps(meta[field])[:60]}"
    if roll == 3:
        return "signature: " + _json_edit(program["graph_module"]["signature"], rng)
    if roll == 4 and graph["nodes"] and rng.random() < 0.5:
        i = rng.randrange(len(graph["nodes"]))
        if rng.random() < 0.5:
            del graph["nodes"][i]
            return f"node {i} removed"
        graph["nodes"].insert(i, graph["nodes"][i])
        return f"node {i} duplicated"
    return _json_edit(program, rng)


def mutate(seed: Path, out: Path, rng: random.Random) -> str:
    with zipfile.ZipFile(seed) as z:
        members = {name: z.read(name) for name in z.namelist()}
    program = next(n for n in members if n.endswith("models/model.json"))
    weights = sorted(n for n in members if "/data/weights/weight_" in n)
    roll = rng.random()
    if roll < 0.5:
        doc = json.loads(members[program])
        what = "; ".join(_program_edit(doc, rng) for _ in range(rng.choice((1, 1, 2))))
        members[program] = json.dumps(doc).encode()
    elif roll < 0.7 and weights:
        name = rng.choice(weights)
        action = rng.randrange(3)
        if action == 0:
            keep = rng.randrange(len(members[name]) + 1)
            members[name] = members[name][:keep]
            what = f"{name}: truncated to {keep}"
        elif action == 1:
            members[name] = b""
            what = f"{name}: emptied"
        else:
            other = rng.choice(weights)
            members[name], members[other] = members[other], members[name]
            what = f"{name} and {other} swapped"
    elif roll < 0.8:
        config = next(n for n in members if n.endswith("model_weights_config.json"))
        doc = json.loads(members[config])
        what = f"{config}: " + _json_edit(doc, rng)
        members[config] = json.dumps(doc).encode()
    elif roll < 0.9:
        name = rng.choice(sorted(members))
        data = members.pop(name)
        if rng.random() < 0.5:
            what = f"{name} removed"
        else:
            renamed = name.replace("/", "/x", 1) if rng.random() < 0.5 else name + ".old"
            members[renamed] = data
            what = f"{name} renamed to {renamed}"
    else:
        with zipfile.ZipFile(out, "w") as z:
            for name, data in members.items():
                z.writestr(name, data)
        raw = bytearray(out.read_bytes())
        if rng.random() < 0.5:
            for _ in range(rng.randrange(1, 6)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            out.write_bytes(bytes(raw))
            return "zip: bytes flipped"
        keep = rng.randrange(len(raw))
        out.write_bytes(bytes(raw[:keep]))
        return f"zip: truncated to {keep}"
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return what
