"""Hook implementations of irconv-opset."""
