"""The ``irconv`` command line."""
