"""The learned evaluation of Reinforce Tactics (``heuristic=learned``): a small MLP over the
features of :mod:`.learned_features`, on the engine's ``evaluate(g, s, params)`` signature, where
``params`` is the model itself, flattened (:func:`pack`): the searches hand it to their kernels
as they hand the hand heuristic its weights, and it runs the same in numpy
(:func:`forward_np`), plain Python and the compiled path (:func:`forward`, hot).

Model: ``x`` standardised by the file's mean and scale, one ``tanh`` hidden layer, one output
``y``; the value in ``[-1, 1]`` is ``tanh(y)``: the expected outcome for the side to move (1 a
win, -1 a loss, 0 a draw), which is what it is trained on. In the heuristic's units
(:mod:`heuristics.reinforce_tactics`: estimates inside ``(-top, top)``, a finished game ``+-top``
and a search scoring it by its outcome, 1) the estimate is ``top * tanh(y)``, ``top`` stored in
the file (0.9 by default, as the hand heuristic's). A finished game scores ``+-top`` (0 drawn).

Two kinds (``kind`` in the file, ``M_KIND`` in the params):

- **absolute** (``KIND_ABSOLUTE``, format 1's only kind): the estimate is ``top * tanh(y)``;
- **residual** (``KIND_RESIDUAL``): the hand heuristic plus a learned correction. With ``z`` the
  hand heuristic's advantage in gold (:func:`heuristics.reinforce_tactics.advantage`, with the
  hand weights stored in the file, float64) and ``scale``, ``top`` its weights, the estimate is
  ``top * z' / (scale + |z'|)`` at ``z' = z + scale * y``: the hand heuristic's own squash of a
  corrected advantage (the file's ``top`` is not used). A model whose output weights and bias are 0 (``y = 0``; what
  :func:`init_model` gives a residual) is the hand heuristic exactly, to the bit: generation 0
  of a residual model plays as the hand greedy does.

Params layout (``M_*``): magic, inputs, hidden units, top, kind, the hand weights (``NHAND``);
then the mean (inputs), the inverse scale (inputs), the hidden weights (hidden x inputs,
row-major), the hidden biases, the output weights (hidden) and the output bias. The file (.npz,
float32 arrays ``mean``, ``scale``, ``w1``, ``b1``, ``w2``, ``b2``, ``top``, ``kind``; ``hand``
in float64, ``version`` and the feature names) is what :func:`save` writes and :func:`load_values` reads,
refusing a missing or damaged one with a one-line ValueError. ``version`` is :data:`FORMAT` (2);
a file without it is format 1 (an absolute model, before residuals: read as one); a later
format is refused in one line.
"""
from __future__ import annotations

import io
import math
import os
import zipfile
from typing import Any

import numpy as np

from base import codec
from base.jit import hot
from core.reinforce_tactics.layout import H_OVER, H_PLAYER, H_WINNER
from heuristics.reinforce_tactics import advantage
from heuristics.reinforce_tactics.learned_features import NAMES, NF, features
from heuristics.reinforce_tactics.params import NAMES as HAND_NAMES
from heuristics.reinforce_tactics.params import P_SCALE, P_TOP, Weights

MAGIC = 38.0  # the issue that introduced the format; a params vector not starting so is refused
FORMAT = 2  # the weights file's version (module docstring); 1: before residual models
KIND_ABSOLUTE = 0
KIND_RESIDUAL = 1
KINDS = {"absolute": KIND_ABSOLUTE, "residual": KIND_RESIDUAL}
NHAND = len(HAND_NAMES)  # the hand heuristic's weights a model carries (its base when residual)
M_MAGIC = 0
M_NIN = 1
M_NHID = 2
M_TOP = 3
M_KIND = 4
M_HAND = 5
M_HEAD = M_HAND + NHAND
MAX_HIDDEN = 1024
ARRAYS = ("mean", "scale", "w1", "b1", "w2", "b2", "top")


def params_len(n_in: int, n_hid: int) -> int:
    return M_HEAD + 2 * n_in + n_hid * n_in + 2 * n_hid + 1


@hot
def forward(x, params) -> float:
    """``tanh(y)`` of the model in ``params`` (module docstring) at features ``x``."""
    return math.tanh(output(x, params))


@hot
def output(x, params) -> float:
    """``y``, the network's output, of the model in ``params`` at features ``x``."""
    n_in = int(params[M_NIN])
    n_hid = int(params[M_NHID])
    mean = M_HEAD
    isd = mean + n_in
    w1 = isd + n_in
    b1 = w1 + n_hid * n_in
    w2 = b1 + n_hid
    y = params[w2 + n_hid]
    for h in range(n_hid):
        a = params[b1 + h]
        row = w1 + h * n_in
        for i in range(n_in):
            a += params[row + i] * (x[i] - params[mean + i]) * params[isd + i]
        y += params[w2 + h] * math.tanh(a)
    return y


@hot
def evaluate(g, s, params) -> float:
    """The heuristic for the side to move (module docstring: ``top * tanh(y)``, or the hand
    heuristic's squash of its corrected advantage); ``+-top`` (0 drawn) for a finished game."""
    residual = params[M_KIND] == KIND_RESIDUAL
    hand = params[M_HAND:M_HEAD]
    top = hand[P_TOP] if residual else params[M_TOP]
    if s[H_OVER] != 0:
        w = s[H_WINNER]
        return 0.0 if w < 0 else (top if w == s[H_PLAYER] else -top)
    x = np.zeros(NF)
    features(g, s, x)
    y = output(x, params)
    if not residual:
        return top * math.tanh(y)
    scale = hand[P_SCALE]
    z = advantage(g, s, hand) + scale * y
    return top * z / (scale + abs(z))


# --- the model as arrays (numpy: training, tests, files) --------------------------------------
def init_model(n_hid: int, seed: int, mean: Any = None, scale: Any = None, top: float = 0.9,
               kind: str = "absolute", hand: Any = None) -> dict[str, np.ndarray]:
    """A fresh model: small random weights (seeded), standardisation ``mean``/``scale`` (zeros
    and ones by default). ``kind`` "residual": output weights and bias 0 (the hand heuristic
    with weights ``hand``, default :class:`Weights`, exactly) and ``top`` the hand's."""
    rng = np.random.default_rng(seed)
    hand_w = np.asarray(Weights().vector() if hand is None else hand, np.float64)
    residual = KINDS[kind] == KIND_RESIDUAL
    w2 = rng.normal(0.0, 1.0 / math.sqrt(n_hid), n_hid)
    return {"mean": np.zeros(NF) if mean is None else np.asarray(mean, np.float64),
            "scale": np.ones(NF) if scale is None else np.asarray(scale, np.float64),
            "w1": rng.normal(0.0, 1.0 / math.sqrt(NF), (n_hid, NF)), "b1": np.zeros(n_hid),
            "w2": np.zeros(n_hid) if residual else w2, "b2": np.zeros(1),
            "top": np.array([hand_w[P_TOP] if residual else top]), "kind": np.array([float(KINDS[kind])]),
            "hand": hand_w}


def output_np(model: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """``y`` for each row of ``x`` (numpy, batched)."""
    hidden = np.tanh(((np.asarray(x, np.float64) - model["mean"]) / model["scale"]) @ model["w1"].T + model["b1"])
    return hidden @ model["w2"] + model["b2"][0]


def forward_np(model: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """``tanh(y)`` for each row of ``x`` (numpy, batched)."""
    return np.tanh(output_np(model, x))


def is_residual(model: dict[str, np.ndarray]) -> bool:
    return int(model["kind"][0]) == KIND_RESIDUAL


def value_np(model: dict[str, np.ndarray], x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The estimate over ``top`` (in ``(-1, 1)``) for each row of ``x``: ``tanh(y)``, or for a
    residual the squash of ``q + y`` with ``q`` the hand advantage over its scale (``z / scale``)."""
    y = output_np(model, x)
    if not is_residual(model):
        return np.tanh(y)
    t = np.asarray(q, np.float64) + y
    return t / (1.0 + np.abs(t))


def pack(model: dict[str, np.ndarray]) -> np.ndarray:
    """The model as ``evaluate``'s ``params`` (float64, layout ``M_*``)."""
    n_hid, n_in = model["w1"].shape
    head = [MAGIC, float(n_in), float(n_hid), float(model["top"][0]), float(model["kind"][0])]
    parts = [np.asarray(head), model["hand"], model["mean"], 1.0 / model["scale"], model["w1"].ravel(), model["b1"],
             model["w2"], model["b2"]]
    return np.concatenate([np.asarray(p, np.float64).ravel() for p in parts])


def to_file_arrays(model: dict[str, np.ndarray], plain: bool = False) -> dict[str, Any]:
    """The arrays a weights file holds: float32, and the feature names (an array; ``plain``:
    a list of str, as :mod:`base.codec` embeds data in a submission)."""
    out: dict[str, Any] = {k: np.asarray(model[k], np.float32) for k in ARRAYS + ("kind",)}
    out["hand"] = np.asarray(model["hand"], np.float64)  # the base heuristic's weights, exactly
    out["version"] = np.array([FORMAT], np.int32)
    out["features"] = list(NAMES) if plain else np.array(NAMES)
    return out


def write_npz(path: str | os.PathLike, arrays: dict[str, Any]) -> None:
    """``arrays`` as an .npz at ``path``, written atomically (base.atomic): whole or not at all."""
    from base.atomic import write_bytes

    buf = io.BytesIO()
    np.savez(buf, **arrays)
    write_bytes(path, buf.getvalue())


def save(path: str | os.PathLike, model: dict[str, np.ndarray]) -> None:
    """Write the model as a float32 .npz at ``path`` (atomically)."""
    write_npz(path, to_file_arrays(model))


def read_model(source: Any) -> dict[str, np.ndarray]:
    """The model (float64 arrays) of a weights file (a path, bytes or a file object); ValueError
    in one line when it is missing, not an .npz, or its arrays do not fit together."""
    where = f"weights file {str(source)!r}" if isinstance(source, (str, os.PathLike)) else "weights data"
    try:
        with np.load(io.BytesIO(source) if isinstance(source, bytes) else source, allow_pickle=False) as z:
            arrays = {k: np.asarray(z[k]) for k in z.files}
    except FileNotFoundError:
        raise ValueError(f"{where} does not exist") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(f"{where} is not a weights .npz ({type(exc).__name__})") from None
    return checked(arrays, where)


def checked(arrays: dict[str, np.ndarray], where: str) -> dict[str, np.ndarray]:
    """``arrays`` as a model (float64) after checking the format, names, shapes and values; a
    format 1 file (no ``version``) is read as an absolute model on the default hand weights."""
    version = int(np.asarray(arrays["version"]).ravel()[0]) if "version" in arrays and np.size(arrays["version"]) else 1
    if version not in (1, FORMAT):
        raise ValueError(f"{where} is weights format {version}; this build reads formats 1 and {FORMAT}")
    needed = ARRAYS + ("features",) + (("kind", "hand") if version >= 2 else ())
    missing = [k for k in needed if k not in arrays]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}")
    names = tuple(str(n) for n in np.asarray(arrays["features"]).ravel())
    if names != NAMES:
        raise ValueError(f"{where} was trained on other features ({len(names)} named, this build has {NF})")
    m = {k: np.asarray(arrays[k], np.float64) for k in ARRAYS}
    m["kind"] = np.asarray(arrays["kind"], np.float64) if version >= 2 else np.array([float(KIND_ABSOLUTE)])
    m["hand"] = np.asarray(arrays["hand"], np.float64) if version >= 2 else np.asarray(Weights().vector(), np.float64)
    w1 = m["w1"]
    n_hid = w1.shape[0] if w1.ndim == 2 else -1
    shapes = {"mean": (NF,), "scale": (NF,), "w1": (n_hid, NF), "b1": (n_hid,), "w2": (n_hid,), "b2": (1,), "top": (1,),
              "kind": (1,), "hand": (NHAND,)}
    if not 1 <= n_hid <= MAX_HIDDEN or any(m[k].shape != shape for k, shape in shapes.items()):
        raise ValueError(f"{where} has arrays of the wrong shapes")
    if not all(np.isfinite(a).all() for a in m.values()) or (m["scale"] <= 0).any() or not 0 < m["top"][0] <= 1:
        raise ValueError(f"{where} holds non-finite values, a scale <= 0 or a top outside (0, 1]")
    if m["kind"][0] not in KINDS.values():
        raise ValueError(f"{where} is of an unknown kind {m['kind'][0]:g} (0 absolute, 1 residual)")
    if m["hand"][P_SCALE] <= 0 or not 0 < m["hand"][P_TOP] <= 1:
        raise ValueError(f"{where} holds hand weights with a scale <= 0 or a top outside (0, 1]")
    return m


def load_values(path: str) -> list[float]:
    """The ``params`` of the weights file at ``path``: what ``heuristic=learned`` reads from its
    ``weights=`` parameter (agents.engine.params). A submission file carries the file's bytes
    inline instead, packed by :mod:`base.codec` (:func:`agents.submission.embed_files`).
    ValueError in one line when missing or damaged."""
    text = str(path or "").strip()
    if not text:
        raise ValueError("heuristic learned needs its weights file: weights=PATH (.npz)")
    if not codec.is_packed(text):
        return [float(v) for v in pack(read_model(text))]
    try:
        raw = codec.unpack(text)
    except codec.CodecError as exc:
        raise ValueError(f"the embedded weights are damaged ({exc})") from None
    if not isinstance(raw, bytes):
        raise ValueError("the embedded weights are not a file's bytes")
    return [float(v) for v in pack(read_model(raw))]
