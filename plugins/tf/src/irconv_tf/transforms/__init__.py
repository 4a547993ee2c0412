"""TF-specific graph transforms."""
