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

Params layout (``M_*``): magic, inputs, hidden units, top; then the mean (inputs), the inverse
scale (inputs), the hidden weights (hidden x inputs, row-major), the hidden biases, the output
weights (hidden) and the output bias. The file (.npz, float32 arrays ``mean``, ``scale``,
``w1``, ``b1``, ``w2``, ``b2``, ``top``, and the feature names) is what :func:`save` writes and
:func:`load_values` reads, refusing a missing or damaged one with a one-line ValueError.
"""
from __future__ import annotations

import io
import math
import os
import zipfile
from typing import Any

import numpy as np

from base.jit import hot
from core.reinforce_tactics.layout import H_OVER, H_PLAYER, H_WINNER
from heuristics.reinforce_tactics.learned_features import NAMES, NF, features

MAGIC = 38.0  # the issue that introduced the format; a params vector not starting so is refused
M_MAGIC = 0
M_NIN = 1
M_NHID = 2
M_TOP = 3
M_HEAD = 4
MAX_HIDDEN = 1024
ARRAYS = ("mean", "scale", "w1", "b1", "w2", "b2", "top")


def params_len(n_in: int, n_hid: int) -> int:
    return M_HEAD + 2 * n_in + n_hid * n_in + 2 * n_hid + 1


@hot
def forward(x, params) -> float:
    """``tanh(y)`` of the model in ``params`` (module docstring) at features ``x``."""
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
    return math.tanh(y)


@hot
def evaluate(g, s, params) -> float:
    """The heuristic: ``top * forward(features(s))`` for the side to move; ``+-top`` (0 drawn)
    for a finished game."""
    top = params[M_TOP]
    if s[H_OVER] != 0:
        w = s[H_WINNER]
        return 0.0 if w < 0 else (top if w == s[H_PLAYER] else -top)
    x = np.zeros(NF)
    features(g, s, x)
    return top * forward(x, params)


# --- the model as arrays (numpy: training, tests, files) --------------------------------------
def init_model(n_hid: int, seed: int, mean: Any = None, scale: Any = None, top: float = 0.9) -> dict[str, np.ndarray]:
    """A fresh model: small random weights (seeded), standardisation ``mean``/``scale`` (zeros
    and ones by default)."""
    rng = np.random.default_rng(seed)
    return {"mean": np.zeros(NF) if mean is None else np.asarray(mean, np.float64),
            "scale": np.ones(NF) if scale is None else np.asarray(scale, np.float64),
            "w1": rng.normal(0.0, 1.0 / math.sqrt(NF), (n_hid, NF)), "b1": np.zeros(n_hid),
            "w2": rng.normal(0.0, 1.0 / math.sqrt(n_hid), n_hid), "b2": np.zeros(1),
            "top": np.array([top])}


def forward_np(model: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """``tanh(y)`` for each row of ``x`` (numpy, batched)."""
    hidden = np.tanh(((np.asarray(x, np.float64) - model["mean"]) / model["scale"]) @ model["w1"].T + model["b1"])
    return np.tanh(hidden @ model["w2"] + model["b2"][0])


def pack(model: dict[str, np.ndarray]) -> np.ndarray:
    """The model as ``evaluate``'s ``params`` (float64, layout ``M_*``)."""
    n_hid, n_in = model["w1"].shape
    head = [MAGIC, float(n_in), float(n_hid), float(model["top"][0])]
    parts = [np.asarray(head), model["mean"], 1.0 / model["scale"], model["w1"].ravel(), model["b1"],
             model["w2"], model["b2"]]
    return np.concatenate([np.asarray(p, np.float64).ravel() for p in parts])


def to_file_arrays(model: dict[str, np.ndarray], plain: bool = False) -> dict[str, Any]:
    """The arrays a weights file holds: float32, and the feature names (an array; ``plain``:
    a list of str, as :mod:`base.codec` embeds data in a submission)."""
    out: dict[str, Any] = {k: np.asarray(model[k], np.float32) for k in ARRAYS}
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
    """``arrays`` as a model (float64) after checking names, shapes and values."""
    missing = [k for k in ARRAYS + ("features",) if k not in arrays]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}")
    names = tuple(str(n) for n in np.asarray(arrays["features"]).ravel())
    if names != NAMES:
        raise ValueError(f"{where} was trained on other features ({len(names)} named, this build has {NF})")
    m = {k: np.asarray(arrays[k], np.float64) for k in ARRAYS}
    w1 = m["w1"]
    n_hid = w1.shape[0] if w1.ndim == 2 else -1
    shapes = {"mean": (NF,), "scale": (NF,), "w1": (n_hid, NF), "b1": (n_hid,), "w2": (n_hid,), "b2": (1,), "top": (1,)}
    if not 1 <= n_hid <= MAX_HIDDEN or any(m[k].shape != shape for k, shape in shapes.items()):
        raise ValueError(f"{where} has arrays of the wrong shapes")
    if not all(np.isfinite(a).all() for a in m.values()) or (m["scale"] <= 0).any() or not 0 < m["top"][0] <= 1:
        raise ValueError(f"{where} holds non-finite values, a scale <= 0 or a top outside (0, 1]")
    return m


def load_values(path: str) -> list[float]:
    """The ``params`` of the weights file at ``path``: what ``heuristic=learned`` reads from its
    ``weights=`` parameter (agents.engine.params). ValueError in one line when missing or damaged."""
    if not str(path or "").strip():
        raise ValueError("heuristic learned needs its weights file: weights=PATH (.npz)")
    return [float(v) for v in pack(read_model(str(path).strip()))]
