"""base.codec: plain data round-trips exactly; anything else is refused at pack time; every
kind of damage to a blob is reported as a CodecError."""
from __future__ import annotations

import base64
import collections
import enum
import random
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from base import codec
from base.codec import CodecError
from core.connectx import Position, Shape

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
)
plain = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(st.one_of(st.integers(), st.text(max_size=5)), inner, max_size=5),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(value=plain)
def test_plain_data_round_trips(value):
    text = codec.pack(value)
    assert text.isascii() and "\n" not in text
    assert codec.same(codec.unpack(text), value)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "uint64", "float32", "float64", "bool", ">i4"])
def test_numpy_arrays_keep_dtype_shape_and_values(dtype):
    rng = np.random.default_rng(7)
    arr = (rng.integers(0, 100, size=(3, 4, 5)) % (2 if dtype == "bool" else 100)).astype(dtype)
    back = codec.unpack(codec.pack({"book": arr, "empty": np.zeros(0, dtype=dtype)}))
    assert back["book"].dtype == arr.dtype and back["book"].shape == arr.shape
    assert np.array_equal(back["book"], arr) and back["empty"].shape == (0,)
    assert back["book"].flags.writeable


def test_numpy_scalars_and_non_contiguous_arrays():
    arr = np.arange(20, dtype=np.int64).reshape(4, 5)[:, ::2]
    value = [np.int64(-5), np.float32(1.5), np.bool_(True), arr]
    back = codec.unpack(codec.pack(value))
    assert codec.same(back, value)
    assert type(back[0]) is np.int64 and back[0] == -5


def test_sets_and_big_ints_round_trip():
    value = {"s": {1, 2, 3}, "f": frozenset({"a"}), "big": 2**300 + 1, "neg": -(2**70)}
    assert codec.unpack(codec.pack(value)) == value


class Opaque:
    pass


Point = collections.namedtuple("Point", "x y")


class Colour(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize(
    "bad, where",
    [
        (Position.empty(), "data is a core.connectx.position.Position"),
        ({"shape": Shape(6, 7, 4)}, "data['shape']"),
        ([1, [2, Opaque()]], "data[1][1]"),
        (Point(1, 2), "Point"),
        ({"c": Colour.RED}, "Colour"),
        ({Shape(): 1}, "key"),
        (lambda: 1, "function"),
        (np.array([object()], dtype=object), "dtype object"),
        (np.array(["ab"]), "dtype <U2"),
        (bytearray(b"x"), "bytearray"),
        (1 + 2j, "complex"),
    ],
)
def test_non_plain_values_are_refused_at_pack_time(bad, where):
    with pytest.raises(CodecError, match="data") as info:
        codec.pack(bad)
    assert where in str(info.value)


def test_cycles_are_refused():
    loop: list = [1]
    loop.append(loop)
    with pytest.raises(CodecError, match="cycle"):
        codec.pack(loop)


def test_shared_subtrees_are_not_cycles():
    shared = [1, 2]
    assert codec.unpack(codec.pack([shared, shared])) == [[1, 2], [1, 2]]


BLOB = codec.pack({"book": np.arange(1000, dtype=np.int64), "names": ["a", "b"] * 50})


def test_every_single_character_change_in_the_body_is_detected():
    rng = random.Random(3)
    prefix_len = BLOB.rindex(":") + 1
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for _ in range(300):
        i = rng.randrange(prefix_len, len(BLOB))
        new = rng.choice(alphabet.replace(BLOB[i], ""))
        damaged = BLOB[:i] + new + BLOB[i + 1 :]
        with pytest.raises(CodecError, match="damaged|truncated|unpickle"):
            codec.unpack(damaged)


@pytest.mark.parametrize(
    "damaged, message",
    [
        (BLOB[: len(BLOB) // 2], "damaged|truncated"),
        (BLOB[:20], "format or truncated"),
        ("", "format or truncated"),
        (BLOB.replace("cxdata1", "cxdata9"), "format"),
        (BLOB[:-4] + "!!!!", "base64"),
        (BLOB.split(":")[0] + ":" + "0" * 64 + ":" + BLOB.split(":")[2], "checksum"),
    ],
    ids=["half", "prefix-only", "empty", "magic", "base64", "checksum"],
)
def test_damaged_blobs_fail_with_a_clear_reason(damaged, message):
    with pytest.raises(CodecError, match=message):
        codec.unpack(damaged)


def test_unpack_refuses_a_pickle_that_names_a_global():
    import hashlib
    import pickle

    raw = pickle.dumps(Opaque(), protocol=4)
    text = f"cxdata1:{hashlib.sha256(raw).hexdigest()}:{base64.b64encode(zlib.compress(raw)).decode()}"
    with pytest.raises(CodecError, match="only plain data"):
        codec.unpack(text)


def test_unpack_refuses_non_text():
    with pytest.raises(CodecError, match="must be a str"):
        codec.unpack(BLOB.encode())  # type: ignore[arg-type]


def test_roundtrip_checks_and_same_tells_types_apart():
    assert codec.unpack(codec.roundtrip([1, 2.0, True])) == [1, 2.0, True]
    assert not codec.same(1, 1.0) and not codec.same(1, True)
    assert not codec.same(np.arange(3), np.arange(3).astype(np.int32))
    assert codec.same(float("nan"), float("nan"))
