"""Tests of tensorfleet.transport.wire: round trips, strict decoding, chunking, fuzzing."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensorfleet import errors
from tensorfleet.transport import wire

NUMERIC = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16]


def _strings(values, shape):
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr.reshape(shape)


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape
    if a.dtype == object:
        assert b.dtype == object
        assert a.reshape(-1).tolist() == b.reshape(-1).tolist()
    else:
        assert b.dtype == a.dtype.newbyteorder("=")
        np.testing.assert_array_equal(a, b)


def _sample_frame() -> bytes:
    return wire.encode({"op": "x", "n": [1, 2]},
                       [np.arange(6, dtype=np.float32).reshape(2, 3),
                        _strings([b"ab", b""], (2,))])


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize("dtype", NUMERIC)
def test_round_trip_every_numeric_dtype(dtype):
    rng = np.random.default_rng(0)
    arr = (rng.random((3, 4)) * 100).astype(dtype)
    header, (out,) = wire.decode(wire.encode({"k": "v"}, [arr]))
    assert header == {"k": "v"}
    _same(arr, out)
    assert out.flags.aligned


def test_round_trip_bool_and_strings():
    b = np.array([[True, False], [False, True]])
    s = _strings([b"hello", b"", b"\x00\xff" * 100, "caf\u00e9"], (2, 2))
    _, (ob, os_) = wire.decode(wire.encode({}, [b, s]))
    _same(b, ob)
    assert os_.reshape(-1).tolist() == [b"hello", b"", b"\x00\xff" * 100, "caf\u00e9".encode()]


@pytest.mark.parametrize("arr", [
    np.array(3.5, dtype=np.float32),
    np.zeros((0,), dtype=np.float64),
    np.zeros((3, 0, 2), dtype=np.int32),
    _strings([], (0, 4)),
    _strings([b"only"], ()),
    np.arange(10, dtype=">i4"),
    np.arange(24, dtype=np.float64).reshape(4, 6).T,
])
def test_round_trip_edge_shapes(arr):
    _, (out,) = wire.decode(wire.encode({}, [arr]))
    _same(arr, out)


def test_many_tensors_all_aligned_and_zero_copy():
    tensors = [np.arange(n, dtype=np.float64 if n % 2 else np.int8) for n in range(1, 30)]
    frame = wire.encode({"many": True}, tensors)
    _, out = wire.decode(frame)
    for a, b in zip(tensors, out, strict=True):
        _same(a, b)
        assert b.flags.aligned and not b.flags.writeable  # a view of the bytes frame
    assert len(frame) % 8 == 0


def test_large_tensor_chunked_round_trip():
    arr = np.random.default_rng(1).random(3_000_000).astype(np.float32)  # 12 MB
    parts, total = wire.encode_parts({"big": 1}, [arr])
    chunks = list(wire.iter_chunks(parts, wire.CHUNK_BYTES))
    assert sum(len(c) for c in chunks) == total
    assert all(len(c) == wire.CHUNK_BYTES for c in chunks[:-1])
    buf = wire.reassemble(chunks, total)
    header, (out,) = wire.decode(buf)
    assert header == {"big": 1}
    np.testing.assert_array_equal(arr, out)
    assert out.flags.writeable and np.shares_memory(out, buf)


def test_encode_matches_joined_parts_and_small_chunks():
    parts, total = wire.encode_parts({"a": 1}, [np.arange(5), _strings([b"x"], (1,))])
    frame = wire.encode({"a": 1}, [np.arange(5), _strings([b"x"], (1,))])
    assert b"".join(bytes(p) for p in parts) == frame and len(frame) == total
    assert b"".join(wire.iter_chunks(parts, 7)) == frame


@pytest.mark.parametrize("header, tensors", [
    ([1, 2], []),
    ({"x": float("nan")}, []),
    ({"x": object()}, []),
    ({}, [np.array(["2020-01-01"], dtype="datetime64[D]")]),
    ({}, [_strings([3], (1,))]),
    ({}, [np.zeros((1,) * 33, dtype=np.int8)]),
])
def test_encode_rejects_what_cannot_be_sent(header, tensors):
    with pytest.raises(errors.InvalidArgumentError):
        wire.encode(header, tensors)


# ------------------------------------------------------------------ malformed input


def test_bad_magic():
    frame = bytearray(_sample_frame())
    frame[:4] = b"XXXX"
    with pytest.raises(errors.InvalidArgumentError, match="magic"):
        wire.decode(bytes(frame))


def test_version_mismatch_names_both_versions():
    frame = bytearray(_sample_frame())
    struct.pack_into("<H", frame, 4, 7)
    with pytest.raises(errors.InvalidArgumentError) as info:
        wire.decode(bytes(frame))
    assert "version 7" in str(info.value) and f"version {wire.WIRE_VERSION}" in str(info.value)
    assert wire.peek_version(bytes(frame)) == 7


def test_unknown_flags():
    frame = bytearray(_sample_frame())
    struct.pack_into("<H", frame, 6, 1)
    with pytest.raises(errors.InvalidArgumentError, match="flags"):
        wire.decode(bytes(frame))


def test_truncated_at_every_length():
    frame = _sample_frame()
    for cut in range(len(frame)):
        with pytest.raises((errors.DataLossError, errors.InvalidArgumentError)):
            wire.decode(frame[:cut])
    # Cutting inside the prefix, the header, the table or the data is data loss.
    for cut in (3, 10, 20, len(frame) - 20, len(frame) - 1):
        with pytest.raises(errors.DataLossError):
            wire.decode(frame[:cut])


def test_nonzero_padding():
    frame = bytearray(wire.encode({}))  # 18 bytes of prefix and header, then padding
    frame[-1] = 1
    with pytest.raises(errors.InvalidArgumentError, match="padding"):
        wire.decode(bytes(frame))


def test_trailing_bytes():
    with pytest.raises(errors.InvalidArgumentError, match="trailing"):
        wire.decode(_sample_frame() + b"\x00" * 8)


def _frame_with_header(raw_header: bytes) -> bytes:
    prefix = struct.pack("<4sHHII", wire.MAGIC, wire.WIRE_VERSION, 0, len(raw_header), 0)
    body = prefix + raw_header
    return body + bytes(-len(body) % 8)


@pytest.mark.parametrize("raw", [
    b"[1, 2]", b"42", b"\"s\"", b"{bad json", b"\xff\xfe{}", b'{"a": NaN}',
    b'{"a": 1, "a": 2}', b"[" * 5000 + b"]" * 5000,
    b'{"a":' + b"[" * 80 + b"1" + b"]" * 80 + b"}", b'{"a":' + b"[" * 5000 + b"]" * 5000 + b"}",
])
def test_header_must_be_a_plain_json_object(raw):
    with pytest.raises(errors.InvalidArgumentError, match="header"):
        wire.decode(_frame_with_header(raw))


def test_header_of_moderate_depth_is_fine():
    header = {"a": [[{"b": [1, 2, {"c": None}]}]] * 40}
    assert wire.decode(wire.encode(header))[0] == header


def _frame_with_table(code: int, dims, nbytes: int, data: bytes = b"") -> bytes:
    head = struct.pack("<4sHHII", wire.MAGIC, wire.WIRE_VERSION, 0, 2, 1) + b"{}"
    head += struct.pack("<HH", code, len(dims)) + struct.pack(f"<{len(dims)}Q", *dims)
    head += struct.pack("<Q", nbytes)
    head += bytes(-len(head) % 8)
    return head + data + bytes(-len(data) % 8)


def test_valid_handmade_frame():
    frame = _frame_with_table(1, [2], 8, np.array([1, 2], np.float32).tobytes())
    np.testing.assert_array_equal(wire.decode(frame)[1][0], [1, 2])


def test_shape_and_byte_count_disagree():
    frame = _frame_with_table(1, [3], 8, np.array([1, 2], np.float32).tobytes())
    with pytest.raises(errors.InvalidArgumentError, match="shape and byte count disagree"):
        wire.decode(frame)


def test_unknown_dtype_code():
    with pytest.raises(errors.InvalidArgumentError, match="unknown dtype code 99"):
        wire.decode(_frame_with_table(99, [1], 4, b"\x00" * 4))


def test_rank_limit():
    with pytest.raises(errors.InvalidArgumentError, match="rank"):
        wire.decode(_frame_with_table(1, [1] * 40, 4, b"\x00" * 4))


def test_unrepresentable_zero_size_shape():
    with pytest.raises(errors.InvalidArgumentError):
        wire.decode(_frame_with_table(1, [0, 2 ** 62, 2 ** 62], 0))


def test_bool_bytes_must_be_zero_or_one():
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        wire.decode(_frame_with_table(10, [2], 2, b"\x01\x07"))


def test_string_tensor_lengths_are_checked():
    good = struct.pack("<I", 2) + b"ab"
    assert wire.decode(_frame_with_table(7, [1], len(good), good))[1][0].tolist() == [b"ab"]
    too_long = struct.pack("<I", 1000) + b"ab"
    with pytest.raises(errors.InvalidArgumentError, match="string 0"):
        wire.decode(_frame_with_table(7, [1], len(too_long), too_long))
    with pytest.raises(errors.InvalidArgumentError, match="strings cannot fit"):
        wire.decode(_frame_with_table(7, [10 ** 9], len(good), good))
    with pytest.raises(errors.InvalidArgumentError, match="left over"):
        wire.decode(_frame_with_table(7, [1], len(good) + 4, good + b"zzzz"))


def test_oversized_declared_lengths_never_allocate():
    small_max = 4096
    huge_header = struct.pack("<4sHHII", wire.MAGIC, wire.WIRE_VERSION, 0, 0xFFFFFFF0, 0)
    with pytest.raises(errors.InvalidArgumentError, match="maximum message size"):
        wire.decode(huge_header + b"{}", max_message_bytes=small_max)
    many_tensors = struct.pack("<4sHHII", wire.MAGIC, wire.WIRE_VERSION, 0, 2, 0xFFFFFFFF)
    with pytest.raises(errors.InvalidArgumentError, match="maximum message size"):
        wire.decode(many_tensors + b"{}", max_message_bytes=small_max)
    huge_tensor = _frame_with_table(1, [1 << 40], 4 << 40)
    with pytest.raises(errors.InvalidArgumentError, match="maximum message size"):
        wire.decode(huge_tensor, max_message_bytes=small_max)
    with pytest.raises(errors.InvalidArgumentError, match="maximum message size"):
        wire.decode(bytes(small_max + 1), max_message_bytes=small_max)


def test_stream_header_and_reassembly_limits():
    assert wire.parse_stream_header(wire.stream_header(1234)) == 1234
    with pytest.raises(errors.InvalidArgumentError, match="maximum message size"):
        wire.parse_stream_header(wire.stream_header(1 << 50), max_message_bytes=1 << 20)
    with pytest.raises(errors.DataLossError):
        wire.parse_stream_header(wire.stream_header(10)[:9])
    bad = bytearray(wire.stream_header(10))
    struct.pack_into("<H", bad, 4, 9)
    with pytest.raises(errors.InvalidArgumentError, match="version 9"):
        wire.parse_stream_header(bytes(bad))
    with pytest.raises(errors.InvalidArgumentError):
        wire.reassemble([b"x"], 1 << 50, max_message_bytes=1 << 20)
    with pytest.raises(errors.InvalidArgumentError, match="more than"):
        wire.reassemble([b"abc", b"def"], 4)
    with pytest.raises(errors.DataLossError, match="3 of 8"):
        wire.reassemble([b"abc"], 8)



@pytest.mark.parametrize("number", [b"1e400", b"-1e400", b"1E999", b"NaN", b"Infinity",
                                    b"-Infinity"])
def test_non_finite_header_numbers_are_refused(number):
    with pytest.raises(errors.InvalidArgumentError, match="finite|constant") as info:
        wire.decode(_frame_with_header(b'{"timeout": ' + number + b"}"))
    assert "header" in info.value.message
    # Big but finite numbers are fine.
    assert wire.decode(_frame_with_header(b'{"t": 1e300, "n": 123456789012345678901}'))[0] == \
        {"t": 1e300, "n": 123456789012345678901}


def test_reassembly_reserves_no_more_than_what_arrived(monkeypatch):
    """A stream header may declare 2 GiB; until the bytes come, at most
    ``RESERVE_RATIO`` times the bytes that did arrive are reserved."""
    asked = []
    real_take = wire.buffers.take
    monkeypatch.setattr(wire.buffers, "take", lambda n: asked.append(n) or real_take(n))
    with pytest.raises(errors.DataLossError, match="0 of"):
        wire.reassemble([], (2 << 30) - 1)
    chunk = b"\1" * (256 << 10)
    with pytest.raises(errors.DataLossError, match=f"{4 * len(chunk)} of"):
        wire.reassemble([chunk] * 4, (2 << 30) - 1)
    assert max(asked, default=0) <= wire.RESERVE_RATIO * 4 * len(chunk)
    # An honest stream is reassembled whole, into one buffer of its exact size.
    data = np.random.default_rng(3).integers(0, 255, 5 * len(chunk) + 11, dtype=np.uint8)
    pieces = [data[i:i + len(chunk)].tobytes() for i in range(0, data.size, len(chunk))]
    asked.clear()
    out = wire.reassemble(pieces, data.size)
    assert np.array_equal(out, data) and out.size == data.size
    assert asked == [data.size]


# ------------------------------------------------------------------ fuzzing

_ALLOWED = (errors.InvalidArgumentError, errors.DataLossError)
_FUZZ = settings(max_examples=200, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


@_FUZZ
@given(st.binary(max_size=512))
def test_fuzz_random_bytes(data):
    try:
        wire.decode(data, max_message_bytes=1 << 16)
    except _ALLOWED:
        pass


def _fuzz_base() -> bytes:
    return wire.encode({"a": [1, {"b": "c"}], "d": None},
                       [np.arange(6, dtype=np.int16).reshape(2, 3), np.array([True, False]),
                        _strings([b"xy", b"z"], (2,)), np.array(2.5)])


@_FUZZ
@given(st.data())
def test_fuzz_mutated_frames(data):
    frame = bytearray(_fuzz_base())
    for _ in range(data.draw(st.integers(1, 8))):
        kind = data.draw(st.sampled_from(["flip", "set", "cut", "insert"]))
        pos = data.draw(st.integers(0, max(len(frame) - 1, 0)))
        if kind == "flip" and frame:
            frame[pos] ^= 1 << data.draw(st.integers(0, 7))
        elif kind == "set" and frame:
            frame[pos] = data.draw(st.integers(0, 255))
        elif kind == "cut":
            del frame[pos:pos + data.draw(st.integers(1, 16))]
        else:
            frame[pos:pos] = data.draw(st.binary(min_size=1, max_size=16))
    try:
        wire.decode(bytes(frame), max_message_bytes=1 << 16)
    except _ALLOWED:
        pass
