"""--weight-format: MatMul and embedding weights stored as 8- or 4-bit integers with scales.

``compress_weights`` is the transform; the modules beside it compute scales and levels
(``quantize``, ``range_search``, ``scale_estimation``), choose the int8 layers of ``--ratio``
(``mixed_precision``) and move AWQ factors into the graph (``awq``, ``apply_awq``).
Activation statistics come from another plugin through ``statistics.ACTIVATION_STATISTICS``
(irconv-llm's ``--dataset`` runs a decoder on text samples).
"""
