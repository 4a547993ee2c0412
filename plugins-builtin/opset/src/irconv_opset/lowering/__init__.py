"""Lowerings every front end shares: one translator per framework-independent idea
(a convolution's window and padding, grouped weights, a recurrent sequence with its gate
order, a layout mark, ...), called by each front end after it has read its own attributes.

Each module builds opset ops through the extraction context, so the new nodes are named
after the framework node, and exports for each public builder the op classes it may build
(``CONVOLUTION_OPS`` and the like) for the extractors' ``produces`` declarations.
"""
