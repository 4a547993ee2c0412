"""OpenVINO IR v10/v11 emitter and reader for irconv."""
