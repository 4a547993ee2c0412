"""irconv-mxnet: MXNet symbol JSON + ``.params`` models, read without MXNet."""
