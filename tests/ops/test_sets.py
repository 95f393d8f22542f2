"""tf.sets against Python's sets, for dense and sparse operands, integers and strings."""

import numpy as np
import pytest

import tensorfleet as tf

RNG = np.random.RandomState(3)


def run(t):
    with tf.Session() as s:
        return s.run(t)


def _rows(value, lead):
    """A SparseTensorValue as {row: [members]} plus its dense shape."""
    out = {}
    for idx, v in zip(value.indices.tolist(), value.values.tolist()):
        out.setdefault(tuple(idx[:-1]), []).append(v)
        assert idx[-1] == len(out[tuple(idx[:-1])]) - 1
    assert list(value.dense_shape[:-1]) == list(lead)
    return out


def _expect(a_rows, b_rows, fn):
    want = {}
    for row in set(a_rows) | set(b_rows):
        members = sorted(fn(set(a_rows.get(row, [])), set(b_rows.get(row, []))))
        if members:
            want[row] = members
    return want


def _dense_rows(x):
    return {idx: list(x[idx]) for idx in np.ndindex(*x.shape[:-1])}


def _sparse(x, keep):
    idx = np.argwhere(keep)
    return tf.SparseTensor(idx, x[keep], x.shape), {
        r: [x[r + (j,)] for j in range(x.shape[-1]) if keep[r + (j,)]]
        for r in np.ndindex(*x.shape[:-1])}


OPS = {"intersection": (tf.sets.intersection, lambda x, y: x & y),
       "union": (tf.sets.union, lambda x, y: x | y),
       "a-b": (tf.sets.difference, lambda x, y: x - y)}


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("forms", ["dense-dense", "dense-sparse", "sparse-sparse"])
def test_set_operations_match_python_sets(name, forms):
    fn, py = OPS[name]
    a = RNG.randint(0, 6, size=(2, 3, 5)).astype(np.int64)
    b = RNG.randint(0, 6, size=(2, 3, 4)).astype(np.int64)
    a_rows, b_rows = _dense_rows(a), _dense_rows(b)
    ta, tb = a, b
    if forms in ("dense-sparse", "sparse-sparse"):
        tb, b_rows = _sparse(b, RNG.rand(*b.shape) < 0.6)
    if forms == "sparse-sparse":
        ta, a_rows = _sparse(a, RNG.rand(*a.shape) < 0.6)
    out = run(fn(ta, tb))
    got = _rows(out, (2, 3))
    want = _expect(a_rows, b_rows, py)
    assert got == want
    assert out.dense_shape[-1] == max([len(v) for v in want.values()] or [0])


def test_difference_of_sparse_and_dense_flips_and_strings_work():
    a = np.array([[b"x", b"y", b"z"]], object)
    st = tf.SparseTensor([[0, 0], [0, 1]], tf.constant([b"y", b"w"]), [1, 2])
    out = run(tf.sets.set_difference(st, a))  # st - a, computed as a flipped
    assert _rows(out, (1,)) == {(0,): [b"w"]}
    out = run(tf.sets.set_difference(st, a, aminusb=False))
    assert _rows(out, (1,)) == {(0,): [b"x", b"z"]}
    u = run(tf.sets.set_union(a, st))
    assert _rows(u, (1,)) == {(0,): [b"w", b"x", b"y", b"z"]}


def test_set_size_and_errors():
    st = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [2, 0]], tf.constant([3, 3, 5, 1]), [3, 4])
    np.testing.assert_array_equal(run(tf.sets.size(st)), [2, 0, 1])
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.sets.set_size(tf.constant([[1, 2]]))
    with pytest.raises(TypeError, match="invalid dtype"):
        tf.sets.intersection(tf.constant([[1.0]]), tf.constant([[1.0]]))
    with pytest.raises(ValueError, match="rank >= 2"):
        tf.sets.union(tf.constant([1, 2]), tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="leading dimensions"):
        run(tf.sets.union(tf.constant([[1, 2]]), tf.constant([[1], [2]])))
    bad = tf.SparseTensor([[0, 1], [0, 0]], tf.constant([1, 2]), [1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="row-major"):
        run(tf.sets.size(bad))
