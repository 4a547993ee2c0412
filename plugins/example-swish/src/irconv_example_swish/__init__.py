"""An example third-party irconv plugin, kept small enough to copy.

It adds an extractor for a custom ONNX op, ``com.example::Swish`` (attribute ``beta``),
and a middle transform that removes a ReLU applied to a ReLU.
"""
