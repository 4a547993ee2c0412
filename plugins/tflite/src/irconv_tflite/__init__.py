"""irconv-tflite: TensorFlow Lite flatbuffers (``.tflite``) read without TensorFlow."""

FRAMEWORK = "tflite"

__all__ = ["FRAMEWORK"]
