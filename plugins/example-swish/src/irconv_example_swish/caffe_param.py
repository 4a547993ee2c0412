"""``example_swish_param``: the Caffe parameter message this plugin declares.

caffe.proto knows nothing of a custom layer's parameter block; the Caffe front end hands
such blocks over as plain text values. Declaring the message (as a fork of Caffe would in
its caffe.proto) gives typed values, the declared defaults, and a clear error for a
misspelt field. It is built from a descriptor at run time: no generated code to keep.

    message ExampleSwishParameter {
      optional float beta = 1 [default = 1];
    }
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from irconv.errors import ConversionError

PARAM = "example_swish_param"
_PACKAGE = "irconv_example"
_MESSAGE = "ExampleSwishParameter"


@cache
def message_class() -> Any:
    """The ``ExampleSwishParameter`` message class (protobuf comes with the Caffe front end)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    field = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="irconv_example_swish.proto", package=_PACKAGE, syntax="proto2")
    message = proto.message_type.add(name=_MESSAGE)
    message.field.add(name="beta", number=1, type=field.TYPE_FLOAT, label=field.LABEL_OPTIONAL, default_value="1")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{_MESSAGE}"))


def parse_param(block: Mapping[str, Any] | None, where: str) -> Any:
    """The layer's ``example_swish_param`` block (absent: all defaults) as the typed message."""
    from google.protobuf import json_format

    message = message_class()()
    try:
        json_format.ParseDict(dict(block or {}), message)
    except json_format.ParseError as exc:
        raise ConversionError(f"{where}: bad {PARAM}: {exc}") from None
    return message
