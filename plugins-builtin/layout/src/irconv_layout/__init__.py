"""NHWC to NCHW layout conversion for irconv."""
