"""Names that TF 1.x programs use and tensorfleet lacked, added after the census of real
public programs (``tests/fixtures/tf1_census_real.json``) and a comparison with TF 1.x's
``tf.*`` / ``tf.math.*`` lists: the trigonometric, hyperbolic and special functions
(``tf.tan`` ... ``tf.atanh``, ``tf.atan2``, ``tf.erf``, ``tf.erfc``, ``tf.lgamma``,
``tf.digamma``, ``tf.polygamma``, ``tf.lbeta``, ``tf.zeta``, ``tf.betainc``,
``tf.math.erfinv``, ``tf.math.ndtri``), ``tf.rint``,
``tf.div_no_nan``, ``tf.math.xlogy`` / ``xdivy`` / ``multiply_no_nan`` /
``reciprocal_no_nan``, ``tf.truncatediv``, ``tf.truncatemod``, ``tf.floor_div``,
``tf.log_sigmoid``, ``tf.scalar_mul``, ``tf.is_tensor``, ``tf.confusion_matrix``,
``tf.math.reduce_variance`` / ``reduce_std`` / ``reduce_euclidean_norm``, ``tf.math``
aliases of ``tf.nn`` functions and more ``tf.GraphKeys`` names (array, ``tf.nn``,
gradient and sparse names are in ``test_array_transform_names.py``).

Values are checked against numpy, Python's ``math`` module or closed forms (digamma(1)
is minus Euler's constant, trigamma(1) is pi^2/6); gradients numerically.
"""

import math

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

EULER = 0.5772156649015329
ZETA3 = 1.2020569031595942


def _run(*tensors):
    with tf.Session() as sess:
        return sess.run(list(tensors))


# -- trigonometric and hyperbolic ------------------------------------------------------------

UNARY = [
    ("tan", np.tan, [-1.2, -0.3, 0.0, 0.7, 1.4]),
    ("sinh", np.sinh, [-3.0, -0.5, 0.0, 0.5, 3.0]),
    ("cosh", np.cosh, [-3.0, -0.5, 0.0, 0.5, 3.0]),
    ("asin", np.arcsin, [-0.9, -0.2, 0.0, 0.4, 0.95]),
    ("acos", np.arccos, [-0.9, -0.2, 0.0, 0.4, 0.95]),
    ("atan", np.arctan, [-20.0, -0.5, 0.0, 0.5, 20.0]),
    ("asinh", np.arcsinh, [-20.0, -0.5, 0.0, 0.5, 20.0]),
    ("acosh", np.arccosh, [1.1, 1.5, 2.0, 10.0, 100.0]),
    ("atanh", np.arctanh, [-0.9, -0.2, 0.0, 0.4, 0.95]),
]


@pytest.mark.parametrize("name, ref, xs", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_names_and_gradients(name, ref, xs):
    x = np.array(xs)
    fn = getattr(tf, name)
    assert getattr(tf.math, name) is fn
    for dtype in (np.float32, np.float64):
        t = fn(tf.constant(x.astype(dtype)))
        assert t.op.type == name.capitalize() and t.name == name.capitalize() + ":0"
        assert t.dtype.np == dtype
        (got,) = _run(t)
        np.testing.assert_allclose(got, ref(x.astype(dtype)), rtol=2e-6 if dtype is np.float32
                                   else 1e-12)
        tf.reset_default_graph()
    check_gradients(fn, [x], rtol=1e-3, atol=1e-5)


def test_unary_domain_edges_are_nan_or_inf_without_errors():
    got = _run(tf.asin(tf.constant([2.0, -1.5])), tf.acosh(tf.constant([0.5])),
               tf.atanh(tf.constant([1.0, -1.0, 2.0])))
    assert np.isnan(got[0]).all() and np.isnan(got[1]).all()
    np.testing.assert_array_equal(got[2][:2], [np.inf, -np.inf])
    assert np.isnan(got[2][2])


def test_unary_rejects_integers_naming_the_op():
    with pytest.raises(TypeError, match="'Tan'.*int32"):
        tf.tan(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="'Erf'"):
        tf.erf(tf.constant([1, 2], tf.int64))


def test_atan2_broadcasts_and_covers_every_quadrant():
    y = np.array([[1.0, -1.0], [-2.0, 0.5], [0.3, 3.0]])
    x = np.array([-1.5, 2.0])
    t = tf.atan2(tf.constant(y), tf.constant(x))
    assert t.name == "Atan2:0" and tf.math.atan2 is tf.atan2
    (got,) = _run(t)
    np.testing.assert_allclose(got, np.arctan2(y, x), rtol=1e-12)
    assert got.min() < -np.pi / 2 and got.max() > np.pi / 2
    check_gradients(tf.atan2, [y, x], rtol=1e-3, atol=1e-5)


# -- error function and the gamma family -----------------------------------------------------

def test_erf_and_erfc_match_math_module_even_in_the_tail():
    xs = [-3.0, -0.7, 0.0, 0.3, 1.0, 2.5, 10.0]
    got_erf, got_erfc = _run(tf.erf(tf.constant(xs, tf.float64)),
                             tf.erfc(tf.constant(xs, tf.float64)))
    np.testing.assert_allclose(got_erf, [math.erf(v) for v in xs], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(got_erfc, [math.erfc(v) for v in xs], rtol=1e-12)
    assert got_erfc[-1] > 0  # 1 - erf(10) would be exactly 0
    x = np.array([-1.2, -0.1, 0.4, 1.3])
    check_gradients(tf.erf, [x], rtol=1e-3, atol=1e-6)
    check_gradients(tf.erfc, [x], rtol=1e-3, atol=1e-6)


def test_lgamma_matches_math_and_is_inf_at_the_poles():
    xs = [-2.5, -0.5, 0.25, 1.0, 2.0, 3.5, 30.0]
    (got,) = _run(tf.lgamma(tf.constant(xs, tf.float64)))
    np.testing.assert_allclose(got, [math.lgamma(v) for v in xs], rtol=1e-12, atol=1e-14)
    (poles,) = _run(tf.lgamma(tf.constant([0.0, -1.0, -3.0])))
    np.testing.assert_array_equal(poles, [np.inf] * 3)
    check_gradients(tf.lgamma, [np.array([-1.5, 0.3, 1.7, 4.0])], rtol=1e-3, atol=1e-5)


def test_digamma_closed_forms_recurrence_and_poles():
    xs = np.array([1.0, 0.5, 2.0, 3.7, -0.5, 0.0, -2.0])
    (got,) = _run(tf.digamma(tf.constant(xs)))
    np.testing.assert_allclose(got[0], -EULER, rtol=1e-13)
    np.testing.assert_allclose(got[1], -EULER - 2 * math.log(2.0), rtol=1e-13)
    np.testing.assert_allclose(got[2], got[0] + 1.0, rtol=1e-13)      # psi(x+1) = psi(x) + 1/x
    (shifted,) = _run(tf.digamma(tf.constant([4.7], tf.float64)))
    np.testing.assert_allclose(shifted[0], got[3] + 1 / 3.7, rtol=1e-13)
    np.testing.assert_allclose(got[4], got[1] + 2.0, rtol=1e-12)      # psi(-0.5) = psi(0.5) + 2
    assert np.isnan(got[5]) and np.isnan(got[6])
    check_gradients(tf.digamma, [np.array([0.6, 1.0, 2.5, -0.4])], rtol=1e-3, atol=1e-5)


def test_polygamma_closed_forms_bad_orders_and_poles():
    a = tf.constant([1.0, 1.0, 2.0, 0.0, 1.5, -1.0, 1.0, 2.0])
    x = tf.constant([1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 0.0, -1.0])
    t = tf.polygamma(a, x)
    assert t.name == "Polygamma:0" and tf.math.polygamma is tf.polygamma
    (got,) = _run(t)
    np.testing.assert_allclose(got[:4], [math.pi ** 2 / 6, math.pi ** 2 / 2, -2 * ZETA3, -EULER],
                               rtol=1e-6)
    assert np.isnan(got[4]) and np.isnan(got[5])    # orders must be non-negative integers
    assert got[6] == np.inf and np.isnan(got[7])    # odd orders diverge to +inf at poles
    order = np.array([[1.0], [2.0]])
    check_gradients(lambda v: tf.polygamma(tf.constant(order), v),
                    [np.array([0.7, 1.5, 3.0])], rtol=2e-3, atol=1e-4)
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [2])
        v = tf.placeholder(tf.float64, [2])
        ga, gv = tf.gradients(tf.reduce_sum(tf.polygamma(a, v)), [a, v])
        assert ga is None and gv is not None


# -- rounding, safe division, log-sigmoid, scalar_mul ----------------------------------------

def test_rint_rounds_halves_to_even_and_has_no_gradient():
    x = tf.constant([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6])
    t = tf.rint(x)
    assert t.name == "Rint:0" and tf.math.rint is tf.rint
    (got,) = _run(t)
    np.testing.assert_array_equal(got, [0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -3.0])
    assert np.signbit(got[3])
    assert tf.gradients(tf.reduce_sum(t), [x]) == [None]


def test_div_no_nan_is_zero_where_the_divisor_is_zero():
    x = np.array([[1.0, -2.0, 0.0], [3.0, 4.0, -5.0]])
    y = np.array([2.0, 0.0, 0.0])
    t = tf.div_no_nan(tf.constant(x), tf.constant(y))
    assert t.name == "div_no_nan:0" and t.op.type == "DivNoNan"
    assert tf.math.divide_no_nan(tf.constant(x), tf.constant(y)).op.type == "DivNoNan"
    (got,) = _run(t)
    np.testing.assert_array_equal(got, [[0.5, 0.0, 0.0], [1.5, 0.0, 0.0]])
    with pytest.raises(TypeError, match="DivNoNan"):
        tf.div_no_nan(tf.constant([1, 2]), tf.constant([0, 1]))


def test_div_no_nan_gradients_with_broadcasting_and_zero_divisors():
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.7, -1.1]])
    y = np.array([2.0, -0.8, 1.6])
    check_gradients(tf.div_no_nan, [x, y], rtol=1e-3, atol=1e-5)
    with tf.Graph().as_default():
        xv, yv = tf.constant(x), tf.constant([2.0, 0.0, 1.6], tf.float64)
        gx, gy = tf.gradients(tf.reduce_sum(tf.div_no_nan(xv, yv)), [xv, yv])
        got_x, got_y = _run(gx, gy)
    np.testing.assert_allclose(got_x, np.tile([0.5, 0.0, 1 / 1.6], (2, 1)), rtol=1e-12)
    np.testing.assert_allclose(got_y, [-(1.0 + 3.0) / 4.0, 0.0, -(0.5 - 1.1) / 1.6 ** 2],
                               rtol=1e-12)


def test_log_sigmoid_is_stable_and_named_like_tensorflow():
    xs = np.array([-200.0, -5.0, 0.0, 3.0, 200.0])
    t = tf.log_sigmoid(tf.constant(xs))
    assert t.name == "LogSigmoid:0" and tf.math.log_sigmoid is tf.log_sigmoid
    (got,) = _run(t)
    np.testing.assert_allclose(got, -np.logaddexp(0.0, -xs), rtol=1e-12, atol=1e-300)
    assert np.isfinite(got).all() and got[0] == pytest.approx(-200.0)
    check_gradients(tf.log_sigmoid, [np.array([-4.0, -0.5, 0.2, 6.0])], rtol=1e-3, atol=1e-6)


def test_scalar_mul_scales_dense_and_sparse_values():
    x = tf.constant([[1.0, -2.0], [3.0, 0.5]])
    t = tf.scalar_mul(3.0, x)
    assert t.name == "Mul:0" and tf.math.scalar_mul is tf.scalar_mul
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([2, 2]))
    scaled = tf.scalar_mul(tf.constant(-2.0), slices)
    assert isinstance(scaled, tf.IndexedSlices) and scaled.indices is slices.indices
    got, values = _run(t, scaled.values)
    np.testing.assert_array_equal(got, [[3.0, -6.0], [9.0, 1.5]])
    np.testing.assert_array_equal(values, [[-2.0, -4.0]])
    with pytest.raises(ValueError, match="0-D"):
        tf.scalar_mul(tf.constant([1.0, 2.0]), x)


# -- collection names --------------------------------------------------------------------------

def test_graph_keys_carry_tensorflows_collection_names():
    assert tf.GraphKeys.SAVEABLE_OBJECTS == "saveable_objects"
    assert tf.GraphKeys.METRIC_VARIABLES == "metric_variables"
    assert tf.GraphKeys.MOVING_AVERAGE_VARIABLES == "moving_average_variables"
    assert (tf.GraphKeys.ACTIVATIONS, tf.GraphKeys.WEIGHTS, tf.GraphKeys.BIASES,
            tf.GraphKeys.ASSET_FILEPATHS) == ("activations", "weights", "biases",
                                              "asset_filepaths")
    v = tf.Variable(1.0)
    tf.add_to_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES, v)
    assert tf.moving_average_variables() == [v]


# -- inverse error functions, x*log(y) and friends -------------------------------------------

def test_erfinv_and_ndtri_invert_erf_and_the_normal_cdf():
    p = np.array([-0.999, -0.5, 0.0, 0.3, 0.9999])
    q = np.array([1e-6, 0.025, 0.5, 0.8, 0.999999])
    inv, nd = _run(tf.math.erfinv(tf.constant(p)), tf.math.ndtri(tf.constant(q)))
    np.testing.assert_allclose([math.erf(v) for v in inv], p, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in nd], q,
                               rtol=1e-12)
    edges = _run(tf.math.erfinv(tf.constant([1.0, -1.0, 1.5])),
                 tf.math.ndtri(tf.constant([0.0, 1.0, -0.1])))
    np.testing.assert_array_equal(edges[0][:2], [np.inf, -np.inf])
    np.testing.assert_array_equal(edges[1][:2], [-np.inf, np.inf])
    assert np.isnan(edges[0][2]) and np.isnan(edges[1][2])
    check_gradients(tf.math.erfinv, [np.array([-0.8, 0.1, 0.6])], rtol=1e-3, atol=1e-5)
    check_gradients(tf.math.ndtri, [np.array([0.05, 0.5, 0.9])], rtol=1e-3, atol=1e-4)


def test_xlogy_xdivy_and_multiply_no_nan_values():
    x = np.array([0.0, 0.0, 2.0, -3.0])
    y = np.array([0.0, np.nan, 3.0, 0.5])
    a, b = _run(tf.math.xlogy(tf.constant(x), tf.constant(y)),
                tf.math.xdivy(tf.constant(x), tf.constant(y)))
    np.testing.assert_allclose(a, [0.0, 0.0, 2 * math.log(3.0), -3 * math.log(0.5)], rtol=1e-15)
    np.testing.assert_allclose(b, [0.0, 0.0, 2 / 3, -6.0], rtol=1e-15)
    m, r = _run(tf.math.multiply_no_nan(tf.constant([np.nan, 2.0, np.inf]),
                                        tf.constant([0.0, 3.0, 0.0])),
                tf.math.reciprocal_no_nan(tf.constant([0.0, 4.0, -0.5])))
    np.testing.assert_array_equal(m, [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(r, [0.0, 0.25, -2.0])
    with pytest.raises(TypeError, match="Xlogy"):
        tf.math.xlogy(tf.constant([1, 2]), tf.constant([1, 2]))


def test_xlogy_xdivy_multiply_no_nan_gradients_with_broadcasting():
    x = np.array([[0.5, -1.5, 2.0], [1.2, 0.3, -0.7]])
    y = np.array([1.5, 0.4, 2.5])
    for fn in (tf.math.xlogy, tf.math.xdivy, tf.math.multiply_no_nan):
        check_gradients(fn, [x, y], rtol=1e-3, atol=1e-5)
    with tf.Graph().as_default():
        xv, yv = tf.constant([0.0, 2.0]), tf.constant([3.0, 0.5])
        grads = tf.gradients(tf.reduce_sum(tf.math.xlogy(xv, yv)), [xv, yv])
        gx, gy = _run(*grads)
    np.testing.assert_allclose(gx, [0.0, math.log(0.5)], rtol=1e-6)   # x == 0: no gradient
    np.testing.assert_allclose(gy, [0.0, 4.0], rtol=1e-6)


def test_truncating_division_rounds_toward_zero_and_floor_div_does_not():
    big = 2 ** 62 + 3
    x = np.array([-7, 7, -7, 7, big, -big], np.int64)
    y = np.array([2, -2, -2, 2, 2, 4], np.int64)
    q, r, f = _run(tf.truncatediv(tf.constant(x), tf.constant(y)),
                   tf.truncatemod(tf.constant(x), tf.constant(y)),
                   tf.floor_div(tf.constant(x), tf.constant(y)))
    np.testing.assert_array_equal(q, [-3, -3, 3, 3, big // 2, -(big // 4)])
    np.testing.assert_array_equal(r, [-1, 1, -1, 1, 1, -3])      # the sign of x, as C's %
    np.testing.assert_array_equal(f, np.floor_divide(x, y))
    np.testing.assert_array_equal(q * y + r, x)
    (rf,) = _run(tf.truncatemod(tf.constant([-7.5, 7.5, 5.0]), tf.constant([2.0, -2.0, 3.0])))
    np.testing.assert_array_equal(rf, [-1.5, 1.5, 2.0])
    assert tf.floor_div(tf.constant([1]), tf.constant([1])).name.startswith("FloorDiv")
    with pytest.raises(TypeError, match="TruncateDiv"):
        tf.truncatediv(tf.constant([1.0]), tf.constant([2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        _run(tf.truncatediv(tf.constant([1, 2]), tf.constant([1, 0])))
    x_t = tf.constant([3, 4])
    assert tf.gradients(tf.truncatediv(x_t, tf.constant([2, 2])), [x_t]) == [None]


def test_is_tensor_and_math_aliases_of_nn_functions():
    v = tf.Variable(1.0)
    sp = tf.SparseTensor([[0, 1]], [2.0], [2, 2])
    assert tf.is_tensor(tf.constant(1.0)) and tf.is_tensor(v) and tf.is_tensor(sp)
    assert not tf.is_tensor(1.0) and not tf.is_tensor(np.zeros(2)) and not tf.is_tensor([1])
    assert tf.math.softmax is tf.nn.softmax and tf.math.log_softmax is tf.nn.log_softmax
    assert tf.math.softsign is tf.nn.softsign


# -- statistics ---------------------------------------------------------------------------------

def test_reduce_variance_std_and_euclidean_norm_match_numpy():
    x = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, -1.0]])
    v_all, v1, s0, n_all, n1 = _run(
        tf.math.reduce_variance(tf.constant(x)),
        tf.math.reduce_variance(tf.constant(x), axis=1, keepdims=True),
        tf.math.reduce_std(tf.constant(x), axis=0),
        tf.math.reduce_euclidean_norm(tf.constant(x)),
        tf.math.reduce_euclidean_norm(tf.constant(x), axis=[1]))
    np.testing.assert_allclose(v_all, np.var(x), rtol=1e-12)
    np.testing.assert_allclose(v1, np.var(x, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(s0, np.std(x, axis=0), rtol=1e-12)
    np.testing.assert_allclose(n_all, np.linalg.norm(x), rtol=1e-12)
    np.testing.assert_allclose(n1, np.linalg.norm(x, axis=1), rtol=1e-12)
    (n_int,) = _run(tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [1, 1]]), axis=1))
    assert n_int.dtype == np.int32 and n_int.tolist() == [5, 1]
    with pytest.raises(TypeError, match="floating-point"):
        tf.math.reduce_std(tf.constant([1, 2]))
    for fn in (tf.math.reduce_variance, tf.math.reduce_std, tf.math.reduce_euclidean_norm):
        check_gradients(lambda a, f=fn: f(a, axis=1), [x], rtol=1e-3, atol=1e-5)


def test_reduction_names_follow_tensorflow():
    x = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    assert tf.math.reduce_variance(x).name == "reduce_variance/Mean_1:0"
    assert tf.math.reduce_std(x).name == "reduce_std/Sqrt:0"
    assert tf.math.reduce_euclidean_norm(x).name == "EuclideanNorm:0"


def test_confusion_matrix_counts_and_weights_pairs():
    labels = np.array([0, 2, 1, 2, 2, 0])
    preds = np.array([0, 1, 1, 2, 1, 2])
    expected = np.zeros((3, 3), np.int32)
    np.add.at(expected, (labels, preds), 1)
    weights = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    weighted = np.zeros((4, 4))
    np.add.at(weighted, (labels, preds), weights)
    cm = tf.confusion_matrix(tf.constant(labels), tf.constant(preds))
    cw = tf.math.confusion_matrix(tf.constant(labels), tf.constant(preds), num_classes=4,
                                  weights=tf.constant(weights), dtype=tf.float64)
    assert cm.dtype == tf.int32 and cw.shape.as_list() == [4, 4]
    assert cm.name.startswith("confusion_matrix/")
    got, got_w = _run(cm, cw)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got_w, weighted)
    (squeezed,) = _run(tf.confusion_matrix(tf.constant(labels[:, None]), tf.constant(preds)))
    np.testing.assert_array_equal(squeezed, expected)


def test_confusion_matrix_rejects_ids_out_of_range_at_run_time():
    ids = tf.placeholder(tf.int32, [None])
    bounded = tf.confusion_matrix(ids, ids, num_classes=2)
    free = tf.confusion_matrix(ids, ids)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(bounded, {ids: [0, 1, 1]}), [[1, 0], [0, 2]])
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of bound"):
            sess.run(bounded, {ids: [0, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="negative values"):
            sess.run(free, {ids: [-1, 0]})


# -- beta and zeta functions --------------------------------------------------------------------

def test_lbeta_sums_over_the_last_axis():
    x = np.array([[1.0, 2.0], [0.5, 3.0], [2.5, 1.5]])
    (got,) = _run(tf.lbeta(tf.constant(x)))
    want = [sum(math.lgamma(v) for v in row) - math.lgamma(sum(row)) for row in x]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert tf.math.lbeta is tf.lbeta
    with tf.Graph().as_default():
        assert tf.lbeta(tf.constant(x)).name == "lbeta/sub:0"
    (empty,) = _run(tf.lbeta(tf.zeros([2, 0])))
    np.testing.assert_array_equal(empty, [-np.inf, -np.inf])
    check_gradients(tf.lbeta, [x], rtol=1e-3, atol=1e-5)


def test_zeta_closed_forms_divergence_and_gradient_in_q():
    x = tf.constant([2.0, 4.0, 2.0, 1.0, 0.5], tf.float64)
    q = tf.constant([1.0, 1.0, 2.0, 1.0, 1.0], tf.float64)
    (got,) = _run(tf.zeta(x, q))
    np.testing.assert_allclose(got[:3], [math.pi ** 2 / 6, math.pi ** 4 / 90,
                                         math.pi ** 2 / 6 - 1], rtol=1e-12)
    assert got[3] == np.inf and np.isnan(got[4])
    xs = np.array([2.0, 3.5])
    check_gradients(lambda v: tf.zeta(tf.constant(xs), v), [np.array([1.3, 2.0])],
                    rtol=1e-3, atol=1e-5)
    with tf.Graph().as_default():
        xv = tf.constant(xs)
        assert tf.gradients(tf.reduce_sum(tf.zeta(xv, tf.constant([1.0, 2.0], tf.float64))),
                            [xv]) == [None]


def test_betainc_closed_forms_and_gradient_in_x():
    x = np.array([0.1, 0.5, 0.8])
    a = tf.constant([1.0, 2.0, 3.0], tf.float64)
    got_b1, got_a1, got_sym = _run(
        tf.betainc(tf.constant([1.0] * 3, tf.float64), tf.constant([2.0, 3.0, 0.5], tf.float64),
                   tf.constant(x)),
        tf.betainc(a, tf.constant([1.0] * 3, tf.float64), tf.constant(x)),
        tf.betainc(a, a, tf.constant([0.5] * 3, tf.float64)))
    np.testing.assert_allclose(got_b1, 1 - (1 - x) ** np.array([2.0, 3.0, 0.5]), rtol=1e-12)
    np.testing.assert_allclose(got_a1, x ** np.array([1.0, 2.0, 3.0]), rtol=1e-12)
    np.testing.assert_allclose(got_sym, [0.5, 0.5, 0.5], rtol=1e-12)
    assert tf.math.betainc is tf.betainc
    check_gradients(lambda v: tf.betainc(tf.constant([1.5, 2.0, 0.7], tf.float64),
                                         tf.constant(2.5, tf.float64), v),
                    [x], rtol=1e-3, atol=1e-5)
    with pytest.raises(TypeError, match="one dtype"):
        tf.betainc(tf.constant(1.0), tf.constant(1.0, tf.float64), tf.constant(0.5))


# -- Bessel functions, nextafter, polyval -------------------------------------------------------

def _np_i0(x):
    """I0 by its power series sum((x/2)^(2k) / (k!)^2)."""
    return sum((x / 2.0) ** (2 * k) / math.factorial(k) ** 2 for k in range(40))


def _np_i1(x):
    """I1 by its power series sum((x/2)^(2k+1) / (k! (k+1)!))."""
    return sum((x / 2.0) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
               for k in range(40))


def test_bessel_functions_match_their_series():
    x = np.array([-3.0, -0.5, 0.0, 0.7, 4.0])
    i0, i0e, i1, i1e = _run(tf.math.bessel_i0(x), tf.math.bessel_i0e(x), tf.math.bessel_i1(x),
                            tf.math.bessel_i1e(x))
    np.testing.assert_allclose(i0, _np_i0(x), rtol=1e-12)
    np.testing.assert_allclose(i1, _np_i1(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(i0e, np.exp(-np.abs(x)) * _np_i0(x), rtol=1e-12)
    np.testing.assert_allclose(i1e, np.exp(-np.abs(x)) * _np_i1(x), rtol=1e-12, atol=1e-15)
    for fn in (tf.math.bessel_i0e, tf.math.bessel_i1e, tf.math.bessel_i0, tf.math.bessel_i1):
        check_gradients(fn, [np.array([-2.0, -0.3, 0.4, 1.5])])
    check_gradients(tf.math.bessel_i1e, [np.array([0.0])])
    with pytest.raises(TypeError):
        tf.math.bessel_i0e(tf.constant([1, 2]))


def test_nextafter_and_polyval():
    up, down, poly, empty = _run(
        tf.math.nextafter(np.float32([1.0, 0.0]), np.float32([2.0, -1.0])),
        tf.math.nextafter(np.array([1.0]), np.array([0.0])),
        tf.math.polyval([1.0, 2.0, 3.0], tf.constant([0.0, 2.0])),
        tf.math.polyval([], tf.constant([5.0])))
    np.testing.assert_array_equal(up, np.nextafter(np.float32([1.0, 0.0]), np.float32([2, -1])))
    assert up.dtype == np.float32
    np.testing.assert_array_equal(down, [np.nextafter(1.0, 0.0)])
    np.testing.assert_allclose(poly, [3.0, 11.0])
    np.testing.assert_allclose(empty, [0.0])
    check_gradients(lambda v: tf.math.polyval([2.0, -1.0, 0.5], v), [np.array([0.3, -1.2])])
    with pytest.raises(ValueError):
        tf.math.polyval(tf.constant([1.0, 2.0]), 1.0)
    assert tf.math.invert_permutation is tf.invert_permutation
