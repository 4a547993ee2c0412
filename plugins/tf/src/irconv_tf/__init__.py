"""TensorFlow front end for irconv."""

#: The framework name of the loader and of every extractor record.
FRAMEWORK = "tf"
