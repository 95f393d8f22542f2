"""``tf.gfile``: TensorFlow 1.x's file helpers."""

from tensorfleet.platform.gfile import (Copy, DeleteRecursively, Exists, GFile as FastGFile,
    FileStatistics, GFile, Glob, IsDirectory, ListDirectory, MakeDirs, MkDir, GFile as Open,
    Remove, Rename, Stat, Walk)

__all__ = ["Copy", "DeleteRecursively", "Exists", "FastGFile", "FileStatistics", "GFile",
           "Glob", "IsDirectory", "ListDirectory", "MakeDirs", "MkDir", "Open", "Remove",
           "Rename", "Stat", "Walk"]
