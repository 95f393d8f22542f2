"""``tf.summary.FileWriter``: TensorBoard event files, and reading them back.

An event file is a sequence of TFRecord frames (length, masked CRC32C of the
length, an ``Event`` protobuf, masked CRC32C of the data); its first event
carries ``file_version: "brain.Event:2"``. The framing and the protobuf classes
are tensorboardX's (TensorBoard's own ``event.proto``), so TensorBoard opens
these files as it opens TensorFlow's.

Events are queued and written by one background thread, as TensorFlow does, so
``add_summary`` never waits on the disk; ``flush`` waits until everything
queued so far is on disk.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import struct
import threading
import time
from typing import Any, ClassVar, Dict, Iterator, Optional

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.graph import Graph, get_default_graph
from tensorfleet.ops.summary_ops import proto_class
from tensorfleet.ops.tbx_loader import tbx_module
from tensorfleet.protos import graph_pb2 as tf_graph_pb2
from tensorfleet.protos import meta_graph_pb2

logger = logging.getLogger(__name__)

FILE_VERSION = "brain.Event:2"


def _event_file_path(logdir: str, suffix: str) -> str:
    base = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}"
    path = os.path.join(logdir, base + suffix)
    n = 0
    # Two writers opened in one second in one directory would share a name and the
    # second would truncate the first; a counter keeps both ("tfevents" stays in
    # the name, which is what TensorBoard looks for).
    while os.path.exists(path):
        n += 1
        path = os.path.join(logdir, f"{base}.{n}{suffix}")
    return path


def _as_summary(summary: Any) -> Any:
    """A ``Summary`` from serialized bytes (as a summary op returns) or a ``Summary``."""
    cls = proto_class("Summary")
    if isinstance(summary, cls):
        return summary
    if isinstance(summary, np.ndarray):
        summary = summary.item()
    if isinstance(summary, (bytes, bytearray)):
        s = cls()
        s.ParseFromString(bytes(summary))
        return s
    raise TypeError(f"add_summary needs a serialized Summary (bytes) or a Summary, got "
                    f"{type(summary).__name__}")


def graph_def_proto(graph: Any) -> Any:
    """A TensorBoard ``GraphDef`` of ``graph``: TensorFlow's ``GraphDef`` message as
    ``tf.train.write_graph`` writes it (names, op types, inputs, devices and attrs,
    dtypes and shapes included), for TensorBoard's graph view.

    ``graph`` is a ``Graph``, a graph def as ``Graph.as_graph_def()`` returns it,
    TensorFlow's ``GraphDef`` message (``tensorfleet.protos.graph_pb2``, as read from a
    frozen graph or a ``.meta`` file), or a TensorBoard ``GraphDef`` already (returned
    as it is).

    Raises:
      TypeError: for anything else.
    """
    from tensorfleet.framework import tensorflow_graph_export as tge

    graph_pb2 = tbx_module("proto.graph_pb2")
    if isinstance(graph, graph_pb2.GraphDef):
        return graph
    if isinstance(graph, tf_graph_pb2.GraphDef):
        return graph_pb2.GraphDef.FromString(graph.SerializeToString())
    if not isinstance(graph, (dict, Graph)):
        raise TypeError(f"Expected a tf.Graph or a GraphDef, got {type(graph).__name__}")
    msg = getattr(graph, "tensorflow", None)
    if msg is None:
        msg = tge.to_tensorflow_graph_def(graph, strict=False)
    # The same wire format: TensorBoard's copy of the message reads our bytes.
    return graph_pb2.GraphDef.FromString(msg.SerializeToString())


def _one_graph(graph: Any, graph_def: Any) -> Any:
    if graph is not None and graph_def is not None:
        raise ValueError("Pass only graph, or graph_def, not both")
    return graph if graph is not None else graph_def


class FileWriter:
    """Writes summaries and events to a new event file in ``logdir``.

    Args:
      logdir: the directory (created if missing).
      graph: a graph to write right away (TensorBoard's graph view).
      max_queue: how many events may wait for the writer thread; more blocks.
      flush_secs: how often pending events are flushed to disk.
      graph_def: a graph def to write instead of ``graph`` (not both).
      filename_suffix: appended to the event file name.
    """

    def __init__(self, logdir: str, graph: Any = None, max_queue: int = 10,
                 flush_secs: float = 120, graph_def: Any = None,
                 filename_suffix: Optional[str] = None, session: Any = None):
        if session is not None:
            raise ValueError("FileWriter(session=...) writes through a summary-writer "
                             "resource, which tensorfleet does not have; pass logdir")
        self._logdir = str(logdir)
        self._max_queue = max(1, int(max_queue))
        self._flush_secs = float(flush_secs)
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._closed = True
        graph = _one_graph(graph, graph_def)
        self._open()
        if graph is not None:
            self.add_graph(graph)

    def _open(self) -> None:
        RecordWriter = tbx_module("record_writer").RecordWriter

        os.makedirs(self._logdir, exist_ok=True)
        self._path = _event_file_path(self._logdir, self._suffix)
        self._records = RecordWriter(self._path)
        self._queue: "queue.Queue[Any]" = queue.Queue(self._max_queue)
        self._closed = False
        first = proto_class("Event")(wall_time=time.time(), file_version=FILE_VERSION)
        self._write(first)
        self._records.flush()
        self._thread = threading.Thread(target=self._run, name="FileWriter", daemon=True)
        self._thread.start()

    # -- the writer thread ----------------------------------------------------------------
    def _write(self, event: Any) -> None:
        with self._lock:
            self._records.write(event.SerializeToString())

    def _run(self) -> None:
        next_flush = time.monotonic() + self._flush_secs
        while True:
            try:
                item = self._queue.get(timeout=max(0.0, next_flush - time.monotonic()))
            except queue.Empty:
                item = None
            try:
                if item is _STOP:
                    return
                if item is not None:
                    self._write(item)
                if time.monotonic() >= next_flush:
                    with self._lock:
                        self._records.flush()
                    next_flush = time.monotonic() + self._flush_secs
            except Exception:  # noqa: BLE001 - a failing disk must not kill training
                logger.exception("FileWriter: failed to write to %s", self._path)
            finally:
                if item is not None:
                    self._queue.task_done()

    # -- public API -----------------------------------------------------------------------
    def get_logdir(self) -> str:
        """The directory this writer writes into."""
        return self._logdir

    @property
    def event_file_path(self) -> str:
        """The path of the current event file."""
        return self._path

    def add_event(self, event: Any) -> None:
        """Queues an ``Event`` protobuf for writing (dropped after ``close``)."""
        if self._closed:
            logger.warning("FileWriter for %s is closed; event dropped", self._logdir)
            return
        if not event.wall_time:
            event.wall_time = time.time()
        self._queue.put(event)

    def add_summary(self, summary: Any, global_step: Optional[int] = None) -> None:
        """Writes a summary: the bytes a summary op returned, or a ``Summary``."""
        ev = proto_class("Event")(wall_time=time.time())
        ev.summary.CopyFrom(_as_summary(summary))
        if global_step is not None:
            ev.step = int(global_step)
        self.add_event(ev)

    def add_session_log(self, session_log: Any, global_step: Optional[int] = None) -> None:
        """Writes a ``SessionLog`` (START, STOP, CHECKPOINT) event."""
        ev = proto_class("Event")(wall_time=time.time())
        ev.session_log.CopyFrom(session_log)
        if global_step is not None:
            ev.step = int(global_step)
        self.add_event(ev)

    def add_graph(self, graph: Any, global_step: Optional[int] = None,
                  graph_def: Any = None) -> None:
        """Writes ``graph`` (a ``Graph``, or a graph def given as ``graph_def``) for
        TensorBoard's graph view."""
        graph = _one_graph(graph, graph_def)
        if graph is None:
            raise ValueError("add_graph needs a graph or a graph_def")
        ev = proto_class("Event")(wall_time=time.time(),
                                  graph_def=graph_def_proto(graph).SerializeToString())
        if global_step is not None:
            ev.step = int(global_step)
        self.add_event(ev)

    def add_meta_graph(self, meta_graph_def: Any, global_step: Optional[int] = None) -> None:
        """Writes a meta graph (``tf.train.export_meta_graph``'s result, or TensorFlow's
        ``MetaGraphDef`` message) as TensorFlow's ``MetaGraphDef``, from which
        TensorBoard's graph view reads the graph when no graph event holds it.

        Raises:
          TypeError: ``meta_graph_def`` is not a meta graph.
        """
        if isinstance(meta_graph_def, meta_graph_pb2.MetaGraphDef):
            data = meta_graph_def.SerializeToString()
        elif isinstance(meta_graph_def, dict) and hasattr(meta_graph_def, "tensorflow"):
            data = meta_graph_def.SerializeToString()
        else:
            raise TypeError(f"add_meta_graph needs a MetaGraphDef, got "
                            f"{type(meta_graph_def).__name__}")
        ev = proto_class("Event")(wall_time=time.time(), meta_graph_def=data)
        if global_step is not None:
            ev.step = int(global_step)
        self.add_event(ev)

    def flush(self) -> None:
        """Blocks until every queued event is written and on disk."""
        if self._closed:
            return
        self._queue.join()
        with self._lock:
            self._records.flush()

    def close(self) -> None:
        """Flushes and closes the event file; ``reopen`` starts a new one."""
        if self._closed:
            return
        self.flush()
        self._queue.put(_STOP)
        self._thread.join()
        with self._lock:
            self._records.close()
        self._closed = True

    def reopen(self) -> None:
        """After ``close``, continues in a new event file in the same directory."""
        if self._closed:
            self._open()

    def __enter__(self) -> "FileWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_STOP = object()


class FileWriterCache:
    """One shared ``FileWriter`` per log directory, as hooks and supervisors expect."""

    _cache: ClassVar[Dict[str, FileWriter]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @staticmethod
    def get(logdir: str) -> FileWriter:
        """The cached writer of ``logdir``, created on first use with the default
        graph written to it (TensorBoard's graph view of a monitored session)."""
        key = os.path.abspath(str(logdir))
        with FileWriterCache._lock:
            w = FileWriterCache._cache.get(key)
            if w is None or w._closed:
                w = FileWriterCache._cache[key] = FileWriter(logdir,
                                                             graph=get_default_graph())
            return w

    @staticmethod
    def clear() -> None:
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            writers = list(FileWriterCache._cache.values())
            FileWriterCache._cache.clear()
        for w in writers:
            w.close()


def _masked_crc(data: bytes) -> int:
    masked_crc32c = tbx_module("record_writer").masked_crc32c
    return masked_crc32c(data)


def summary_iterator(path: str) -> Iterator[Any]:
    """The ``Event`` protobufs of an event file, in order (``tf.train.summary_iterator``).

    Raises:
      DataLossError: a frame is truncated or fails its CRC check.
    """
    event_cls = proto_class("Event")
    with open(path, "rb") as f:
        while True:
            head = f.read(12)
            if not head:
                return
            if len(head) < 12:
                raise errors.DataLossError(None, None, f"{path}: truncated record header")
            (length,) = struct.unpack("<Q", head[:8])
            (crc,) = struct.unpack("<I", head[8:])
            if crc != _masked_crc(head[:8]):
                raise errors.DataLossError(None, None, f"{path}: corrupt record length")
            data = f.read(length)
            tail = f.read(4)
            if len(data) < length or len(tail) < 4:
                raise errors.DataLossError(None, None, f"{path}: truncated record")
            if struct.unpack("<I", tail)[0] != _masked_crc(data):
                raise errors.DataLossError(None, None, f"{path}: corrupt record data")
            ev = event_cls()
            ev.ParseFromString(data)
            yield ev


__all__ = ["FileWriter", "FileWriterCache", "summary_iterator", "graph_def_proto",
           "FILE_VERSION"]
