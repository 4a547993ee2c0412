"""Test helpers of irconv-caffe: random-weight caffemodels for any deploy prototxt."""

from irconv_caffe.testing.random_model import declared_input_shapes, write_random_caffemodel

__all__ = ["declared_input_shapes", "write_random_caffemodel"]
