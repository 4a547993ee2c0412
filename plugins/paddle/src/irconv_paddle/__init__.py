"""irconv-paddle: the PaddlePaddle front end (legacy .pdmodel and PIR .json programs), read without Paddle."""
