"""TensorFlow front end for irconv."""
