"""numpy kernel of ``WriteTFRecords`` (``data/tfrecord_writer.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.platform.tf_record import TFRecordWriter


@register_kernel("WriteTFRecords")
def _write_tfrecords(ctx: KernelContext, filename: Any, records: Any) -> None:
    name = np.asarray(filename, dtype=object).item()
    name = name.decode("utf-8") if isinstance(name, bytes) else str(name)
    rows = np.asarray(records, dtype=object)
    if rows.ndim != 1:
        raise invalid(ctx, f"records must be a vector of strings, got shape {list(rows.shape)}")
    writer = TFRecordWriter(name, ctx.attrs.get("compression_type") or None)
    try:
        for r in rows:
            writer.write(r)
    finally:
        writer.close()
    return None
