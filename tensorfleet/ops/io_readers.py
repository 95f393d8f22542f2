"""Queue-era file readers: ``tf.TextLineReader``, ``tf.TFRecordReader``,
``tf.WholeFileReader``, ``tf.FixedLengthRecordReader`` and ``match_filenames_once``.

A reader op outputs a reference to a reader resource in its task's resource
manager, as a queue op does; ``read`` takes that reference and a queue of file
names (typically from ``tf.train.string_input_producer``) and yields one
``(key, value)`` record per run, moving to the next file name in the queue when
the current file is exhausted.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (GraphKeys, Operation, Tensor, convert_to_tensor,
                                         name_scope)
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, scalar
from tensorfleet.platform.tf_record import TFRecordOptions, compression_kind
from tensorfleet.ops.data_flow_ops import QueueBase
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs
from tensorfleet.ops.variables import Variable

_READER_TYPES = ("TextLineReaderV2", "TFRecordReaderV2", "WholeFileReaderV2",
                 "FixedLengthRecordReaderV2", "IdentityReaderV2")
for _t in _READER_TYPES:
    register_op(_t, lambda op: [scalar()], stateful=True, ref_output=True)
register_op("ReaderReadV2", lambda op: [scalar(), scalar()], stateful=True, ref_inputs=(0, 1))
register_op("ReaderReadUpToV2", lambda op: [TensorShape([None]), TensorShape([None])],
            stateful=True, ref_inputs=(0, 1))
register_op("ReaderNumRecordsProducedV2", lambda op: [scalar()], stateful=True,
            ref_inputs=(0,))
register_op("ReaderNumWorkUnitsCompletedV2", lambda op: [scalar()], stateful=True,
            ref_inputs=(0,))
register_op("ReaderResetV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("MatchingFiles", lambda op: [TensorShape([None])], stateful=True)


def _queue_ref(queue: Any) -> Tensor:
    if isinstance(queue, QueueBase):
        return queue.queue_ref
    if isinstance(queue, Tensor):
        return queue
    raise TypeError(f"A reader reads file names from a queue (or a queue's reference "
                    f"tensor), got {queue!r}")


def _non_negative_int(value: Any, what: str, allow_none: bool = True) -> int:
    if value is None and allow_none:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative int, got {value!r}")
    return value


class ReaderBase:
    """Methods shared by every reader: ``read``, ``read_up_to``, counters, ``reset``.

    Each method adds an op next to the reader's resource and returns its output.
    """

    def __init__(self, op_type: str, attrs: Dict[str, Any], name: Optional[str]):
        full = {"container": "", "shared_name": ""}
        full.update(attrs)
        self._reader_ref = make_tensor(op_type, [], _dtypes.string, full,
                                       name=name or op_type)

    @property
    def reader_ref(self) -> Tensor:
        """The reference tensor that every op of this reader takes."""
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        """False: a reader's position cannot be saved and restored here."""
        return False

    def _colocated(self) -> Any:
        return self._reader_ref.graph.colocate_with(self._reader_ref.op)

    def read(self, queue: Any, name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
        """The next record as string scalars ``(key, value)``; a new file name is taken
        from ``queue`` when the current file is exhausted, so the read blocks while that
        queue is empty and raises OutOfRangeError once it is closed and drained."""
        q = _queue_ref(queue)
        with self._colocated():
            op = make_op("ReaderReadV2", [self._reader_ref, q],
                         [_dtypes.string, _dtypes.string], {}, name=name or "ReaderReadV2")
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue: Any, num_records: Any,
                   name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
        """Between 1 and ``num_records`` records of one file, as 1-D string tensors
        ``(keys, values)``."""
        q = _queue_ref(queue)
        with self._colocated():
            n = convert_to_tensor(num_records, dtype=_dtypes.int64, name="num_records")
            if n.shape.ndims not in (None, 0):
                raise ValueError(f"read_up_to: num_records must be a scalar, got shape "
                                 f"{n.shape}")
            op = make_op("ReaderReadUpToV2", [self._reader_ref, q, n],
                         [_dtypes.string, _dtypes.string], {},
                         name=name or "ReaderReadUpToV2")
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name: Optional[str] = None) -> Tensor:
        """An int64 scalar: records this reader has produced since it was created or
        last reset."""
        with self._colocated():
            return make_tensor("ReaderNumRecordsProducedV2", [self._reader_ref], _dtypes.int64,
                               {}, name=name or "ReaderNumRecordsProducedV2")

    def num_work_units_completed(self, name: Optional[str] = None) -> Tensor:
        """An int64 scalar: files this reader has read to their end."""
        with self._colocated():
            return make_tensor("ReaderNumWorkUnitsCompletedV2", [self._reader_ref],
                               _dtypes.int64, {},
                               name=name or "ReaderNumWorkUnitsCompletedV2")

    def reset(self, name: Optional[str] = None) -> Operation:
        """An op that drops the current file and zeroes the counters."""
        with self._colocated():
            return make_op("ReaderResetV2", [self._reader_ref], [], {},
                           name=name or "ReaderResetV2")


class TextLineReader(ReaderBase):
    """``tf.TextLineReader``: one record per line (without its line ending); the key
    is ``b"<file>:<line number>"``, counting from 1 and including skipped lines.

    Args:
      skip_header_lines: lines to skip at the start of every file.
    """

    def __init__(self, skip_header_lines: Optional[int] = None, name: Optional[str] = None):
        skip = _non_negative_int(skip_header_lines, "skip_header_lines")
        super().__init__("TextLineReaderV2", {"skip_header_lines": skip}, name)


class TFRecordReader(ReaderBase):
    """``tf.TFRecordReader``: the records of TFRecord files; the key is
    ``b"<file>:<byte offset of the record>"``.

    Args:
      options: a ``tf.python_io.TFRecordOptions`` (or compression name) for GZIP or
        ZLIB files.
    """

    def __init__(self, name: Optional[str] = None, options: Any = None):
        if options is not None and not isinstance(options, (TFRecordOptions, str, bytes, int)):
            raise TypeError(f"TFRecordReader options must be a TFRecordOptions, got "
                            f"{options!r}")
        comp = TFRecordOptions.get_compression_type_string(options)
        super().__init__("TFRecordReaderV2", {"compression_type": comp}, name)


class WholeFileReader(ReaderBase):
    """``tf.WholeFileReader``: one record per file, its whole content; the key is the
    file name."""

    def __init__(self, name: Optional[str] = None):
        super().__init__("WholeFileReaderV2", {}, name)


class IdentityReader(ReaderBase):
    """``tf.IdentityReader``: each work item taken from the queue is one record, both
    its key and its value."""

    def __init__(self, name: Optional[str] = None):
        super().__init__("IdentityReaderV2", {}, name)


class FixedLengthRecordReader(ReaderBase):
    """``tf.FixedLengthRecordReader``: records of ``record_bytes`` bytes after a header
    and before a footer; the key is ``b"<file>:<record number>"`` counting from 0.

    Args:
      record_bytes: bytes per record (> 0).
      header_bytes, footer_bytes: bytes to skip at the start and end of every file.
      hop_bytes: when > 0, record ``k`` starts ``k * hop_bytes`` after the header (records
        may overlap); otherwise records follow each other.
      encoding: ``"ZLIB"`` or ``"GZIP"`` for compressed files, else None.
    """

    def __init__(self, record_bytes: int, header_bytes: Optional[int] = None,
                 footer_bytes: Optional[int] = None, hop_bytes: Optional[int] = None,
                 name: Optional[str] = None, encoding: Optional[str] = None):
        rb = _non_negative_int(record_bytes, "record_bytes", allow_none=False)
        if rb == 0:
            raise ValueError("record_bytes must be positive, got 0")
        try:
            enc = TFRecordOptions.get_compression_type_string(compression_kind(encoding))
        except ValueError as e:
            raise ValueError(f"FixedLengthRecordReader encoding: {e}") from None
        attrs = {"record_bytes": rb,
                 "header_bytes": _non_negative_int(header_bytes, "header_bytes"),
                 "footer_bytes": _non_negative_int(footer_bytes, "footer_bytes"),
                 "hop_bytes": _non_negative_int(hop_bytes, "hop_bytes"),
                 "encoding": enc}
        super().__init__("FixedLengthRecordReaderV2", attrs, name)


def matching_files(pattern: Any, name: Optional[str] = None) -> Tensor:
    """A 1-D string tensor of the files matching the glob ``pattern`` (a string or
    1-D string tensor of patterns), sorted per pattern."""
    p = convert_to_tensor(pattern, dtype=_dtypes.string, name="pattern")
    return make_tensor("MatchingFiles", [p], _dtypes.string, {}, name=name or "MatchingFiles")


def match_filenames_once(pattern: Any, name: Optional[str] = None) -> Variable:
    """``tf.train.match_filenames_once``: a local variable holding the file names that
    match ``pattern`` when ``local_variables_initializer()`` runs."""
    with name_scope(name, "matching_filenames", [pattern]) as scope:
        return Variable(matching_files(pattern), trainable=False, validate_shape=False,
                        collections=[GraphKeys.LOCAL_VARIABLES], name=scope)


__all__: List[str] = ["ReaderBase", "TextLineReader", "TFRecordReader", "WholeFileReader",
                      "FixedLengthRecordReader", "IdentityReader", "matching_files",
                      "match_filenames_once"]
