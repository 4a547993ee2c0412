"""Session-wide settings that must be in place before any test module imports TensorFlow.

TensorFlow reads these environment variables once, at import; whichever test module imports
it first (collection order varies with the paths given) fixes them for the whole session.
oneDNN is off because its Conv2D/Conv3D/DepthwiseConv2dNative kernels return the input's
shape for an empty batch (TF 2.21), which would make TensorFlow a wrong reference.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

# The plugin-summary cache (irconv.plugins.summary) of a test session stays in the session.
if "IRCONV_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["IRCONV_CACHE_DIR"] = tempfile.mkdtemp(prefix="irconv-test-cache-")
