"""Pack plain data into one line of text for a submission file, and unpack it with a checksum.

Why so strict: a submission file is loaded in a process where the toolkit's modules live under
a private bundle prefix (see :mod:`base.bundle`), so a pickled instance of a project class
would not find its class there (or, worse, would find the installed toolkit's). Only plain
data goes in: ``None``, ``bool``, ``int``, ``float``, ``str``, ``bytes``, ``list``, ``tuple``,
``dict``, ``set``, ``frozenset`` (exact types: subclasses such as namedtuples, enums or
project classes are refused) and numpy arrays and scalars of bool, integer or float dtype.
:func:`pack` refuses anything else with a :class:`CodecError` naming the path to the bad
value, so the mistake shows at build time, not on Kaggle.

Format: ``cxdata1:<sha256 of the pickle, hex>:<base64 of zlib(pickle)>``. numpy values travel
as pickle *persistent ids* (dtype string, shape, raw bytes), so the pickle names no global at
all: the loader refuses every global (defence in depth), and the blob does not depend on
numpy's private module paths, which moved between numpy 1 and 2. Every way a blob can be
damaged (truncated, edited, wrong prefix, bad base64, bad zlib, checksum mismatch) raises
:class:`CodecError` with a message saying which.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import io
import pickle
import zlib
from typing import Any

MAGIC = "cxdata1"
_PROTOCOL = 4  # every Python 3.8+ reads it; has opcodes for sets, frozensets and bytes
_ZLIB_LEVEL = 6  # level 9 took 5.3 s on the 3.7 MB MCTS cache for 1.3% less than level 6 (0.6 s)
_PLAIN_SCALARS = (type(None), bool, int, float, str, bytes)
_CONTAINERS = (list, tuple, set, frozenset)
_NUMPY_KINDS = "biuf"  # bool, signed and unsigned integers, floats


def is_packed(value: Any) -> bool:
    """Whether ``value`` is a blob of :func:`pack` (text starting with the format's mark): a
    file parameter a submission carries inline (:func:`agents.submission.embed_files`)."""
    return isinstance(value, str) and value.startswith(MAGIC + ":")


def brief(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` for messages and a file's docstring: each blob of :func:`pack` shown by its size."""
    return {k: f"<embedded, {len(v)} characters>" if is_packed(v) else v for k, v in params.items()}


class CodecError(ValueError):
    """Data that cannot be packed, or a blob that is damaged: the message says which."""


def _is_numpy(value: Any) -> bool:
    return type(value).__module__ == "numpy" and type(value).__name__ != "dtype"


def check_plain(value: Any, path: str = "data") -> None:
    """Raise CodecError unless ``value`` is plain data (see the module docstring)."""
    stack: list = [(value, path)]
    active: set[int] = set()  # containers on the current path: a repeat is a cycle
    _EXIT = object()
    while stack:
        item, where = stack.pop()
        if item is _EXIT:
            active.discard(where)
            continue
        kind = type(item)
        if kind in _PLAIN_SCALARS:
            continue
        if _is_numpy(item):
            _check_numpy(item, where)
            continue
        if kind in _CONTAINERS or kind is dict:
            if id(item) in active:
                raise CodecError(f"{where} contains itself (a cycle); embedded data must be a tree")
            active.add(id(item))
            stack.append((_EXIT, id(item)))
            if kind is dict:
                for key, sub in item.items():
                    stack.append((key, f"{where} key {key!r}"))
                    stack.append((sub, f"{where}[{key!r}]"))
            else:
                for i, sub in enumerate(item):
                    stack.append((sub, f"{where}[{i}]"))
            continue
        raise CodecError(
            f"{where} is a {kind.__module__}.{kind.__qualname__}: embedded data must be plain "
            "(None, bool, int, float, str, bytes, list, tuple, dict, set, numpy bool/int/float arrays); "
            "convert objects to plain values in bundle_data() and rebuild them in use_data()"
        )


def _check_numpy(item: Any, where: str) -> None:
    import numpy as np

    if isinstance(item, np.ndarray) and type(item) is np.ndarray or isinstance(item, np.generic):
        if item.dtype.kind in _NUMPY_KINDS and not item.dtype.fields:
            return
        raise CodecError(f"{where} is a numpy value of dtype {item.dtype}: only bool, integer and float dtypes are allowed")
    raise CodecError(f"{where} is a {type(item).__qualname__}: only plain numpy arrays and scalars are allowed")


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj: Any) -> Any:
        if _is_numpy(obj):
            import numpy as np

            arr = np.asarray(obj)
            kind = "ndarray" if isinstance(obj, np.ndarray) else "scalar"
            return (kind, arr.dtype.str, tuple(arr.shape), arr.tobytes(order="C"))
        return None


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        try:
            kind, dtype, shape, raw = pid
            import numpy as np

            arr = np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape).copy()
        except Exception as exc:
            raise CodecError(f"embedded numpy value is damaged: {exc}") from None
        if kind == "ndarray":
            return arr
        if kind == "scalar":
            return arr[()]
        raise CodecError(f"embedded data names an unknown persistent kind {kind!r}")

    def find_class(self, module: str, name: str) -> Any:
        raise CodecError(f"embedded data refers to {module}.{name}: only plain data may be embedded")


def pack(value: Any) -> str:
    """``value`` (plain data) as one line of ASCII text: see the module docstring."""
    check_plain(value)
    buf = io.BytesIO()
    _Pickler(buf, protocol=_PROTOCOL).dump(value)
    raw = buf.getvalue()
    digest = hashlib.sha256(raw).hexdigest()
    body = base64.b64encode(zlib.compress(raw, _ZLIB_LEVEL)).decode("ascii")
    return f"{MAGIC}:{digest}:{body}"


def unpack(text: str) -> Any:
    """The value :func:`pack` packed. Raises CodecError on any damage."""
    if not isinstance(text, str):
        raise CodecError(f"packed data must be a str, got {type(text).__name__}")
    parts = text.strip().split(":")
    if len(parts) != 3 or parts[0] != MAGIC:
        raise CodecError(f"packed data does not start with '{MAGIC}:<sha256>:' (wrong format or truncated)")
    _, digest, body = parts
    try:
        compressed = base64.b64decode(body.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
        raise CodecError(f"packed data is not valid base64 ({exc}): the blob was damaged") from None
    if base64.b64encode(compressed).decode("ascii") != body:
        # The last character before '=' padding carries bits the decoder ignores: a change
        # there would decode to the same bytes and pass the checksum, so insist on the one
        # encoding pack() writes.
        raise CodecError("packed data is not the canonical base64 of its bytes: the blob was damaged")
    try:
        raw = zlib.decompress(compressed)
    except zlib.error as exc:
        raise CodecError(f"packed data does not decompress ({exc}): the blob was damaged or truncated") from None
    actual = hashlib.sha256(raw).hexdigest()
    if actual != digest:
        raise CodecError(f"packed data checksum mismatch (expected {digest[:12]}..., got {actual[:12]}...): the blob was damaged")
    try:
        return _Unpickler(io.BytesIO(raw)).load()
    except CodecError:
        raise
    except Exception as exc:
        raise CodecError(f"packed data does not unpickle ({type(exc).__name__}: {exc})") from None


def same(a: Any, b: Any) -> bool:
    """Deep equality that also compares numpy arrays (dtype, shape and values) and tells
    ``1`` from ``1.0`` and ``True``: what a round trip must preserve."""
    if type(a) is not type(b):
        return False
    if _is_numpy(a):
        import numpy as np

        return a.dtype == b.dtype and np.shape(a) == np.shape(b) and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return b != b
    return bool(a == b)


def roundtrip(value: Any) -> str:
    """Pack ``value`` and check that unpacking gives it back: the build-time check."""
    text = pack(value)
    if not same(unpack(text), value):
        raise CodecError("packed data does not unpack to the same value (a float NaN in a set, or a dict with equal keys of different types?)")
    return text
