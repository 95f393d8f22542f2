"""The ``snapshot`` stage (``data/snapshot.py``): elements read from a complete snapshot,
or computed and written to a new one."""

from __future__ import annotations

import os
import re
import uuid
from typing import Any, Dict, Iterable, Iterator, List, Optional

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.tensor_util import make_ndarray, make_tensor_proto
from tensorfleet.kernels import dataset_values as dv
from tensorfleet.kernels.numpy.dataset_kernels import register_stage
from tensorfleet.platform.tf_record import TFRecordWriter, iter_records
from tensorfleet.protos import tensor_pb2

Element = dv.Element
DATA_FILE = "elements.tfrecord"
DONE_FILE = "snapshot.done"


class Snapshot:
    """Reads ``<path>/<fingerprint>/`` when it is complete; otherwise passes the input
    through while writing it there, and completes the snapshot when the input ends."""

    def __init__(self, up: Iterable[Element], st: Dict[str, Any]):
        self.up = up
        self.dir = os.path.join(st["path"], st["fingerprint"])
        self.compression = st["compression"] or None
        self.k = int(st["num_components"])

    def __iter__(self) -> Iterator[Element]:
        if os.path.exists(os.path.join(self.dir, DONE_FILE)):
            return self._read()
        return self._write()

    def _read(self) -> Iterator[Element]:
        parts: List[np.ndarray] = []
        for _, data in iter_records(os.path.join(self.dir, DATA_FILE), self.compression):
            try:
                parts.append(make_ndarray(tensor_pb2.TensorProto.FromString(data)))
            except Exception as e:  # protobuf's DecodeError, or a size make_ndarray refuses
                raise errors.DataLossError(None, None, f"snapshot {self.dir}: a record is not "
                                                       f"a tensor ({e})") from None
            if len(parts) == self.k:
                yield tuple(parts)
                parts = []
        if parts:
            raise errors.DataLossError(None, None, f"snapshot {self.dir}: the last element is "
                                                   f"incomplete")

    def _write(self) -> Iterator[Element]:
        os.makedirs(self.dir, exist_ok=True)
        tmp = os.path.join(self.dir, f"{DATA_FILE}.tmp-{uuid.uuid4().hex}")
        writer = TFRecordWriter(tmp, self.compression)
        done = False
        try:
            n = 0
            for e in self.up:
                for c in e:
                    writer.write(make_tensor_proto(np.asarray(c)).SerializeToString())
                n += 1
                yield e
            writer.close()
            os.replace(tmp, os.path.join(self.dir, DATA_FILE))
            with open(os.path.join(self.dir, DONE_FILE), "w") as f:
                f.write(f"{n}\n")
            done = True
        finally:
            if not done:
                writer.close()
                if os.path.exists(tmp):
                    os.remove(tmp)


def _check(st: Dict[str, Any], op_name: Optional[str]) -> Dict[str, Any]:
    bad = None
    if not isinstance(st.get("path"), str) or not st["path"]:
        bad = "path must be a non-empty string"
    elif not isinstance(st.get("fingerprint"), str) or not re.fullmatch(r"[0-9a-f]{64}",
                                                                         st["fingerprint"]):
        bad = "fingerprint must be a SHA-256 hex digest"
    elif st.get("compression") not in ("", "GZIP"):
        bad = "compression must be '' or 'GZIP'"
    elif not isinstance(st.get("num_components"), int) or st["num_components"] < 1:
        bad = "num_components must be a positive int"
    if bad:
        raise errors.InvalidArgumentError(op_name, None, f"snapshot: {bad}")
    return st


register_stage("snapshot", _check, lambda node, st, _: Snapshot(node, st))

__all__ = ["Snapshot", "DATA_FILE", "DONE_FILE"]
