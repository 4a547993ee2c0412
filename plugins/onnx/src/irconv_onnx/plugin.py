"""Hook implementations of irconv-onnx."""
