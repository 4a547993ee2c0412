"""irconv-llm: decoders as OpenVINO runs them best — KV cache as state, compressed weights."""
