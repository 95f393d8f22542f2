"""``tf.keras.datasets.imdb`` and ``reuters``: texts as sequences of word indices, read
from the ``.npz`` files and word-index JSON files Keras caches in ``~/.keras/datasets``.

The sequences are stored as numpy arrays of Python lists, which ``.npz`` files hold
pickled; they are read by ``tensorfleet.keras.pickled_data``, which builds plain data and
runs nothing. Shuffling, the start and out-of-vocabulary markers, the index offset and
the length and vocabulary limits are applied as Keras applies them.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet.keras.datasets import locate
from tensorfleet.keras.pickled_data import load_npz

_MAX_JSON_BYTES = 64 << 20

REUTERS_LABELS = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing",
    "money-supply", "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass",
    "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
    "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi",
    "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
    "dlr", "gas", "silver", "wpi", "hog", "lead")


def _arrays(path: str, keys: Tuple[str, ...]) -> Dict[str, np.ndarray]:
    full = locate(path, "an .npz with arrays " + ", ".join(keys))
    arrays = load_npz(full)
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise ValueError(f"{full}: the .npz file lacks the arrays {missing}")
    return arrays


def _encode(xs: List[Any], labels: np.ndarray, num_words: Optional[int], skip_top: int,
            maxlen: Optional[int], start_char: Optional[int], oov_char: Optional[int],
            index_from: int) -> Tuple[List[List[int]], np.ndarray]:
    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    elif index_from:
        xs = [[w + index_from for w in x] for x in xs]
    if maxlen:
        keep = [i for i, x in enumerate(xs) if len(x) < maxlen]
        xs, labels = [xs[i] for i in keep], labels[keep]
        if not xs:
            raise ValueError(f"After filtering for sequences shorter than maxlen="
                             f"{maxlen}, no sequence was kept. Increase maxlen.")
    if not num_words:
        num_words = max(max(x) for x in xs if x) if any(xs) else 0
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    return xs, labels


def _object_array(xs: List[List[int]]) -> np.ndarray:
    out = np.empty(len(xs), dtype=object)
    for i, x in enumerate(xs):
        out[i] = x
    return out


def load_imdb(path: str = "imdb.npz", num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, seed: int = 113, start_char: Optional[int] = 1,
              oov_char: Optional[int] = 2, index_from: int = 3,
              **kwargs: Any) -> Tuple[Tuple[np.ndarray, np.ndarray],
                                      Tuple[np.ndarray, np.ndarray]]:
    """The IMDB reviews: ``(x_train, y_train), (x_test, y_test)``, each review a list of
    word indices (most frequent word first, offset by ``index_from``), labels 0/1.

    Raises:
      ValueError: unknown keyword arguments, or a file without the four arrays.
      FileNotFoundError: ``imdb.npz`` is not in the Keras cache.
    """
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
    a = _arrays(path, ("x_train", "y_train", "x_test", "y_test"))
    rng = np.random.RandomState(seed)
    order = np.arange(len(a["x_train"]))
    rng.shuffle(order)
    x_train, y_train = a["x_train"][order], a["y_train"][order]
    order = np.arange(len(a["x_test"]))
    rng.shuffle(order)
    x_test, y_test = a["x_test"][order], a["y_test"][order]
    xs = list(x_train) + list(x_test)
    labels = np.concatenate([y_train, y_test])
    xs, labels = _encode(xs, labels, num_words, skip_top, maxlen, start_char, oov_char,
                         index_from)
    n = len(x_train)
    return ((_object_array(xs[:n]), labels[:n]), (_object_array(xs[n:]), labels[n:]))


def load_reuters(path: str = "reuters.npz", num_words: Optional[int] = None,
                 skip_top: int = 0, maxlen: Optional[int] = None, test_split: float = 0.2,
                 seed: int = 113, start_char: Optional[int] = 1, oov_char: Optional[int] = 2,
                 index_from: int = 3, **kwargs: Any) -> Tuple[Tuple[np.ndarray, np.ndarray],
                                                              Tuple[np.ndarray, np.ndarray]]:
    """The Reuters newswires: ``(x_train, y_train), (x_test, y_test)``, each wire a list
    of word indices, labels one of 46 topics (``get_label_names``); the last
    ``test_split`` share for testing.

    Raises:
      ValueError: unknown keyword arguments, or a file without ``x`` and ``y``.
      FileNotFoundError: ``reuters.npz`` is not in the Keras cache.
    """
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be between 0 and 1, got {test_split}")
    a = _arrays(path, ("x", "y"))
    rng = np.random.RandomState(seed)
    order = np.arange(len(a["x"]))
    rng.shuffle(order)
    xs, labels = _encode(list(a["x"][order]), a["y"][order], num_words, skip_top, maxlen,
                         start_char, oov_char, index_from)
    n = int(len(xs) * (1 - test_split))
    return ((_object_array(xs[:n]), labels[:n]), (_object_array(xs[n:]), labels[n:]))


def _word_index(path: str) -> Dict[str, int]:
    full = locate(path, "a JSON object mapping words to indices")
    with open(full, "rb") as f:
        raw = f.read(_MAX_JSON_BYTES + 1)
    if len(raw) > _MAX_JSON_BYTES:
        raise ValueError(f"{full}: larger than {_MAX_JSON_BYTES} bytes")
    index = json.loads(raw.decode("utf-8"))
    if not isinstance(index, dict) or not all(isinstance(v, int) for v in index.values()):
        raise ValueError(f"{full}: not a word index (a JSON object of word: index)")
    return index


def imdb_word_index(path: str = "imdb_word_index.json") -> Dict[str, int]:
    """The IMDB word index: word to rank (1 the most frequent), before ``index_from``."""
    return _word_index(path)


def reuters_word_index(path: str = "reuters_word_index.json") -> Dict[str, int]:
    """The Reuters word index: word to rank (1 the most frequent), before
    ``index_from``."""
    return _word_index(path)


def reuters_label_names() -> Tuple[str, ...]:
    """The 46 Reuters topics, in label order."""
    return REUTERS_LABELS
