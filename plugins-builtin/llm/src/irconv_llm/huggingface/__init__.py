"""Hugging Face checkpoint folders (``save_pretrained``: ``config.json``, ``*.safetensors``,
tokenizer files) converted to the folder OpenVINO GenAI loads.

The model is built by transformers' own class with its parameters on the meta device,
traced by ``torch.export`` through irconv-torch, and its weights are memory-mapped from the
safetensors files: nothing of the checkpoint is read before the ``.bin`` is written.
torch, transformers and openvino-tokenizers are imported only when such a folder is converted.
"""
