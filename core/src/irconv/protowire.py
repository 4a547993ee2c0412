"""The protobuf wire format, read and written by hand, for front ends that must not copy
their weights: walking a serialized message field by field finds where large byte fields
lie in the file (so they can be memory-mapped) without parsing, and therefore without
copying, them. Only what such a walk needs is here; anything unexpected raises
:class:`Malformed` and the caller falls back to an ordinary parse.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

VARINT, FIXED64, LEN, FIXED32 = 0, 1, 2, 5


class Malformed(Exception):
    """The bytes are not a well-formed message of the kind the walk expects."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a message: ``data[begin:end]`` is the whole field (key included).
    ``value`` is a varint's value or, for a length-delimited field, the payload's start
    (the payload is ``data[value:end]``)."""

    number: int
    wire: int
    value: int
    begin: int
    end: int


def fields(data: memoryview, pos: int, stop: int) -> Iterator[Field]:
    """The fields of the message in ``data[pos:stop]``."""
    if stop > len(data):
        raise Malformed("message runs past the end of the data")
    while pos < stop:
        begin = pos
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise Malformed("field number 0")
        if wire == VARINT:
            value, pos = read_varint(data, pos)
            yield Field(number, wire, value, begin, pos)
            continue
        if wire == LEN:
            length, pos = read_varint(data, pos)
            value, size = pos, length
        elif wire in (FIXED64, FIXED32):
            value, size = pos, 8 if wire == FIXED64 else 4
        else:
            raise Malformed(f"wire type {wire}")  # groups: unused by the schemas read this way
        if pos + size > stop:
            raise Malformed("field runs past the end of its message")
        pos += size
        yield Field(number, wire, value, begin, pos)


def read_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """(value, position after it)."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise Malformed("varint runs past the end of the data")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise Malformed("varint longer than 10 bytes")


def signed(value: int) -> int:
    """An int64 field's varint as the signed value it encodes."""
    return value - (1 << 64) if value >= 1 << 63 else value


def packed_varints(data: memoryview, pos: int, stop: int) -> list[int]:
    values = []
    while pos < stop:
        value, pos = read_varint(data, pos)
        values.append(signed(value))
    return values


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def length_delimited(number: int, payload: bytes) -> bytes:
    """A LEN field: a sub-message, a string or bytes."""
    return key(number, LEN) + varint(len(payload)) + payload
