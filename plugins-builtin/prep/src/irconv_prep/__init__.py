"""irconv-prep: the model-preparation options legacy Model Optimizer users reach for."""
