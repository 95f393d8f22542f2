"""The Penn Treebank reader of TensorFlow's language-model tutorial
(``from tensorflow.models.rnn.ptb import reader``).

``ptb_raw_data(data_path)`` reads ``ptb.train.txt``, ``ptb.valid.txt`` and
``ptb.test.txt`` (Mikolov's files, one sentence a line) into lists of word ids, a
line end counting as the word ``<eos>``; ids number the training words by falling
count, ties by the word. ``ptb_iterator`` yields numpy batches; ``ptb_producer`` is
the graph form: tensors ``x`` and ``y`` of ``[batch_size, num_steps]`` that move one
window further on every run, driven by a queue runner as in TensorFlow 1.x.
"""

from __future__ import annotations

import collections
import os
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes
from tensorfleet.framework.graph import (
    Tensor, control_dependencies, convert_to_tensor, name_scope)
from tensorfleet.ops import array_ops, check_ops
from tensorfleet.training.input import range_input_producer

_FILES = ("ptb.train.txt", "ptb.valid.txt", "ptb.test.txt")


def _read_words(filename: str) -> List[str]:
    with open(filename, encoding="utf-8") as f:
        return f.read().replace("\n", "<eos>").split()


def _build_vocab(filename: str) -> Dict[str, int]:
    counts = collections.Counter(_read_words(filename))
    words = sorted(counts, key=lambda w: (-counts[w], w))
    return {w: i for i, w in enumerate(words)}


def _file_to_word_ids(filename: str, word_to_id: Dict[str, int]) -> List[int]:
    return [word_to_id[w] for w in _read_words(filename) if w in word_to_id]


def ptb_raw_data(data_path: Optional[str] = None) -> Tuple[List[int], List[int], List[int], int]:
    """``(train ids, valid ids, test ids, vocabulary size)`` from the three PTB files in
    ``data_path``; a missing file is a ``FileNotFoundError`` naming it."""
    paths = [os.path.join(data_path or "", name) for name in _FILES]
    for p in paths:
        if not os.path.exists(p):
            raise FileNotFoundError(f"PTB file {p!r} not found: put {', '.join(_FILES)} "
                                    f"(from Mikolov's simple-examples/data) in {data_path!r}")
    word_to_id = _build_vocab(paths[0])
    train, valid, test = (_file_to_word_ids(p, word_to_id) for p in paths)
    return train, valid, test, len(word_to_id)


def _batched(raw_data: Sequence[int], batch_size: int, num_steps: int) -> Tuple[np.ndarray, int]:
    if batch_size <= 0 or num_steps <= 0:
        raise ValueError(f"batch_size and num_steps must be positive, got {batch_size}, "
                         f"{num_steps}")
    data = np.asarray(raw_data, np.int32)
    batch_len = len(data) // batch_size
    epoch_size = (batch_len - 1) // num_steps
    if epoch_size <= 0:
        raise ValueError(f"epoch_size == 0: {len(data)} words are too few for batch_size "
                         f"{batch_size} and num_steps {num_steps}")
    return data[:batch_size * batch_len].reshape(batch_size, batch_len), epoch_size


def ptb_iterator(raw_data: Sequence[int], batch_size: int, num_steps: int
                 ) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """Yields ``(x, y)`` int32 arrays of ``[batch_size, num_steps]``, ``y`` being ``x``
    shifted by one word, over one epoch of ``raw_data``."""
    data, epoch_size = _batched(raw_data, batch_size, num_steps)
    for i in range(epoch_size):
        window = data[:, i * num_steps:(i + 1) * num_steps + 1]
        yield window[:, :-1], window[:, 1:]


def ptb_producer(raw_data: Sequence[int], batch_size: int, num_steps: int,
                 name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """``x, y`` tensors of ``[batch_size, num_steps]`` that advance one window per run
    (``tf.train.start_queue_runners`` must run first); ``y`` is ``x`` shifted by one."""
    with name_scope(name or "PTBProducer"):
        data_np, epoch_size = _batched(raw_data, batch_size, num_steps)
        data = convert_to_tensor(data_np, dtype=dtypes.int32, name="raw_data")
        assertion = check_ops.assert_positive(epoch_size, message="epoch_size == 0")
        with control_dependencies([assertion]):
            epoch = array_ops.identity(epoch_size, name="epoch_size")
        i = range_input_producer(epoch, shuffle=False).dequeue()
        x = array_ops.strided_slice(data, [0, i * num_steps], [batch_size, (i + 1) * num_steps])
        x.set_shape([batch_size, num_steps])
        y = array_ops.strided_slice(data, [0, i * num_steps + 1],
                                    [batch_size, (i + 1) * num_steps + 1])
        y.set_shape([batch_size, num_steps])
        return x, y


__all__ = ["ptb_raw_data", "ptb_iterator", "ptb_producer"]
