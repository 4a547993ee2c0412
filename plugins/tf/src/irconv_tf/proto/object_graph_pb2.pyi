# irconv-source-sha256: a20f2f7260dca912642f451c4c9a2ee94e5c84ada974a902da64aade5999f7f7
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ObjectReference(_message.Message):
    __slots__ = ("node_id", "local_name")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    LOCAL_NAME_FIELD_NUMBER: _ClassVar[int]
    node_id: int
    local_name: str
    def __init__(self, node_id: _Optional[int] = ..., local_name: _Optional[str] = ...) -> None: ...

class SavedVariable(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SavedObject(_message.Message):
    __slots__ = ("children", "variable")
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_FIELD_NUMBER: _ClassVar[int]
    children: _containers.RepeatedCompositeFieldContainer[ObjectReference]
    variable: SavedVariable
    def __init__(self, children: _Optional[_Iterable[_Union[ObjectReference, _Mapping]]] = ..., variable: _Optional[_Union[SavedVariable, _Mapping]] = ...) -> None: ...

class SavedConcreteFunction(_message.Message):
    __slots__ = ("bound_inputs",)
    BOUND_INPUTS_FIELD_NUMBER: _ClassVar[int]
    bound_inputs: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, bound_inputs: _Optional[_Iterable[int]] = ...) -> None: ...

class SavedObjectGraph(_message.Message):
    __slots__ = ("nodes", "concrete_functions")
    class ConcreteFunctionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: SavedConcreteFunction
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[SavedConcreteFunction, _Mapping]] = ...) -> None: ...
    NODES_FIELD_NUMBER: _ClassVar[int]
    CONCRETE_FUNCTIONS_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[SavedObject]
    concrete_functions: _containers.MessageMap[str, SavedConcreteFunction]
    def __init__(self, nodes: _Optional[_Iterable[_Union[SavedObject, _Mapping]]] = ..., concrete_functions: _Optional[_Mapping[str, SavedConcreteFunction]] = ...) -> None: ...

class SerializedTensor(_message.Message):
    __slots__ = ("name", "full_name", "checkpoint_key")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FULL_NAME_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_KEY_FIELD_NUMBER: _ClassVar[int]
    name: str
    full_name: str
    checkpoint_key: str
    def __init__(self, name: _Optional[str] = ..., full_name: _Optional[str] = ..., checkpoint_key: _Optional[str] = ...) -> None: ...

class TrackableObject(_message.Message):
    __slots__ = ("children", "attributes")
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    children: _containers.RepeatedCompositeFieldContainer[ObjectReference]
    attributes: _containers.RepeatedCompositeFieldContainer[SerializedTensor]
    def __init__(self, children: _Optional[_Iterable[_Union[ObjectReference, _Mapping]]] = ..., attributes: _Optional[_Iterable[_Union[SerializedTensor, _Mapping]]] = ...) -> None: ...

class TrackableObjectGraph(_message.Message):
    __slots__ = ("nodes",)
    NODES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[TrackableObject]
    def __init__(self, nodes: _Optional[_Iterable[_Union[TrackableObject, _Mapping]]] = ...) -> None: ...
