"""The op families; each module lists its op classes in ``OPS``."""
