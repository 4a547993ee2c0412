"""Hook implementations of irconv-caffe."""
