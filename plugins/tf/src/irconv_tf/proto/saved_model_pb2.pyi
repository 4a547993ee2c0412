# irconv-source-sha256: 53f704d881bcfa3f07eacd0a959efa43cb59fedfdb873ee86345af09d424c390
from irconv_tf.proto import graph_pb2 as _graph_pb2
from irconv_tf.proto import object_graph_pb2 as _object_graph_pb2
from irconv_tf.proto import tensor_pb2 as _tensor_pb2
from irconv_tf.proto import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TensorInfo(_message.Message):
    __slots__ = ("name", "dtype", "tensor_shape")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    dtype: _types_pb2.DataType
    tensor_shape: _tensor_pb2.TensorShapeProto
    def __init__(self, name: _Optional[str] = ..., dtype: _Optional[_Union[_types_pb2.DataType, str]] = ..., tensor_shape: _Optional[_Union[_tensor_pb2.TensorShapeProto, _Mapping]] = ...) -> None: ...

class SignatureDef(_message.Message):
    __slots__ = ("inputs", "outputs", "method_name")
    class InputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TensorInfo
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TensorInfo, _Mapping]] = ...) -> None: ...
    class OutputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TensorInfo
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TensorInfo, _Mapping]] = ...) -> None: ...
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    METHOD_NAME_FIELD_NUMBER: _ClassVar[int]
    inputs: _containers.MessageMap[str, TensorInfo]
    outputs: _containers.MessageMap[str, TensorInfo]
    method_name: str
    def __init__(self, inputs: _Optional[_Mapping[str, TensorInfo]] = ..., outputs: _Optional[_Mapping[str, TensorInfo]] = ..., method_name: _Optional[str] = ...) -> None: ...

class SaverDef(_message.Message):
    __slots__ = ("filename_tensor_name", "save_tensor_name", "restore_op_name", "max_to_keep", "sharded", "keep_checkpoint_every_n_hours", "version")
    FILENAME_TENSOR_NAME_FIELD_NUMBER: _ClassVar[int]
    SAVE_TENSOR_NAME_FIELD_NUMBER: _ClassVar[int]
    RESTORE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    MAX_TO_KEEP_FIELD_NUMBER: _ClassVar[int]
    SHARDED_FIELD_NUMBER: _ClassVar[int]
    KEEP_CHECKPOINT_EVERY_N_HOURS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    filename_tensor_name: str
    save_tensor_name: str
    restore_op_name: str
    max_to_keep: int
    sharded: bool
    keep_checkpoint_every_n_hours: float
    version: int
    def __init__(self, filename_tensor_name: _Optional[str] = ..., save_tensor_name: _Optional[str] = ..., restore_op_name: _Optional[str] = ..., max_to_keep: _Optional[int] = ..., sharded: _Optional[bool] = ..., keep_checkpoint_every_n_hours: _Optional[float] = ..., version: _Optional[int] = ...) -> None: ...

class MetaGraphDef(_message.Message):
    __slots__ = ("meta_info_def", "graph_def", "saver_def", "signature_def", "object_graph_def")
    class MetaInfoDef(_message.Message):
        __slots__ = ("meta_graph_version", "tags", "tensorflow_version")
        META_GRAPH_VERSION_FIELD_NUMBER: _ClassVar[int]
        TAGS_FIELD_NUMBER: _ClassVar[int]
        TENSORFLOW_VERSION_FIELD_NUMBER: _ClassVar[int]
        meta_graph_version: str
        tags: _containers.RepeatedScalarFieldContainer[str]
        tensorflow_version: str
        def __init__(self, meta_graph_version: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., tensorflow_version: _Optional[str] = ...) -> None: ...
    class SignatureDefEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: SignatureDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[SignatureDef, _Mapping]] = ...) -> None: ...
    META_INFO_DEF_FIELD_NUMBER: _ClassVar[int]
    GRAPH_DEF_FIELD_NUMBER: _ClassVar[int]
    SAVER_DEF_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_DEF_FIELD_NUMBER: _ClassVar[int]
    OBJECT_GRAPH_DEF_FIELD_NUMBER: _ClassVar[int]
    meta_info_def: MetaGraphDef.MetaInfoDef
    graph_def: _graph_pb2.GraphDef
    saver_def: SaverDef
    signature_def: _containers.MessageMap[str, SignatureDef]
    object_graph_def: _object_graph_pb2.SavedObjectGraph
    def __init__(self, meta_info_def: _Optional[_Union[MetaGraphDef.MetaInfoDef, _Mapping]] = ..., graph_def: _Optional[_Union[_graph_pb2.GraphDef, _Mapping]] = ..., saver_def: _Optional[_Union[SaverDef, _Mapping]] = ..., signature_def: _Optional[_Mapping[str, SignatureDef]] = ..., object_graph_def: _Optional[_Union[_object_graph_pb2.SavedObjectGraph, _Mapping]] = ...) -> None: ...

class SavedModel(_message.Message):
    __slots__ = ("saved_model_schema_version", "meta_graphs")
    SAVED_MODEL_SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    META_GRAPHS_FIELD_NUMBER: _ClassVar[int]
    saved_model_schema_version: int
    meta_graphs: _containers.RepeatedCompositeFieldContainer[MetaGraphDef]
    def __init__(self, saved_model_schema_version: _Optional[int] = ..., meta_graphs: _Optional[_Iterable[_Union[MetaGraphDef, _Mapping]]] = ...) -> None: ...
