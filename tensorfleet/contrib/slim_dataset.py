"""``slim.dataset.Dataset``: where a data set's records are (``data_sources``), how they
are read (``reader``) and decoded (``decoder``), with whatever else describes it
(``num_samples``, ``num_classes``, ``labels_to_names`` ...) as attributes."""

from __future__ import annotations

from typing import Any


class Dataset:
    """The description ``DatasetDataProvider`` reads from.

    Args:
      data_sources: a file pattern or a list of file names or patterns.
      reader: a reader class such as ``tf.TFRecordReader``.
      decoder: an object with ``list_items()`` and ``decode(record, items)`` (e.g.
        ``slim.tfexample_decoder.TFExampleDecoder``).
      num_samples: the number of records.
      items_to_descriptions: item name -> description.
      **kwargs: further attributes (``num_classes``, ``labels_to_names`` ...).
    """

    def __init__(self, data_sources: Any, reader: Any, decoder: Any, num_samples: int,
                 items_to_descriptions: Any, **kwargs: Any):
        if not hasattr(decoder, "decode") or not hasattr(decoder, "list_items"):
            raise TypeError(f"slim Dataset: decoder must have decode() and list_items(), got "
                            f"{decoder!r}")
        if not callable(reader):
            raise TypeError(f"slim Dataset: reader must be a reader class, got {reader!r}")
        kwargs.update(data_sources=data_sources, reader=reader, decoder=decoder,
                      num_samples=num_samples, items_to_descriptions=items_to_descriptions)
        self.__dict__.update(kwargs)


__all__ = ["Dataset"]
