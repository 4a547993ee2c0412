"""irconv's weight compression against NNCF's data-free ``compress_weights`` on OVC's IR.

Same model, same mode, group size and ratio; both IRs run in OpenVINO on the same prompts
and are compared with onnxruntime's f32 logits. irconv's error must be no larger, and its
``.bin`` no larger.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from accuracy import openvino_logits, prompts, reference_logits, relative_error
from decoders import Decoder

from conftest import convert

nncf = pytest.importorskip("nncf")

GROUP = 32
#: Mixed precision (ratio < 1): both choose the int8 layers by the same data-free criterion.
CASES = [("int8", 1.0), ("int4-sym", 1.0), ("int4-asym", 1.0), ("int4-sym", 0.8), ("int4-asym", 0.8)]


def _nncf_mode(weight_format: str) -> Any:
    modes = {
        "int8": nncf.CompressWeightsMode.INT8_ASYM,
        "int4-sym": nncf.CompressWeightsMode.INT4_SYM,
        "int4-asym": nncf.CompressWeightsMode.INT4_ASYM,
    }
    return modes[weight_format]


@pytest.fixture(scope="module")
def ovc_model(llama: Decoder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import openvino

    xml = tmp_path_factory.mktemp("ovc") / "ovc.xml"
    openvino.save_model(openvino.convert_model(llama.path), xml)  # f16 weights, as OVC writes by default
    return xml


def _nncf_compressed(ovc: Path, weight_format: str, ratio: float, directory: Path) -> Path:
    import openvino

    options: dict[str, Any] = {"mode": _nncf_mode(weight_format)}
    if weight_format.startswith("int4"):
        options |= {"group_size": GROUP, "ratio": ratio}
    model = nncf.compress_weights(openvino.Core().read_model(ovc), **options)
    xml = directory / f"nncf_{weight_format}_{ratio}.xml"
    openvino.save_model(model, xml, compress_to_fp16=False)  # already compressed: keep it as NNCF made it
    return xml


@pytest.mark.parametrize(("weight_format", "ratio"), CASES, ids=[f"{f}-ratio{r}" for f, r in CASES])
def test_no_worse_than_nncf(
    weight_format: str, ratio: float, llama: Decoder, ovc_model: Path, tmp_path: Path, record_property: Any
) -> None:
    reference = _nncf_compressed(ovc_model, weight_format, ratio, tmp_path)
    ours = convert(llama, tmp_path, "irconv", weight_format=weight_format, group_size=GROUP, ratio=ratio)
    batch = prompts(llama)
    expected = reference_logits(llama, batch)
    our_error = relative_error(openvino_logits(llama, ours, batch), expected)
    their_error = relative_error(openvino_logits(llama, reference, batch), expected)
    our_size, their_size = ours.with_suffix(".bin").stat().st_size, reference.with_suffix(".bin").stat().st_size
    record_property("irconv", (our_error, our_size))
    record_property("nncf", (their_error, their_size))
    print(
        f"{weight_format} ratio {ratio}: irconv error {our_error:.4f} .bin {our_size}; nncf {their_error:.4f} .bin {their_size}"
    )
    assert our_error <= their_error
    assert our_size <= their_size
