"""The ``irconv`` command line."""

import os

# NumPy's OpenBLAS keeps its worker threads spinning after each matrix product, and the
# products of a conversion are small (a folded bias, a constant MatMul): on two cores the
# spinning took ~10% of a ResNet50 conversion's CPU from the .bin writer's threads. Set
# before NumPy loads; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
