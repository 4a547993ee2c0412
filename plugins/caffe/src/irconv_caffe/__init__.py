"""Caffe front end for irconv."""
