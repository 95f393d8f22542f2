"""Math ops: forward values against numpy, numerical gradient checks, error cases."""

import zlib

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(0)


@pytest.fixture(autouse=True)
def _values_of_this_test_alone(request):
    # Each test draws the same values whichever tests ran before it in this process (the
    # parallel run deals tests to workers in any order): a draw that puts maximum's two
    # inputs within the numerical gradient's step of each other cannot come and go.
    RNG.seed(zlib.crc32(request.node.nodeid.encode("utf-8")))


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def rnd(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape)


# -- forward ------------------------------------------------------------------------------

BINARY = [
    (tf.add, np.add), (tf.subtract, np.subtract), (tf.multiply, np.multiply),
    (tf.divide, np.divide), (tf.truediv, np.divide), (tf.maximum, np.maximum),
    (tf.minimum, np.minimum), (tf.squared_difference, lambda a, b: (a - b) ** 2),
    (tf.floordiv, np.floor_divide), (tf.floormod, np.mod), (tf.mod, np.mod),
]


@pytest.mark.parametrize("fn,ref", BINARY)
def test_binary_broadcast_forward(fn, ref):
    a = rnd(2, 3, 4).astype(np.float32)
    b = rnd(3, 1, lo=0.5, hi=2.0).astype(np.float32)
    out = run(fn(a, b))
    assert out.dtype == np.float32 and out.shape == (2, 3, 4)
    np.testing.assert_allclose(out, ref(a, b), rtol=1e-6, atol=1e-6)


UNARY = [
    (tf.negative, np.negative, None), (tf.square, np.square, None),
    (tf.sqrt, np.sqrt, "pos"), (tf.rsqrt, lambda x: 1 / np.sqrt(x), "pos"),
    (tf.reciprocal, lambda x: 1 / x, "pos"), (tf.exp, np.exp, None), (tf.log, np.log, "pos"),
    (tf.log1p, np.log1p, "pos"), (tf.abs, np.abs, None), (tf.sign, np.sign, None),
    (tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), None), (tf.tanh, np.tanh, None),
]


@pytest.mark.parametrize("fn,ref,dom", UNARY)
def test_unary_forward(fn, ref, dom):
    x = rnd(3, 4, lo=0.2, hi=3.0) if dom == "pos" else rnd(3, 4, lo=-3, hi=3)
    x = x.astype(np.float32)
    out = run(fn(x))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref(x), rtol=1e-5, atol=1e-6)


def test_sigmoid_extreme_values_are_finite():
    out = run(tf.sigmoid(np.array([-1000.0, 0.0, 1000.0], np.float32)))
    np.testing.assert_allclose(out, [0.0, 0.5, 1.0])


def test_pow_and_operators():
    x = tf.placeholder(tf.float32, [3])
    v = np.array([1.0, 2.0, 3.0], np.float32)
    exprs = [x + 1, 1 + x, x - 1, 1 - x, x * 2, 2 * x, x / 2, 2 / x, x // 2, 7 // x,
             x % 2, 7 % x, x ** 2, 2 ** x, -x, abs(-x), tf.pow(x, 0.5)]
    refs = [v + 1, 1 + v, v - 1, 1 - v, v * 2, 2 * v, v / 2, 2 / v, v // 2, 7 // v,
            v % 2, 7 % v, v ** 2, 2 ** v, -v, v, v ** 0.5]
    outs = run(exprs, {x: v})
    for o, r in zip(outs, refs):
        assert o.dtype == np.float32
        np.testing.assert_allclose(o, r, rtol=1e-6)
    cmp = run([x < 2, x <= 2, x > 2, x >= 2, tf.equal(x, 2.0), tf.not_equal(x, 2.0)], {x: v})
    assert [c.tolist() for c in cmp] == [[True, False, False], [True, True, False],
                                         [False, False, True], [False, True, True],
                                         [False, True, False], [True, False, True]]


def test_python_scalar_takes_tensor_dtype_and_int_truediv():
    i = tf.constant([3, 4], tf.int32)
    assert (i * 2).dtype == tf.int32
    assert (tf.constant([1.0], tf.float64) + 1).dtype == tf.float64
    out = run(i / 2)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [1.5, 2.0])
    np.testing.assert_array_equal(run(tf.floormod(tf.constant([-7, 7]), 3)), [2, 1])


def test_integer_division_by_zero_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        run(tf.floordiv(tf.constant([1, 2]), tf.constant([1, 0])))


def test_logical_ops_and_operators():
    a = tf.constant([True, True, False, False])
    b = tf.constant([True, False, True, False])
    outs = run([a & b, a | b, a ^ b, ~a, tf.logical_xor(a, b), tf.logical_not(b)])
    assert outs[0].tolist() == [True, False, False, False]
    assert outs[1].tolist() == [True, True, True, False]
    assert outs[2].tolist() == [False, True, True, False]
    assert outs[3].tolist() == [False, False, True, True]
    assert outs[4].tolist() == outs[2].tolist()
    with pytest.raises(TypeError):
        tf.constant([1, 2]) & tf.constant([1, 2])
    with pytest.raises(TypeError):
        ~tf.constant([1.0])


def test_tensor_stays_hashable_and_eq_is_identity():
    a = tf.constant(1.0)
    b = tf.constant(1.0)
    assert a == a and not (a == b)
    assert len({a, b}) == 2


def test_dtype_mismatch_raises_type_error():
    with pytest.raises(TypeError):
        tf.add(tf.constant([1.0], tf.float32), tf.constant([1.0], tf.float64))
    with pytest.raises(TypeError):
        tf.sqrt(tf.constant([4]))


def test_incompatible_broadcast_raises_value_error():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)|\(2, 3\), \(4,\)"):
        tf.add(tf.zeros([2, 3]), tf.zeros([4]))


# -- matmul -------------------------------------------------------------------------------

@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_transposes(ta, tb):
    a = rnd(3, 4).astype(np.float32)
    b = rnd(4, 5).astype(np.float32)
    aa, bb = (a.T.copy() if ta else a), (b.T.copy() if tb else b)
    out = run(tf.matmul(aa, bb, transpose_a=ta, transpose_b=tb))
    assert out.dtype == np.float32 and out.shape == (3, 5)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5)
    out2 = run(tf.matmul(aa, bb, adjoint_a=ta, adjoint_b=tb))
    np.testing.assert_allclose(out2, a @ b, rtol=1e-5)


def test_batched_matmul_broadcasts_batch_dims():
    a = rnd(2, 1, 3, 4)
    b = rnd(5, 4, 2)
    t = tf.matmul(a, b)
    assert t.shape.as_list() == [2, 5, 3, 2]
    np.testing.assert_allclose(run(t), np.matmul(a, b), rtol=1e-6)
    np.testing.assert_allclose(run(tf.constant(a) @ b), np.matmul(a, b), rtol=1e-6)
    np.testing.assert_allclose(run(tf.matmul(b, b, adjoint_a=True)),
                               np.matmul(np.swapaxes(b, -1, -2), b), rtol=1e-6)


def test_matmul_incompatible_shapes_names_op_and_shapes():
    a = tf.placeholder(tf.float32, [2, 3], name="a")
    b = tf.placeholder(tf.float32, [4, 5], name="b")
    with pytest.raises(ValueError) as e:
        tf.matmul(a, b, name="my_matmul")
    msg = str(e.value)
    assert "my_matmul" in msg and "(2, 3)" in msg and "(4, 5)" in msg and "3 and 4" in msg
    with pytest.raises(ValueError):
        tf.matmul(tf.zeros([3]), tf.zeros([3, 3]))


def test_matmul_runtime_mismatch_is_invalid_argument():
    a = tf.placeholder(tf.float32, [None, None])
    with pytest.raises(tf.errors.InvalidArgumentError, match="size-incompatible"):
        run(tf.matmul(a, a), {a: np.zeros((2, 3), np.float32)})


def test_tensordot():
    a, b = rnd(2, 3, 4), rnd(4, 3, 5)
    np.testing.assert_allclose(run(tf.tensordot(a, b, [[1, 2], [1, 0]])),
                               np.tensordot(a, b, [[1, 2], [1, 0]]), rtol=1e-6)
    np.testing.assert_allclose(run(tf.tensordot(a, b[:, 0, :], 1)),
                               np.tensordot(a, b[:, 0, :], 1), rtol=1e-6)


# -- reductions ---------------------------------------------------------------------------

REDUCE = [(tf.reduce_sum, np.sum), (tf.reduce_mean, np.mean), (tf.reduce_max, np.max),
          (tf.reduce_min, np.min), (tf.reduce_prod, np.prod)]


@pytest.mark.parametrize("fn,ref", REDUCE)
@pytest.mark.parametrize("axis", [None, 0, -1, [0, 2], (1,)])
@pytest.mark.parametrize("keep", [False, True])
def test_reductions(fn, ref, axis, keep):
    x = rnd(2, 3, 4).astype(np.float32)
    t = fn(x, axis=axis, keepdims=keep)
    ax = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    want = ref(x, axis=ax, keepdims=keep)
    out = run(t)
    assert out.dtype == np.float32
    assert t.shape.as_list() == list(np.shape(want))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_reduction_aliases_and_dynamic_axis():
    x = rnd(2, 3)
    np.testing.assert_allclose(run(tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)),
                               x.sum(1, keepdims=True))
    ax = tf.placeholder(tf.int32, [None])
    t = tf.reduce_sum(tf.constant(x), ax)
    np.testing.assert_allclose(run(t, {ax: [0]}), x.sum(0))
    with pytest.raises(ValueError):
        tf.reduce_sum(x, axis=2)
    ints = tf.constant([[1, 2], [4, 4]])
    assert run(tf.reduce_mean(ints)).tolist() == 2
    assert run(tf.reduce_sum(ints, 0)).dtype == np.int32


def test_bool_reductions_argmax_count_nonzero():
    b = np.array([[True, False], [True, True]])
    assert run(tf.reduce_all(b, 1)).tolist() == [False, True]
    assert run(tf.reduce_any(b, 0)).tolist() == [True, True]
    assert run(tf.reduce_all(b)).tolist() is False
    x = np.array([[1.0, 5.0, 5.0], [7.0, 0.0, 2.0]], np.float32)
    am = tf.argmax(x, axis=1)
    assert am.dtype == tf.int64 and run(am).tolist() == [1, 0]
    assert run(tf.argmin(x, 0)).tolist() == [0, 1, 1]
    assert run(tf.argmax(x, 1, output_type=tf.int32)).dtype == np.int32
    assert run(tf.count_nonzero(x)).tolist() == 5
    assert run(tf.count_nonzero(x, axis=1)).tolist() == [3, 2]


def test_cumsum_cumprod():
    x = rnd(3, 4)
    np.testing.assert_allclose(run(tf.cumsum(x, 1)), np.cumsum(x, 1))
    np.testing.assert_allclose(run(tf.cumsum(x, 0, reverse=True)),
                               np.flip(np.cumsum(np.flip(x, 0), 0), 0))
    excl = np.concatenate([np.zeros((3, 1)), np.cumsum(x, 1)[:, :-1]], 1)
    np.testing.assert_allclose(run(tf.cumsum(x, 1, exclusive=True)), excl)
    np.testing.assert_allclose(run(tf.cumprod(x, 1)), np.cumprod(x, 1))


def test_add_n_and_accumulate_n():
    xs = [rnd(2, 2) for _ in range(3)]
    np.testing.assert_allclose(run(tf.add_n(xs)), sum(xs))
    np.testing.assert_allclose(run(tf.accumulate_n(xs)), sum(xs))


# -- clipping -----------------------------------------------------------------------------

def test_clip_by_value_and_norm():
    x = np.array([[-2.0, 0.5], [3.0, 1.0]], np.float32)
    np.testing.assert_allclose(run(tf.clip_by_value(x, -1.0, 1.0)), np.clip(x, -1, 1))
    with pytest.raises(ValueError):
        tf.clip_by_value(x, 2.0, 1.0)
    out = run(tf.clip_by_norm(x, 1.0))
    np.testing.assert_allclose(out, x / np.linalg.norm(x), rtol=1e-6)
    np.testing.assert_allclose(run(tf.clip_by_norm(x, 100.0)), x)
    rows = run(tf.clip_by_norm(x, 1.0, axes=[1]))
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(rows, x / np.maximum(norms, 1.0), rtol=1e-6)
    np.testing.assert_allclose(run(tf.clip_by_norm(np.zeros(3, np.float32), 1.0)), 0.0)


def test_global_norm_and_clip_by_global_norm():
    a, b = rnd(3), rnd(2, 2)
    gn = np.sqrt((a ** 2).sum() + (b ** 2).sum())
    np.testing.assert_allclose(run(tf.global_norm([a, None, b])), gn, rtol=1e-6)
    clipped, norm = tf.clip_by_global_norm([a, None, b], 0.5)
    assert clipped[1] is None
    ca, cb, n = run([clipped[0], clipped[2], norm])
    np.testing.assert_allclose(n, gn, rtol=1e-6)
    np.testing.assert_allclose(ca, a * 0.5 / gn, rtol=1e-6)
    np.testing.assert_allclose(cb, b * 0.5 / gn, rtol=1e-6)
    same, _ = tf.clip_by_global_norm([a], 100.0)
    np.testing.assert_allclose(run(same[0]), a, rtol=1e-6)


# -- gradients ----------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [tf.add, tf.subtract, tf.multiply, tf.divide, tf.maximum,
                                tf.minimum, tf.squared_difference, tf.pow, tf.floormod])
@pytest.mark.parametrize("sa,sb", [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
                                   ((3,), (2, 3))])
def test_binary_gradients_with_broadcasting(fn, sa, sb):
    a = rnd(*sa, lo=0.5, hi=2.0)
    b = rnd(*sb, lo=0.5, hi=2.0) + 0.013  # keeps maximum/minimum away from ties
    if fn is tf.floormod:
        b = b + 2.5
    check_gradients(fn, [a, b])


def test_broadcast_gradient_with_unknown_dims_uses_runtime_shapes():
    a = tf.placeholder(tf.float64, [None, None])
    b = tf.placeholder(tf.float64, [None])
    y = tf.reduce_sum(a * b)
    ga, gb = tf.gradients(y, [a, b])
    av, bv = rnd(2, 3), rnd(3)
    gav, gbv = run([ga, gb], {a: av, b: bv})
    np.testing.assert_allclose(gav, np.broadcast_to(bv, (2, 3)))
    np.testing.assert_allclose(gbv, av.sum(0))
    gav, gbv = run([ga, gb], {a: rnd(2, 1), b: bv})
    assert gav.shape == (2, 1) and gbv.shape == (3,)


@pytest.mark.parametrize("fn,dom", [(tf.negative, None), (tf.square, None), (tf.sqrt, "pos"),
                                    (tf.rsqrt, "pos"), (tf.reciprocal, "pos"), (tf.exp, None),
                                    (tf.log, "pos"), (tf.log1p, "pos"), (tf.abs, None),
                                    (tf.sigmoid, None), (tf.tanh, None), (tf.sign, None)])
def test_unary_gradients(fn, dom):
    x = rnd(2, 3, lo=0.3, hi=2.0) if dom == "pos" else rnd(2, 3, lo=-2, hi=2)
    check_gradients(fn, [x])


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_gradients(ta, tb):
    a = rnd(4, 3) if ta else rnd(3, 4)
    b = rnd(2, 4) if tb else rnd(4, 2)
    check_gradients(lambda x, y: tf.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b])


@pytest.mark.parametrize("adj", [(False, False), (True, True)])
def test_batched_matmul_gradients(adj):
    a = rnd(2, 1, 3, 2) if adj[0] else rnd(2, 1, 2, 3)
    b = rnd(2, 4, 3) if adj[1] else rnd(2, 3, 4)
    check_gradients(lambda x, y: tf.matmul(x, y, adjoint_a=adj[0], adjoint_b=adj[1]), [a, b])
    check_gradients(lambda x, y: tf.matmul(x, y), [rnd(2, 2, 3), rnd(3, 2)])


@pytest.mark.parametrize("fn", [tf.reduce_sum, tf.reduce_mean, tf.reduce_max, tf.reduce_min,
                                tf.reduce_prod])
@pytest.mark.parametrize("axis,keep", [(None, False), (1, False), ([0, 2], True), (-1, True),
                                       ([0, 1], False)])
def test_reduction_gradients(fn, axis, keep):
    # Distinct values 0.1 apart, drawn apart from the shared RNG: max/min have no
    # near-ties for the central differences to straddle, whatever ran before.
    x = np.random.RandomState(7).permutation(12).reshape(2, 3, 2) * 0.1 + 0.5
    check_gradients(lambda t: fn(t, axis=axis, keepdims=keep), [x])


def test_reduction_gradients_with_unknown_shape():
    x = tf.placeholder(tf.float64, None)
    y = tf.reduce_mean(x * x, axis=1)
    g = tf.gradients(y, x)[0]
    v = rnd(2, 3)
    np.testing.assert_allclose(run(g, {x: v}), 2 * v / 3)
    gs = tf.gradients(tf.reduce_sum(x), x)[0]
    np.testing.assert_allclose(run(gs, {x: v}), np.ones((2, 3)))


def test_max_gradient_splits_ties():
    x = tf.placeholder(tf.float64, [4])
    g = tf.gradients(tf.reduce_max(x), x)[0]
    np.testing.assert_allclose(run(g, {x: [1.0, 3.0, 3.0, 2.0]}), [0, 0.5, 0.5, 0])


def test_prod_gradient_with_zero():
    x = tf.placeholder(tf.float64, [2, 3])
    g = tf.gradients(tf.reduce_prod(x, 1), x)[0]
    v = np.array([[2.0, 0.0, 3.0], [1.0, 2.0, 4.0]])
    np.testing.assert_allclose(run(g, {x: v}), [[0, 6, 0], [8, 4, 2]])


def test_clip_and_cumulative_gradients():
    x = np.array([[-2.0, 0.5, 0.2], [3.0, 0.9, -0.3]])
    check_gradients(lambda t: tf.clip_by_value(t, -1.0, 1.0), [x])
    check_gradients(lambda t: tf.clip_by_norm(t, 1.0), [x])
    check_gradients(lambda t: tf.clip_by_norm(t, 1.0, axes=[1]), [x])
    check_gradients(lambda t: tf.cumsum(t, 1, exclusive=True, reverse=True), [x])
    check_gradients(lambda t: tf.cumprod(t, 1), [x + 4])
    check_gradients(lambda a, b: tf.add_n([a, b, a]), [x, x * 2])
    check_gradients(lambda t: tf.global_norm([t, t * 2]), [x])


def test_more_unary_ops_and_logsumexp():
    x = rnd(2, 3, lo=-2, hi=2)
    for fn, ref in [(tf.floor, np.floor), (tf.ceil, np.ceil), (tf.round, np.round),
                    (tf.sin, np.sin), (tf.cos, np.cos), (tf.expm1, np.expm1)]:
        np.testing.assert_allclose(run(fn(x)), ref(x), rtol=1e-6)
    v = np.array([1.0, np.inf, -np.inf, np.nan])
    assert run(tf.is_finite(v)).tolist() == [True, False, False, False]
    assert run(tf.is_nan(v)).tolist() == [False, False, False, True]
    assert run(tf.is_inf(v)).tolist() == [False, True, True, False]
    big = np.array([[1000.0, 1000.0], [-5.0, 0.0]])
    np.testing.assert_allclose(run(tf.reduce_logsumexp(big, 1)),
                               [1000 + np.log(2), np.log(np.exp(-5) + 1)], rtol=1e-9)
    assert run(tf.reduce_logsumexp(big, 1, keepdims=True)).shape == (2, 1)
    for fn in (tf.sin, tf.cos, tf.expm1, lambda t: tf.reduce_logsumexp(t, 0)):
        check_gradients(fn, [x])
