"""Example third-party irconv plugin: a custom ONNX op and a fusing transform."""
