"""Test helpers of irconv-mxnet: an NDArray file writer from the format spec (no MXNet
needed), and, for environments with MXNet, checkpoint saving and reference runs."""

from irconv_mxnet.testing.compare import relative_error
from irconv_mxnet.testing.ndarray_writer import write_ndarray_file

__all__ = ["relative_error", "write_ndarray_file"]
