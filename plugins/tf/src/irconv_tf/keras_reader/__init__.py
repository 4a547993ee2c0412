"""Keras ``.keras`` files read without TensorFlow or Keras.

A ``.keras`` file is a zip of ``config.json`` (the layer graph) and ``model.weights.h5``
(each layer's variables). ``archive`` opens it, ``model`` turns the layer graph into an
irconv graph with one source op per layer call (framework ``keras``, op type the layer
class), and the extractors in ``extractors`` emit opset ops for each layer class. A file
this reader does not fully understand is left to TensorFlow (``irconv_tf.keras``).
"""

#: The framework name of the layer source ops and of their extractor records.
FRAMEWORK = "keras"
