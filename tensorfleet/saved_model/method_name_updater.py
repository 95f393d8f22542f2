"""``tf.saved_model.signature_def_utils.MethodNameUpdater``: changes the method name of a
SavedModel's signatures in place (or writes the updated manifests to another directory),
in tensorfleet's ``saved_model.json`` and, when present, TensorFlow's ``saved_model.pb``."""

from __future__ import annotations

import json
import os
from typing import Any, List, Optional, Sequence

from tensorfleet.kernels.atomic_file import atomic_write
from tensorfleet.protos import saved_model_pb2
from tensorfleet.saved_model.builder import SAVED_MODEL_FILENAME
from tensorfleet.saved_model.loader import _read
from tensorfleet.saved_model.tensorflow_layout import SAVED_MODEL_PB


class MethodNameUpdater:
    """Args:
      export_dir: the SavedModel directory.

    Raises:
      OSError: there is no SavedModel there.
    """

    def __init__(self, export_dir: str):
        self._export_dir = str(export_dir)
        self._doc = _read(self._export_dir)
        pb = os.path.join(self._export_dir, SAVED_MODEL_PB)
        self._pb: Optional[Any] = None
        if os.path.isfile(pb):
            with open(pb, "rb") as f:
                self._pb = saved_model_pb2.SavedModel.FromString(f.read())

    @staticmethod
    def _selected(tags_list: Sequence[Sequence[str]], tags: Any) -> List[int]:
        if tags is None:
            return list(range(len(tags_list)))
        want = sorted({tags} if isinstance(tags, str) else set(tags))
        return [i for i, t in enumerate(tags_list) if sorted(t) == want]

    def replace_method_name(self, signature_key: str, method_name: str,
                            tags: Any = None) -> None:
        """Sets the method name of signature ``signature_key`` in the meta graphs with
        ``tags`` (all of them when None).

        Raises:
          ValueError: an empty method name, no meta graph with ``tags``, or a meta graph
            without that signature.
        """
        if not method_name:
            raise ValueError("method_name must be a non-empty string")
        graphs = self._doc["meta_graphs"]
        chosen = self._selected([g.get("tags", []) for g in graphs], tags)
        if not chosen:
            raise ValueError(f"MetaGraphDef associated with tags {tags!r} could not be found "
                             f"in SavedModel")
        for i in chosen:
            sigs = graphs[i].get("signature_def", {})
            if signature_key not in sigs:
                raise ValueError(f"MetaGraphDef associated with tags {graphs[i].get('tags')} "
                                 f"does not have a signature_def with key: "
                                 f"{signature_key!r}")
            sigs[signature_key]["method_name"] = method_name
        if self._pb is not None:
            pb_tags = [list(m.meta_info_def.tags) for m in self._pb.meta_graphs]
            for i in self._selected(pb_tags, tags):
                sig = self._pb.meta_graphs[i].signature_def
                if signature_key in sig:
                    sig[signature_key].method_name = method_name

    def save(self, new_export_dir: Optional[str] = None) -> None:
        """Writes the updated manifests to ``new_export_dir`` (default: the export
        directory itself); the variables are not copied."""
        target = self._export_dir if new_export_dir is None else str(new_export_dir)
        os.makedirs(target, exist_ok=True)
        atomic_write(os.path.join(target, SAVED_MODEL_FILENAME),
                     json.dumps(self._doc).encode("utf-8"))
        if self._pb is not None:
            atomic_write(os.path.join(target, SAVED_MODEL_PB), self._pb.SerializeToString())


__all__ = ["MethodNameUpdater"]
