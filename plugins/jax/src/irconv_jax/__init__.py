"""irconv-jax: JAX programs (jax.export, jitted functions, bound Flax modules) read as StableHLO."""
