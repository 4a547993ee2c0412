"""``bench/llm_against_nncf.py --trained``: irconv's and NNCF's data-free and data-aware 4-bit
compression of a trained small Llama, measured on held-out text (see that script)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from trained_decoder import Trained, trained

#: (--weight-format, --ratio)
CASES = [("int4-sym", 1.0), ("int4-asym", 1.0), ("int4-sym", 0.8), ("int4-asym", 0.8)]
MAX_EVAL_TOKENS = 128
MIB = 1 << 20


@dataclass(frozen=True)
class Run:
    seconds: float
    peak: int


#: A small process started before this one grows: it runs each measured command as its
#: own child and reports the child's wall time and peak RSS (``os.wait4``). A child forked
#: from this (large) process would count this one's pages in its peak, even after ``exec``.
LAUNCHER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    start = time.perf_counter()
    child = subprocess.Popen(json.loads(line), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    result = [time.perf_counter() - start, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status), errors]
    print(json.dumps(result), flush=True)
"""


class Launcher:
    """The measuring process: ``run(command)`` gives its wall time and peak RSS."""

    def __init__(self) -> None:
        self._process = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, command: list[str]) -> Run:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        seconds, peak, code, errors = json.loads(self._process.stdout.readline())
        if code:
            raise SystemExit(f"{' '.join(command)} failed ({code}):\n{errors}")
        return Run(seconds, peak)

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait()


def held_out_ids(model: Trained, count: int) -> list[np.ndarray]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model.tokenizer))
    encoded = (np.asarray(item.ids[:MAX_EVAL_TOKENS], np.int64) for item in tokenizer.encode_batch(model.held_out))
    return [ids for ids in encoded if ids.size >= 16][:count]


def _feeds(ids: np.ndarray) -> dict[str, np.ndarray]:
    return {"input_ids": ids[None], "attention_mask": np.ones((1, ids.size), np.int64), "position_ids": np.arange(ids.size)[None]}


def reference_logits(onnx: Path, sequences: list[np.ndarray]) -> list[np.ndarray]:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
    return [session.run(["logits"], _feeds(ids))[0][0] for ids in sequences]


def openvino_logits(xml: Path, sequences: list[np.ndarray]) -> list[np.ndarray]:
    from irconv.runtime import compile_for_comparison

    compiled = compile_for_comparison(xml)
    request = compiled.create_infer_request()
    return [np.array(request.infer(_feeds(ids))[compiled.output("logits")][0]) for ids in sequences]


def perplexity(logits: list[np.ndarray], sequences: list[np.ndarray]) -> float:
    """exp of the mean next-token negative log-likelihood over every held-out token."""
    total, count = 0.0, 0
    for scores, ids in zip(logits, sequences, strict=True):
        scores = scores[:-1].astype(np.float64)
        shifted = scores - scores.max(-1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
        total -= float(log_probs[np.arange(ids.size - 1), ids[1:]].sum())
        count += ids.size - 1
    return float(np.exp(total / count))


def relative_error(got: list[np.ndarray], expected: list[np.ndarray]) -> float:
    difference = sum(float(np.square(g - e).sum()) for g, e in zip(got, expected, strict=True))
    return float(np.sqrt(difference / sum(float(np.square(e).sum()) for e in expected)))


def data_aware_table(
    folder: Path, hidden: int, layers: int, vocab: int, steps: int, group: int, samples: int, evaluated: int, seed: int = 0
) -> None:
    launcher = Launcher()  # while this process is small
    model = trained(folder / "model", hidden, layers, vocab, steps, seed=seed)
    calibration = folder / "calibration.txt"
    step = max(1, len(model.calibration) // samples)  # spread over the training text's modules
    calibration.write_text("\n".join(model.calibration[::step][:samples]) + "\n")
    sequences = held_out_ids(model, evaluated)
    expected = reference_logits(model.onnx, sequences)
    facts = model.facts
    print(
        f"Llama: hidden {facts['hidden_size']}, {facts['num_hidden_layers']} layers, vocabulary {facts['vocab_size']}, "
        f"{facts['parameters']} parameters, trained {facts['steps']} steps (seed {facts.get('seed', 0)}, final loss {facts['final_loss']:.2f}); "
        f"group {group}; {samples} calibration paragraphs; {len(sequences)} held-out paragraphs "
        f"({sum(s.size for s in sequences)} tokens)\n"
    )
    print(f"f32 perplexity (onnxruntime): {perplexity(expected, sequences):.3f}\n")
    print("| mode | ratio | method | logits error | perplexity | wall s | peak RSS MiB |")
    print("|---|---:|---|---:|---:|---:|---:|")
    script = Path(__file__).with_name("llm_against_nncf.py")
    for weight_format, ratio in CASES:
        name = f"{weight_format}_{ratio}"
        irconv = [sys.executable, "-m", "irconv", "convert", str(model.onnx), "--weight-format", weight_format]
        irconv += ["--group-size", str(group), "--ratio", str(ratio)]
        nncf = [sys.executable, str(script), "--nncf-child", str(model.onnx)]
        data = [str(calibration), str(model.tokenizer), str(samples)]
        methods = {
            "irconv data-free": irconv + ["-o", str(folder / f"irconv_free_{name}.xml")],
            "irconv --dataset": irconv + ["-o", str(folder / f"irconv_aware_{name}.xml"), "--dataset", str(calibration)]
            + ["--subset-size", str(samples)],
            "irconv --dataset --awq": irconv + ["-o", str(folder / f"irconv_awq_{name}.xml"), "--dataset", str(calibration)]
            + ["--subset-size", str(samples), "--awq"],
            "NNCF data-free": nncf + [str(folder / f"nncf_free_{name}.xml"), weight_format, str(group), str(ratio)],
            "NNCF AWQ + scale estimation": nncf
            + [str(folder / f"nncf_aware_{name}.xml"), weight_format, str(group), str(ratio), *data],
        }  # fmt: skip
        for method, command in methods.items():
            run = launcher.run(command)
            xml = Path(command[command.index("-o") + 1]) if "-o" in command else Path(command[4])
            logits = openvino_logits(xml, sequences)
            print(
                f"| {weight_format} | {ratio} | {method} | {relative_error(logits, expected):.4f} "
                f"| {perplexity(logits, sequences):.3f} | {run.seconds:.1f} | {run.peak / MIB:.0f} |",
                flush=True,
            )
    launcher.close()
