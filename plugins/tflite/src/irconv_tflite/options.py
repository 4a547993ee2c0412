"""The TFLite plugin's conversion options (declared through ``declare_options``)."""

from __future__ import annotations

from irconv import Option

INT8_KERNELS: Option[object] = Option(
    "tflite.int8_kernels",
    bool,
    default=False,
    flag="--tflite-int8-kernels",
    keyword="tflite_int8_kernels",
    help="full-integer operators as FakeQuantize graphs that OpenVINO's CPU runs with its int8 kernels "
    "(faster where int8 is fast; differs from LiteRT by rounding) instead of LiteRT's integer arithmetic "
    "(default: exact)",
)

OPTIONS: list[Option[object]] = [INT8_KERNELS]
