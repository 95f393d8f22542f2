"""Connectionist temporal classification: ``tf.nn.ctc_loss`` (and ``ctc_loss_v2``,
``collapse_repeated``) and the CTC decoders.

The class ``num_classes - 1`` is the blank. Inputs are unnormalised logits,
``[max_time, batch, num_classes]`` (time-major, TensorFlow 1.x's default). The loss
op computes the gradient with respect to the logits in the same forward-backward
pass and keeps it as a second output, which the registered gradient scales
(``gradients/ctc_grad.py``); kernels are in ``kernels/numpy/ctc_kernels.py``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops, math_ops, rnn_ops, scatter_ops
from tensorfleet.ops.op_util import make_op


def _dims(t: Tensor, rank: int, what: str) -> List[Optional[int]]:
    s = t.shape
    if s.ndims is None:
        return [None] * rank
    if s.ndims != rank:
        raise ValueError(f"{what} must be {rank}-D, got shape {s}")
    return s.as_list()


def _ctc_loss_shape(op: Operation) -> List[TensorShape]:
    t, b, c = _dims(op.inputs[0], 3, "inputs")
    _dims(op.inputs[1], 2, "labels_indices")
    _dims(op.inputs[2], 1, "labels_values")
    (n,) = _dims(op.inputs[3], 1, "sequence_length")
    if b is not None and n is not None and b != n:
        raise ValueError(f"sequence_length has {n} entries but inputs has batch size {b}")
    return [TensorShape([b]), TensorShape([t, b, c])]


def _decoder_shape(op: Operation) -> List[TensorShape]:
    _, b, _ = _dims(op.inputs[0], 3, "inputs")
    _dims(op.inputs[1], 1, "sequence_length")
    paths = int(op.attrs.get("top_paths", 1))
    per_path = [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]
    return [s for s in per_path for _ in range(paths)] + [TensorShape([b, paths])]


register_op("CTCLoss", _ctc_loss_shape)
register_op("CTCGreedyDecoder", _decoder_shape)
register_op("CTCBeamSearchDecoder", _decoder_shape)


def _float_inputs(inputs: Any, fname: str) -> Tensor:
    x = convert_to_tensor(inputs, name="inputs")
    if x.dtype not in (_dtypes.float32, _dtypes.float64):
        raise TypeError(f"{fname}: inputs must be float32 or float64, got {x.dtype.name}")
    return x


def _seq_len(sequence_length: Any) -> Tensor:
    s = convert_to_tensor(sequence_length, name="sequence_length")
    if s.dtype is not _dtypes.int32:
        raise TypeError(f"sequence_length must be int32, got {s.dtype.name}")
    return s


def ctc_loss(labels: Any, inputs: Any = None, sequence_length: Any = None,
             preprocess_collapse_repeated: bool = False, ctc_merge_repeated: bool = True,
             ignore_longer_outputs_than_inputs: bool = False, time_major: bool = True,
             logits: Any = None) -> Tensor:
    """The CTC loss, ``-log p(labels | inputs)``, one float per batch entry.

    Args:
      labels: an int32 ``SparseTensor`` whose ``indices[i] = [b, position]`` hold
        the label sequence of batch entry ``b``; values in ``[0, num_classes - 2]``
        (the value ``num_classes - 1`` is the blank).
      inputs: logits, ``[max_time, batch, num_classes]`` (``[batch, max_time,
        num_classes]`` with ``time_major=False``), float32 or float64.
      sequence_length: int32 ``[batch]``, the number of valid time steps.
      preprocess_collapse_repeated: collapse repeated labels before the loss.
      ctc_merge_repeated: an alignment's repeated non-blank emissions merge into one
        label (False: every emission is a label of its own).
      ignore_longer_outputs_than_inputs: a label sequence longer than its
        ``sequence_length`` gives loss 0 and no gradient instead of an error.
      logits: TensorFlow's alias of ``inputs`` (give one of them).

    Returns:
      ``[batch]`` losses of the dtype of ``inputs``; an alignment-free entry gives
      ``inf``.

    Raises:
      TypeError: labels that are not a SparseTensor, or inputs of another dtype.
      ValueError: inputs not 3-D, both or neither of ``inputs`` and ``logits``, or
        no ``sequence_length``.
    """
    if (inputs is None) == (logits is None):
        raise ValueError("ctc_loss: give exactly one of inputs and logits")
    if sequence_length is None:
        raise ValueError("ctc_loss: sequence_length is required")
    if isinstance(labels, SparseTensorValue):
        labels = SparseTensor.from_value(labels)
    if not isinstance(labels, SparseTensor):
        raise TypeError(f"Expected labels (first argument) to be a SparseTensor, got "
                        f"{type(labels).__name__}")
    x = _float_inputs(inputs if logits is None else logits, "ctc_loss")
    if not time_major:
        _dims(x, 3, "inputs")
        x = array_ops.transpose(x, [1, 0, 2])
    values = labels.values
    if values.dtype is not _dtypes.int32:
        raise TypeError(f"ctc_loss: labels values must be int32, got {values.dtype.name}")
    op = make_op("CTCLoss", [x, labels.indices, values, _seq_len(sequence_length)],
                 [x.dtype, x.dtype],
                 {"preprocess_collapse_repeated": bool(preprocess_collapse_repeated),
                  "ctc_merge_repeated": bool(ctc_merge_repeated),
                  "ignore_longer_outputs_than_inputs":
                      bool(ignore_longer_outputs_than_inputs)}, name="CTCLoss")
    return op.outputs[0]


def _dense_to_sparse(labels: Tensor, label_length: Any) -> SparseTensor:
    """The first ``label_length[b]`` entries of each row of ``labels`` as a SparseTensor."""
    lengths = convert_to_tensor(label_length, name="label_length")
    mask = rnn_ops.sequence_mask(lengths, maxlen=array_ops.shape(labels)[1])
    where = array_ops.where(mask)
    values = array_ops.cast(scatter_ops.gather_nd(labels, where), _dtypes.int32)
    return SparseTensor(where, values, array_ops.cast(array_ops.shape(labels), _dtypes.int64))


def ctc_loss_v2(labels: Any, logits: Any, label_length: Any, logit_length: Any,
                logits_time_major: bool = True, unique: Any = None, blank_index: Any = None,
                name: Optional[str] = None) -> Tensor:
    """The CTC loss with a choice of blank class and dense or sparse labels.

    Args:
      labels: int ``[batch, max_label_length]`` with ``label_length``, or a
        ``SparseTensor`` (then ``label_length`` is not used).
      logits: ``[frames, batch, num_labels]`` (``[batch, frames, num_labels]`` when
        not ``logits_time_major``).
      logit_length: ``[batch]`` valid frames per entry.
      unique: accepted for TensorFlow's API; there it only speeds up the dense
        computation and never changes the loss, and it is not needed here.
      blank_index: the blank class (negative counts from the end). Default 0 for
        dense labels; required for sparse ones.

    Returns:
      ``[batch]`` losses (``-log p``), as ``ctc_loss`` computes them after moving the
      blank class to the end.

    Raises:
      ValueError: sparse labels without ``blank_index``, dense labels without
        ``label_length``, or a negative ``blank_index`` with an unknown class count.
    """
    sparse = isinstance(labels, (SparseTensor, SparseTensorValue))
    if sparse and blank_index is None:
        raise ValueError("blank_index must be given when using SparseTensor labels.")
    if not sparse and label_length is None:
        raise ValueError("ctc_loss_v2: dense labels need label_length")
    with name_scope(name, "ctc_loss_dense" if not sparse else "ctc_loss"):
        x = _float_inputs(logits, "ctc_loss_v2")
        dims = _dims(x, 3, "logits")
        blank = 0 if blank_index is None else int(blank_index)
        if blank < 0:
            if dims[2] is None:
                raise ValueError("ctc_loss_v2: a negative blank_index needs the number of "
                                 "classes known when the graph is built")
            blank += dims[2]
        if sparse:
            sp = SparseTensor.from_value(labels) if isinstance(labels, SparseTensorValue) \
                else labels
        else:
            sp = _dense_to_sparse(convert_to_tensor(labels, name="labels"), label_length)
        last = dims[2] is not None and blank == dims[2] - 1
        if not last:
            # The kernel's blank is the last class: move it there.
            x = array_ops.concat([x[:, :, :blank], x[:, :, blank + 1:],
                                  x[:, :, blank:blank + 1]], axis=2)
        if not (last and sparse):
            # Labels after the blank shift down one (a label equal to the blank too, as
            # TensorFlow's dense path treats it).
            vals = array_ops.cast(sp.values, _dtypes.int32)
            shifted = array_ops.where(math_ops.less(vals, blank), vals, vals - 1)
            sp = SparseTensor(sp.indices, shifted, sp.dense_shape)
        lengths = array_ops.cast(convert_to_tensor(logit_length, name="logit_length"),
                                 _dtypes.int32)
        return ctc_loss(sp, x, lengths, time_major=logits_time_major)


def collapse_repeated(labels: Any, seq_length: Any, name: Optional[str] = None
                      ) -> Tuple[Tensor, Tensor]:
    """Merges runs of a repeated label in each row's first ``seq_length`` entries:
    ``(collapsed labels [batch, max new length], padded with 0; new lengths)``."""
    with name_scope(name, "collapse_repeated_labels"):
        lab = convert_to_tensor(labels, name="labels")
        lengths = array_ops.cast(convert_to_tensor(seq_length, name="seq_length"),
                                 _dtypes.int32)
        first = array_ops.ones_like(lab[:, :1], dtype=_dtypes.bool)
        keep = math_ops.logical_and(
            array_ops.concat([first, math_ops.not_equal(lab[:, 1:], lab[:, :-1])], axis=1),
            rnn_ops.sequence_mask(lengths, maxlen=array_ops.shape(lab)[1]))
        keep_i = array_ops.cast(keep, _dtypes.int32)
        new_len = math_ops.reduce_sum(keep_i, axis=1)
        where = array_ops.cast(array_ops.where(keep), _dtypes.int32)
        cols = scatter_ops.gather_nd(math_ops.cumsum(keep_i, axis=1) - 1, where)
        out = scatter_ops.scatter_nd(array_ops.stack([where[:, 0], cols], axis=1),
                                     scatter_ops.gather_nd(lab, where), array_ops.shape(lab))
        return out[:, :math_ops.reduce_max(new_len)], new_len


def ctc_unique_labels(labels: Any, name: Optional[str] = None) -> List[Tensor]:
    """Per row of ``labels`` ``[batch, max_label_length]``: its distinct values in order
    of first appearance, zero-padded to the row length (int64), and for each entry the
    position of its value in that list (int32) -- ``tf.unique`` row by row."""
    with name_scope(name, "ctc_unique_labels"):
        lab = convert_to_tensor(labels, name="labels")
        if lab.shape.ndims is not None and lab.shape.ndims != 2:
            raise ValueError(f"ctc_unique_labels: labels must be [batch, max_label_length], "
                             f"got shape {lab.shape}")
        width = array_ops.shape(lab)[1]
        same = math_ops.equal(array_ops.expand_dims(lab, 2), array_ops.expand_dims(lab, 1))
        pos = array_ops.range(width)
        earlier = math_ops.less(array_ops.expand_dims(pos, 0), array_ops.expand_dims(pos, 1))
        # first[b, i]: no earlier entry of row b holds the same value.
        seen = math_ops.reduce_any(math_ops.logical_and(same, earlier), axis=2)
        first = math_ops.logical_not(seen)
        rank = math_ops.cumsum(array_ops.cast(first, _dtypes.int32), axis=1) - 1
        first_pos = array_ops.cast(math_ops.argmax(array_ops.cast(same, _dtypes.int32), 2),
                                   _dtypes.int32)
        idx = math_ops.reduce_sum(array_ops.one_hot(first_pos, width, dtype=_dtypes.int32) *
                                  array_ops.expand_dims(rank, 1), axis=2)
        slot = array_ops.where(first, rank, array_ops.fill(array_ops.shape(rank), -1))
        picks = array_ops.one_hot(slot, width, dtype=_dtypes.int64)
        values = math_ops.reduce_sum(
            picks * array_ops.expand_dims(array_ops.cast(lab, _dtypes.int64), 2), axis=1)
        return [values, idx]


def _sparse_paths(op: Operation, paths: int) -> Tuple[List[SparseTensor], Tensor]:
    outs = op.outputs
    decoded = [SparseTensor(outs[i], outs[paths + i], outs[2 * paths + i])
               for i in range(paths)]
    return decoded, outs[3 * paths]


def ctc_greedy_decoder(inputs: Any, sequence_length: Any, merge_repeated: bool = True
                       ) -> Tuple[List[SparseTensor], Tensor]:
    """Best-path decoding: the most likely class at each step, repeats merged (with
    ``merge_repeated``), then blanks removed.

    Returns:
      ``(decoded, neg_sum_logits)``: a one-element list holding an int64
      ``SparseTensor`` ``[batch, max_decoded_length]``, and ``[batch, 1]``, minus
      the sum over valid steps of the largest logit.
    """
    x = _float_inputs(inputs, "ctc_greedy_decoder")
    op = make_op("CTCGreedyDecoder", [x, _seq_len(sequence_length)],
                 [_dtypes.int64, _dtypes.int64, _dtypes.int64, x.dtype],
                 {"merge_repeated": bool(merge_repeated), "top_paths": 1},
                 name="CTCGreedyDecoder")
    return _sparse_paths(op, 1)


def ctc_beam_search_decoder(inputs: Any, sequence_length: Any, beam_width: int = 100,
                            top_paths: int = 1, merge_repeated: bool = True
                            ) -> Tuple[List[SparseTensor], Tensor]:
    """Prefix beam search over label sequences, keeping ``beam_width`` candidates.

    Each step extends every kept prefix by each class and scores the prefixes with
    the total probability of their alignments (blank-ending and non-blank-ending
    parts kept apart); ``merge_repeated`` also merges repeats in the returned
    sequences.

    Returns:
      ``(decoded, log_probabilities)``: ``top_paths`` int64 SparseTensors, best
      first, and ``[batch, top_paths]`` log probabilities of those sequences.

    Raises:
      ValueError: ``top_paths`` not in ``[1, beam_width]``.
    """
    if not isinstance(beam_width, int) or beam_width < 1:
        raise ValueError(f"ctc_beam_search_decoder: beam_width must be a positive int, got "
                         f"{beam_width!r}")
    if not isinstance(top_paths, int) or not 1 <= top_paths <= beam_width:
        raise ValueError(f"ctc_beam_search_decoder: top_paths must be in [1, beam_width="
                         f"{beam_width}], got {top_paths!r}")
    x = _float_inputs(inputs, "ctc_beam_search_decoder")
    op = make_op("CTCBeamSearchDecoder", [x, _seq_len(sequence_length)],
                 [_dtypes.int64] * (3 * top_paths) + [x.dtype],
                 {"merge_repeated": bool(merge_repeated), "top_paths": top_paths,
                  "beam_width": beam_width}, name="CTCBeamSearchDecoder")
    return _sparse_paths(op, top_paths)


__all__ = ["ctc_loss", "ctc_loss_v2", "collapse_repeated", "ctc_unique_labels",
           "ctc_greedy_decoder",
           "ctc_beam_search_decoder"]


def ctc_beam_search_decoder_v2(inputs: Any, sequence_length: Any, beam_width: int = 100,
                               top_paths: int = 1) -> Tuple[List[SparseTensor], Tensor]:
    """``ctc_beam_search_decoder`` as TensorFlow 2 has it: repeated labels of a path are
    not merged (``merge_repeated=False``)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths,
                                   merge_repeated=False)
