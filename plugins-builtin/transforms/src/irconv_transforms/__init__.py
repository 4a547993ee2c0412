"""Common irconv transforms: fusing and clean-up."""
