"""ONNX front end for irconv."""
