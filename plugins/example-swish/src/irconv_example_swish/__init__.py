"""irconv-example-swish: the template for a third-party irconv plugin.

It adds a custom operation end to end: ``ExampleSwish`` (custom opset ``irconv_example``),
extractors producing it from ONNX, TensorFlow and Caffe models, a sub-graph replacement
that produces it from a named block of ops, a lowering transform into stock opset ops,
and the OpenVINO runtime extension that runs it (:mod:`irconv_example_swish.runtime`).
README.md walks through each piece.
"""
