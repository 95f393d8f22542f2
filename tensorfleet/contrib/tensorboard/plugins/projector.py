"""``tf.contrib.tensorboard.plugins.projector``: tells TensorBoard's embedding projector
which checkpointed variables to show, as word2vec-style TF 1.x programs do::

    config = projector.ProjectorConfig()
    emb = config.embeddings.add()
    emb.tensor_name = embeddings.name
    emb.metadata_path = "metadata.tsv"
    projector.visualize_embeddings(summary_writer, config)

``visualize_embeddings`` writes ``projector_config.pbtxt`` (the ``ProjectorConfig``
message in protobuf text format, which the projector plugin reads) into the writer's
log directory. The messages here are plain classes with the proto's field names.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, List, Optional

_CONFIG_FILE = "projector_config.pbtxt"


def _quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class SpriteMetadata:
    """A sprite image of the points: ``image_path`` and ``single_image_dim`` (width,
    height of one thumbnail)."""

    def __init__(self) -> None:
        self.image_path = ""
        self.single_image_dim: List[int] = []

    def _lines(self, indent: str) -> List[str]:
        out = [f"{indent}image_path: {_quote(self.image_path)}"] if self.image_path else []
        out += [f"{indent}single_image_dim: {int(d)}" for d in self.single_image_dim]
        return out


class EmbeddingInfo:
    """One embedding: ``tensor_name`` (the variable's name in the checkpoint),
    ``metadata_path`` (a TSV of labels), ``bookmarks_path``, ``tensor_shape``,
    ``tensor_path`` (a TSV of the vectors, instead of a checkpoint) and ``sprite``."""

    def __init__(self) -> None:
        self.tensor_name = ""
        self.metadata_path = ""
        self.bookmarks_path = ""
        self.tensor_shape: List[int] = []
        self.tensor_path = ""
        self.sprite = SpriteMetadata()

    def _lines(self, indent: str) -> List[str]:
        out = []
        for field in ("tensor_name", "metadata_path", "bookmarks_path"):
            if getattr(self, field):
                out.append(f"{indent}{field}: {_quote(getattr(self, field))}")
        out += [f"{indent}tensor_shape: {int(d)}" for d in self.tensor_shape]
        sprite = self.sprite._lines(indent + "  ")
        if sprite:
            out += [f"{indent}sprite {{"] + sprite + [f"{indent}}}"]
        if self.tensor_path:
            out.append(f"{indent}tensor_path: {_quote(self.tensor_path)}")
        return out


class _Repeated(list):
    """A repeated message field: ``add()`` appends a new message and returns it."""

    def __init__(self, make: Any, items: Optional[Iterable[Any]] = None):
        super().__init__(items or [])
        self._make = make

    def add(self) -> Any:
        """Appends a new, empty message and returns it."""
        item = self._make()
        self.append(item)
        return item


class ProjectorConfig:
    """The projector's configuration: ``embeddings`` (add with
    ``config.embeddings.add()``), ``model_checkpoint_path`` / ``model_checkpoint_dir``
    (default: the latest checkpoint of the log directory)."""

    def __init__(self) -> None:
        self.model_checkpoint_path = ""
        self.model_checkpoint_dir = ""
        self.embeddings: _Repeated = _Repeated(EmbeddingInfo)

    def to_text(self) -> str:
        """The message in protobuf text format."""
        lines = []
        if self.model_checkpoint_path:
            lines.append(f"model_checkpoint_path: {_quote(self.model_checkpoint_path)}")
        for emb in self.embeddings:
            if not isinstance(emb, EmbeddingInfo):
                raise TypeError(f"ProjectorConfig.embeddings holds EmbeddingInfo messages, got "
                                f"{type(emb).__name__}")
            lines += ["embeddings {"] + emb._lines("  ") + ["}"]
        if self.model_checkpoint_dir:
            lines.append(f"model_checkpoint_dir: {_quote(self.model_checkpoint_dir)}")
        return "\n".join(lines) + ("\n" if lines else "")

    def __str__(self) -> str:
        return self.to_text()


def visualize_embeddings(summary_writer: Any, config: ProjectorConfig) -> None:
    """Writes ``config`` as ``projector_config.pbtxt`` into the log directory of
    ``summary_writer`` (a ``tf.summary.FileWriter``).

    Raises:
      ValueError: the writer has no log directory.
      TypeError: ``config`` is not a ``ProjectorConfig``.
    """
    if not isinstance(config, ProjectorConfig):
        raise TypeError(f"visualize_embeddings needs a ProjectorConfig, got "
                        f"{type(config).__name__}")
    get_logdir = getattr(summary_writer, "get_logdir", None)
    logdir = get_logdir() if callable(get_logdir) else None
    if not logdir:
        raise ValueError("visualize_embeddings: summary_writer must be a FileWriter with a "
                         "log directory")
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, _CONFIG_FILE)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(config.to_text())
    os.replace(tmp, path)


__all__ = ["ProjectorConfig", "EmbeddingInfo", "SpriteMetadata", "visualize_embeddings"]
