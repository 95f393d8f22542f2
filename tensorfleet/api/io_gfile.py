"""``tf.io.gfile``: the file helpers of ``tf.gfile`` under their later lowercase names."""

from tensorfleet.platform.gfile import (
    Copy as copy, DeleteRecursively as rmtree, Exists as exists, GFile, Glob as glob,
    IsDirectory as isdir, ListDirectory as listdir, MakeDirs as makedirs, MkDir as mkdir,
    Remove as remove, Rename as rename, Stat as stat, get_registered_schemes, walk)

from posixpath import join

__all__ = ["copy", "exists", "GFile", "glob", "isdir", "join", "listdir", "makedirs", "mkdir",
           "remove", "rename", "rmtree", "stat", "walk",
           "get_registered_schemes"]
