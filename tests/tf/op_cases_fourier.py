"""Per-op cases for the TF extractors in ``irconv_tf.extractors.fourier``: complex tensors and FFTs.

The IR has no complex element type, so every case takes real inputs and gives real outputs:
complex values are made with ``Complex`` (or an RFFT) and read back with ``Real``/``Imag``/
``ComplexAbs``, as real models do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Ops whose zero-size variant is not meaningful, with the reason.
NO_ZERO_SIZE: dict[str, str] = {}

_R = np.random.default_rng(23)


def _f32(*shape: int) -> np.ndarray:
    return _R.uniform(-1.0, 1.0, shape).astype(np.float32)


def _lengths(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


def op_cases(case_type: Any) -> dict[str, Any]:
    """{TF op: case_type(fn, inputs, ...)} (``case_type`` is ``test_tf_ops.Case``)."""
    import tensorflow as tf

    raw = tf.raw_ops

    def parts(z: Any) -> Any:
        """Real and imaginary parts side by side: one real output that checks both."""
        return tf.concat([raw.Real(input=z, Tout=tf.float32), raw.Imag(input=z, Tout=tf.float32)], axis=-1)

    def cplx(re: Any, im: Any) -> Any:
        return raw.Complex(real=re, imag=im, Tout=tf.complex64)

    def transform(op: Any) -> Any:
        """A complex -> complex op on Complex(re, im), both parts read back."""
        return case_type(lambda re, im: parts(op(input=cplx(re, im))), [_f32(2, 3, 4, 5), _f32(2, 3, 4, 5)], atol=1e-4)

    def inverse_real(rfft: Any, irfft: Any, shape: tuple[int, ...], lengths: np.ndarray, out: np.ndarray) -> Any:
        """irfft of (rfft(x) * (1 + 0.5j)): the forward op gives the inverse a real spectrum, then
        IRFFT with a different length (cropping or zero-padding the spectrum)."""

        def fn(x: Any) -> Any:
            z = rfft(input=x, fft_length=lengths)
            scaled = cplx(raw.Real(input=z) - 0.5 * raw.Imag(input=z), raw.Imag(input=z) + 0.5 * raw.Real(input=z))
            return irfft(input=scaled, fft_length=out)

        return case_type(fn, [_f32(*shape)], atol=1e-4)

    return {
        "RFFT": case_type(
            lambda x: raw.ComplexAbs(x=raw.RFFT(input=x, fft_length=_lengths(16))), [_f32(2, 3, 20)], atol=1e-4
        ),  # cropped from 20 to 16
        "RFFT2D": case_type(
            lambda x: parts(raw.RFFT2D(input=x, fft_length=_lengths(6, 7))), [_f32(2, 3, 8, 7)], atol=1e-4
        ),  # cropped from 8 to 6
        "RFFT3D": case_type(
            lambda x: parts(raw.RFFT3D(input=x, fft_length=_lengths(3, 4, 6))), [_f32(2, 3, 4, 6)], atol=1e-4
        ),
        "IRFFT": inverse_real(raw.RFFT, raw.IRFFT, (2, 3, 10), _lengths(10), _lengths(9)),
        "IRFFT2D": inverse_real(raw.RFFT2D, raw.IRFFT2D, (2, 4, 6), _lengths(4, 6), _lengths(3, 5)),
        "IRFFT3D": inverse_real(raw.RFFT3D, raw.IRFFT3D, (2, 3, 4, 6), _lengths(3, 4, 6), _lengths(3, 4, 6)),
        "FFT": transform(raw.FFT),
        "FFT2D": transform(raw.FFT2D),
        "FFT3D": transform(raw.FFT3D),
        "IFFT": transform(raw.IFFT),
        "IFFT2D": transform(raw.IFFT2D),
        "IFFT3D": transform(raw.IFFT3D),
        "Complex": case_type(
            lambda re, im: raw.ComplexAbs(x=cplx(re, im)), [_f32(2, 3, 4), _f32(3, 1)]
        ),  # broadcasting real and imaginary parts
        "Real": case_type(
            lambda re, im: raw.Real(input=raw.FFT(input=cplx(re, im))), [_f32(2, 8), _f32(2, 8)], atol=1e-4
        ),
        "Imag": case_type(
            lambda re, im: raw.Imag(input=raw.FFT(input=cplx(re, im))), [_f32(2, 8), _f32(2, 8)], atol=1e-4
        ),
        "ComplexAbs": case_type(lambda x: raw.ComplexAbs(x=raw.RFFT(input=x, fft_length=_lengths(8))), [_f32(3, 8)]),
    }
