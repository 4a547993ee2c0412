"""OpenVINO operation sets as declarative irconv ops."""
