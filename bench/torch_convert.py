"""PyTorch conversion, irconv vs ``openvino.convert_model``: time, peak memory, IR latency.

Each model (built in the child from a fixed seed: a ResNet-18-shaped CNN, a MobileNetV3-
style CNN, BERT and Llama from small ``transformers`` configs with random weights) is
converted in a separate process by ``irconv.convert_model(module, example_input=...)`` +
``irconv.save_model`` and by ``openvino.convert_model(module, example_input=...)`` +
``openvino.save_model``, each tool first in turn. Both keep f32 weights. The
table gives the median whole-process wall time, the conversion call's own median time
(torch import and model construction excluded), the largest peak RSS (``os.wait4``), and
the median CPU latency of each tool's IR (compiled for comparison: f32 inference
precision, same inputs; the IRs run in turn, one inference each, so machine load falls on
both alike) and its layer count (``<layer>`` elements of the .xml). Children run with
bytecode caching on, as a pip-installed irconv has it.

    python bench/torch_convert.py                 # 3 rounds
    python bench/torch_convert.py --rounds 5 --models resnet18 bert
    python bench/torch_convert.py --baseline-src /tmp/old/plugins/torch/src   # and an older irconv-torch
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import Process, Runs, alternating, run_process

CHILD = r'''
import json, sys, time
import torch
from torch import nn
tool, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False); self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False); self.bn2 = nn.BatchNorm2d(cout)
        self.down = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        skip = x if self.down is None else self.down(x)
        return torch.relu(self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x))))) + skip)


def resnet18():
    layers, cin = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)], 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]; cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    return nn.Sequential(*layers), torch.randn(1, 3, 224, 224)


def mobilenet_v3_style():
    def block(c, e):
        return nn.Sequential(nn.Conv2d(c, e, 1, bias=False), nn.BatchNorm2d(e), nn.Hardswish(),
                             nn.Conv2d(e, e, 3, 1, 1, groups=e, bias=False), nn.BatchNorm2d(e), nn.Hardswish(),
                             nn.Conv2d(e, c, 1, bias=False), nn.BatchNorm2d(c))
    layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.Hardswish()]
    layers += [block(32, 96) for _ in range(6)]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 1000)]
    return nn.Sequential(*layers), torch.randn(1, 3, 224, 224)


def bert():
    import transformers
    config = transformers.BertConfig(vocab_size=30522, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                                     intermediate_size=1024)
    model = transformers.BertModel(config); model.config.return_dict = False
    return model, (torch.randint(0, 30522, (1, 128)), torch.ones(1, 128, dtype=torch.int64))


class CausalLM(nn.Module):
    def __init__(self, model):
        super().__init__(); self.model = model

    def forward(self, ids, mask):
        return self.model(input_ids=ids, attention_mask=mask, use_cache=False).logits


def llama():
    import transformers
    config = transformers.LlamaConfig(vocab_size=32000, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                                      num_attention_heads=8, num_key_value_heads=4)
    config._attn_implementation = "sdpa"
    return CausalLM(transformers.LlamaForCausalLM(config)), (torch.randint(0, 32000, (1, 64)),
                                                             torch.ones(1, 64, dtype=torch.int64))


model, example = {"resnet18": resnet18, "mobilenet_v3_style": mobilenet_v3_style, "bert": bert, "llama": llama}[name]()
model = model.eval()
for layer in model.modules():
    if isinstance(layer, nn.BatchNorm2d):
        layer.running_mean.uniform_(-0.5, 0.5); layer.running_var.uniform_(0.5, 1.5)
start = time.perf_counter()
if tool == "irconv":
    import irconv
    irconv.save_model(irconv.convert_model(model, example_input=example), out, compress_to_fp16=False)
else:
    import openvino as ov
    ov.save_model(ov.convert_model(model, example_input=example), out, compress_to_fp16=False)
seconds = time.perf_counter() - start
example = example if isinstance(example, tuple) else (example,)
torch.save(example, out + ".inputs.pt")
with torch.no_grad():
    torch.save(model(*example), out + ".expected.pt")
print(json.dumps({"convert": seconds}))
'''

MODELS = ("resnet18", "mobilenet_v3_style", "bert", "llama")


def run(tool: str, model: str, out: Path, baseline_src: str | None) -> tuple[Process, float]:
    """The measured process and its conversion call's seconds. ``irconv-baseline`` is irconv
    with ``baseline_src`` (another irconv-torch source tree) ahead of the installed one on the path."""
    env = dict(os.environ)
    if tool == "irconv-baseline":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [baseline_src, env.get("PYTHONPATH")]))
    done = run_process([sys.executable, "-c", CHILD, tool.removesuffix("-baseline"), model, str(out)], env=env,
                       check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{tool} on {model} failed: {done.stderr.strip().splitlines()[-1:]}")
    return done, json.loads(done.stdout.strip().splitlines()[-1])["convert"]


def latencies(xmls: dict[str, Path], runs: int) -> dict[str, tuple[float, list]]:
    """Median milliseconds of one CPU inference of each tool's IR, and its outputs. The IRs
    are compiled together and run in turn, one inference each, so load on a shared
    machine falls on every tool alike."""
    import openvino as ov
    import torch
    from irconv.runtime import compile_for_comparison

    core = ov.Core()
    requests, inputs, times = {}, {}, {}
    for tool, xml in xmls.items():
        inputs[tool] = [t.numpy() for t in torch.load(str(xml) + ".inputs.pt")]
        requests[tool] = compile_for_comparison(xml, core=core).create_infer_request()
        times[tool] = []
        for _ in range(5):
            requests[tool].infer(inputs[tool])
    for _ in range(runs):
        for tool, request in requests.items():
            start = time.perf_counter()
            request.infer(inputs[tool])
            times[tool].append((time.perf_counter() - start) * 1000)
    return {tool: (statistics.median(times[tool]),
                   [request.get_output_tensor(i).data.copy() for i in range(len(request.model_outputs))])
            for tool, request in requests.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=50, help="inferences per latency measurement")
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=MODELS)
    parser.add_argument("--baseline-src", help="an irconv-torch source folder (its src/) measured as a third "
                                               "tool, irconv-baseline, in the same rounds")
    args = parser.parse_args()
    tools = ("irconv", "ovc") + (("irconv-baseline",) if args.baseline_src else ())
    # Measure what a user runs: bytecode cached (some sandboxes disable it; pip-installed
    # torch and openvino come with theirs), irconv's plugin summary cache warm.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "irconv", "plugins"], check=True, capture_output=True)
    work = Path(tempfile.mkdtemp(prefix="torch_bench_"))
    print("| model | tool | process s (median) | convert_model s (median) | peak RSS MiB | IR latency ms | IR layers | "
          "max abs diff vs torch |")
    print("|---|---|---|---|---|---|---|---|")
    try:
        for model in args.models:
            runs = {tool: Runs() for tool in tools}
            converts: dict[str, list[float]] = {tool: [] for tool in tools}
            for _, tool in alternating(tools, args.rounds):
                done, convert = run(tool, model, work / f"{model}_{tool}.xml", args.baseline_src)
                runs[tool].add(done)
                converts[tool].append(convert)
            import torch

            measured = latencies({tool: work / f"{model}_{tool}.xml" for tool in tools}, args.runs)
            for tool, found in runs.items():
                xml = work / f"{model}_{tool}.xml"
                ms, outputs = measured[tool]
                expected = torch.load(str(xml) + ".expected.pt")
                expected = expected if isinstance(expected, (tuple, list)) else (expected,)
                diff = max(float(abs(o - e.numpy()).max()) for o, e in zip(outputs, expected, strict=False))
                layers = xml.read_text().count("<layer ")
                print(f"| {model} | {tool} | {found.wall:.2f} | "
                      f"{statistics.median(converts[tool]):.2f} | {found.peak_mib:.0f} | {ms:.2f} | {layers} | "
                      f"{diff:.1e} |")
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
