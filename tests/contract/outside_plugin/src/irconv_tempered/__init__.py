"""irconv-tempered: ONNX ``com.outside::TemperedSoftmax`` as stock OpenVINO ops."""
