"""More names that TF 1.x programs use and tensorfleet lacked (see
``test_math_special_names.py`` for the math functions): array composites (``tf.arg_max``,
``tf.lin_space``, ``tf.meshgrid``, ``tf.roll``, ``tf.broadcast_to``, ``tf.where_v2``,
``tf.searchsorted``, ``tf.unravel_index``, ``tf.space_to_depth``, ``tf.space_to_batch_nd``
...), ``tf.nn`` names (``max_pool2d``, ``avg_pool1d``, ``convolution``,
``log_poisson_loss``, ``weighted_moments`` ...), ``tf.train.basic_train_loop`` /
``checkpoints_iterator``, ``tf.identity_n``, ``tf.custom_gradient``,
``Graph.gradient_override_map``, ``tf.hessians`` and the ``tf.sparse_*`` composites
(``sparse_reshape``, ``sparse_slice``, ``sparse_softmax``, ``sparse_maximum`` ...),
``tf.nn.conv3d_transpose`` / ``conv1d_transpose`` and ``tf.batch_gather``,
``tf.bitcast``, ``tf.switch_case``, ``tf.timestamp`` ...,
``tf.losses.mean_pairwise_squared_error`` and ``tf.saved_model.main_op`` /
``contains_saved_model`` / ``get_tensor_from_tensor_info``.

Values are checked against numpy or TensorFlow's documented examples; gradients
numerically.
"""

import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def
from tensorfleet.testing.gradient_checker import check_gradients


def _run(*tensors):
    with tf.Session() as sess:
        return sess.run(list(tensors))


# -- array composites (ops/array_transform_ops.py), checks (check_ops.py), histograms ----------

def test_arg_max_arg_min_take_dimension():
    got = _run(tf.arg_max([[1, 5, 2], [7, 0, 1]], 1), tf.arg_min([[1, 5, 2], [7, 0, 1]],
                                                                   dimension=0))
    np.testing.assert_array_equal(got[0], [1, 0])
    np.testing.assert_array_equal(got[1], [0, 1, 1])
    assert tf.arg_max([[1.0, 2.0]], 1).dtype == tf.int64


def test_lin_space_and_linspace():
    a, b, c = _run(tf.lin_space(0.0, 1.0, 5), tf.linspace(2.0, 3.0, 1),
                   tf.lin_space(tf.constant(-1.0, tf.float64), 1.0, tf.constant(3)))
    np.testing.assert_allclose(a, np.linspace(0.0, 1.0, 5))
    np.testing.assert_allclose(b, [2.0])
    np.testing.assert_allclose(c, [-1.0, 0.0, 1.0])
    assert tf.lin_space(0.0, 1.0, 5).shape.as_list() == [5]
    with pytest.raises(TypeError):
        tf.lin_space(0, 1, 3)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    x, y, z = np.array([1, 2, 3]), np.array([4, 5]), np.array([6, 7, 8, 9])
    got = _run(*tf.meshgrid(x, y, z, indexing=indexing))
    for g, w in zip(got, np.meshgrid(x, y, z, indexing=indexing)):
        np.testing.assert_array_equal(g, w)


def test_roll_matches_numpy_and_keeps_static_shape():
    x = np.arange(12).reshape(3, 4)
    got = _run(tf.roll(x, 1, 0), tf.roll(x, [1, -5], [0, 1]), tf.roll(x, tf.constant(2), -1))
    np.testing.assert_array_equal(got[0], np.roll(x, 1, 0))
    np.testing.assert_array_equal(got[1], np.roll(x, [1, -5], [0, 1]))
    np.testing.assert_array_equal(got[2], np.roll(x, 2, -1))
    p = tf.placeholder(tf.float32, [None, 3])
    assert tf.roll(p, 1, 1).shape.as_list() == [None, 3]
    check_gradients(lambda v: tf.roll(v, 2, 0) * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64),
                    [np.array([0.5, -1.0, 2.0, 3.0])])


def test_broadcast_to_and_shapes():
    got = _run(tf.broadcast_to([1, 2, 3], [2, 3]), tf.broadcast_to([True, False], [2, 2]),
               tf.broadcast_dynamic_shape([2, 1, 3], [4, 3]))
    np.testing.assert_array_equal(got[0], [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(got[1], [[True, False], [True, False]])
    np.testing.assert_array_equal(got[2], [2, 4, 3])
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() \
        == [2, 3]
    with pytest.raises(ValueError):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(tf.broadcast_dynamic_shape([2, 3], [4, 3]))
    check_gradients(lambda v: tf.broadcast_to(v, [3, 2]), [np.array([[1.0, 2.0]])])


def test_identity_n_shape_n_parallel_stack_dimension_value():
    a, b = tf.zeros([2, 3]), tf.ones([4])
    got = _run(*tf.identity_n([a, b]), *tf.shape_n([a, b], out_type=tf.int64),
               tf.parallel_stack([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(got[1], np.ones(4))
    np.testing.assert_array_equal(got[2], [2, 3])
    np.testing.assert_array_equal(got[3], [4])
    assert got[2].dtype == np.int64
    np.testing.assert_array_equal(got[4], [[1, 2], [3, 4]])
    shape = tf.TensorShape([3, None])
    assert tf.dimension_value(shape[0]) == 3 and tf.dimension_value(shape[1]) is None
    assert tf.dimension_value(5) == 5


def test_saturate_cast_clips_to_the_target_range():
    got = _run(tf.saturate_cast([-5.0, 300.0, 3.7], tf.uint8),
               tf.saturate_cast(tf.constant([70000, -70000, 5], tf.int32), tf.int16))
    np.testing.assert_array_equal(got[0], [0, 255, 3])
    assert got[0].dtype == np.uint8
    np.testing.assert_array_equal(got[1], [32767, -32768, 5])
    # float32 holds no 2**31 - 1: the limit is the largest float32 below it, as in TensorFlow.
    (big,) = _run(tf.saturate_cast([1e10, -1e10], tf.int32))
    np.testing.assert_array_equal(big, [2147483520, -2147483648])


def test_where_v2_broadcasts():
    got = _run(tf.where_v2([True, False, True], [[1, 2, 3], [4, 5, 6]], 0),
               tf.where_v2([[True], [False]], 1.0, [2.0, 3.0]),
               tf.where_v2([[False, True], [True, True]]),
               tf.where_v2([True, False], 0, tf.constant([1.5, 2.5])))
    np.testing.assert_array_equal(got[0], [[1, 0, 3], [4, 0, 6]])
    np.testing.assert_array_equal(got[1], [[1.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(got[2], [[0, 1], [1, 0], [1, 1]])
    np.testing.assert_array_equal(got[3], [0.0, 2.5])


def test_searchsorted_left_and_right():
    seq = [[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]]
    got = _run(tf.searchsorted(seq, [[2, 4, 9], [0, 2, 6]]),
               tf.searchsorted(seq, [[2, 4, 9], [0, 2, 6]], side="right", out_type=tf.int64))
    np.testing.assert_array_equal(got[0], [[1, 2, 2], [0, 1, 5]])
    np.testing.assert_array_equal(got[1], [[1, 2, 4], [0, 2, 5]])
    assert got[1].dtype == np.int64
    with pytest.raises(ValueError):
        tf.searchsorted(seq, [[1]], side="middle")


def test_unravel_index_matches_numpy():
    got = _run(tf.unravel_index([22, 41, 37], [7, 6]), tf.unravel_index(7, [3, 4]))
    np.testing.assert_array_equal(got[0], np.unravel_index([22, 41, 37], (7, 6)))
    np.testing.assert_array_equal(got[1], np.unravel_index(7, (3, 4)))


def test_is_non_decreasing_and_strictly_increasing():
    got = _run(tf.is_non_decreasing([1, 1, 2]), tf.is_strictly_increasing([1, 1, 2]),
               tf.is_strictly_increasing([[1.0, 2.0], [3.0, 4.0]]),
               tf.is_non_decreasing([3, 2]), tf.is_strictly_increasing([3]))
    assert [bool(g) for g in got] == [True, False, True, False, True]


def test_space_to_depth_and_back():
    x = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)
    sd = tf.space_to_depth(x, 2)
    assert sd.shape.as_list() == [2, 2, 3, 12]
    want = x.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(2, 2, 3, 12)
    (got_sd,) = _run(sd)
    np.testing.assert_array_equal(got_sd, want)
    back = tf.depth_to_space(got_sd, 2)
    assert back.shape.as_list() == [2, 4, 6, 3]
    np.testing.assert_array_equal(_run(back)[0], x)
    # TensorFlow's documented example: a 1x2x2x1 image becomes one 4-channel pixel.
    np.testing.assert_array_equal(_run(tf.space_to_depth([[[[1], [2]], [[3], [4]]]], 2))[0],
                                  [[[[1, 2, 3, 4]]]])
    with pytest.raises(ValueError):
        tf.space_to_depth(x, 2, data_format="NCHW")


def test_init_scope_clears_control_dependencies():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
        with tf.control_dependencies([a]):
            inner = tf.constant(2.0)
            with tf.init_scope():
                outer = tf.constant(3.0)
        assert a.op in inner.op.control_inputs
        assert a.op not in outer.op.control_inputs


def test_numpy_function_get_seed_and_asserts():
    y = tf.numpy_function(lambda a: a * 2, [tf.constant([1.0, 2.0])], tf.float32)
    np.testing.assert_allclose(_run(y)[0], [2.0, 4.0])
    g = tf.Graph()
    with g.as_default():
        assert tf.get_seed(None) == (None, None)
        tf.set_random_seed(7)
        assert tf.get_seed(3) == (7, 3)
    assert tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(2.0)]) == tf.float32
    assert tf.assert_same_float_dtype(None, tf.float64) == tf.float64
    with pytest.raises(ValueError):
        tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(1.0, tf.float64)])
    with pytest.raises(ValueError):
        tf.assert_same_float_dtype([tf.constant(1)])
    tf.assert_rank_in(tf.zeros([2, 3]), [1, 2])
    with pytest.raises(ValueError):
        tf.assert_rank_in(tf.zeros([2, 3]), [0, 1])


# -- tf.nn names (tensorfleet/ops/nn_pool_ops.py, nn_conv_variant_ops.py, nn_ops.py) ---------

def test_nn_pool_variants_match_reshaped_numpy():
    x = np.random.RandomState(0).randn(2, 6, 6, 3).astype(np.float32)
    x1 = x[:, :, 0, :]
    got = _run(tf.nn.max_pool2d(x, 2, 2, "VALID"), tf.nn.avg_pool2d(x, [3, 3], [3, 3], "VALID"),
               tf.nn.max_pool1d(x1, 2, 2, "VALID"), tf.nn.avg_pool1d(x1, [2], [1, 2, 1], "VALID"),
               tf.nn.max_pool_v2(x, [1, 3, 3, 1], [1, 3, 3, 1], "VALID"),
               tf.nn.avg_pool_v2(x1, 3, 3, "VALID"))
    np.testing.assert_allclose(got[0], x.reshape(2, 3, 2, 3, 2, 3).max((2, 4)))
    np.testing.assert_allclose(got[1], x.reshape(2, 2, 3, 2, 3, 3).mean((2, 4)), rtol=1e-5)
    np.testing.assert_allclose(got[2], x1.reshape(2, 3, 2, 3).max(2))
    np.testing.assert_allclose(got[3], x1.reshape(2, 3, 2, 3).mean(2), rtol=1e-5)
    np.testing.assert_allclose(got[4], x.reshape(2, 2, 3, 2, 3, 3).max((2, 4)))
    np.testing.assert_allclose(got[5], x1.reshape(2, 2, 3, 3).mean(2), rtol=1e-5)
    with pytest.raises(ValueError):
        tf.nn.max_pool2d(x, [2, 2, 2], 2, "VALID")


def test_nn_convolution_dispatches_on_rank():
    rs = np.random.RandomState(1)
    x = rs.randn(2, 7, 7, 3).astype(np.float32)
    f = rs.randn(3, 3, 3, 4).astype(np.float32)
    x1, f1 = x[:, :, 0, :], rs.randn(3, 3, 5).astype(np.float32)
    x3, f3 = rs.randn(1, 4, 4, 4, 2).astype(np.float32), rs.randn(2, 2, 2, 2, 3).astype(np.float32)
    got = _run(tf.nn.convolution(x, f, "SAME"), tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"),
               tf.nn.convolution(x, f, "VALID", dilation_rate=[2, 2]),
               tf.nn.atrous_conv2d(x, f, 2, "VALID"),
               tf.nn.convolution(x1, f1, "SAME", strides=[2]), tf.nn.conv1d(x1, f1, 2, "SAME"),
               tf.nn.convolution(x3, f3, "VALID"),
               tf.nn.conv3d(x3, f3, [1, 1, 1, 1, 1], "VALID"))
    for i in range(0, 8, 2):
        np.testing.assert_allclose(got[i], got[i + 1], rtol=1e-5, atol=1e-5)


def test_nn_space_to_depth_alias():
    assert tf.nn.space_to_depth is tf.space_to_depth
    assert tf.nn.depth_to_space is tf.depth_to_space


def test_nn_log_poisson_loss():
    t = np.array([0.0, 0.5, 1.0, 2.0, 5.0])
    li = np.array([0.1, -0.2, 0.3, 0.7, 1.5])
    with np.errstate(all="ignore"):
        part, full = _run(tf.nn.log_poisson_loss(t, li),
                          tf.nn.log_poisson_loss(t, li, compute_full_loss=True))
    np.testing.assert_allclose(part, np.exp(li) - li * t)
    tp = np.maximum(t, 1e-300)
    stirling = t * np.log(tp) - t + 0.5 * np.log(2 * np.pi * tp)
    np.testing.assert_allclose(full, np.exp(li) - li * t + np.where(t <= 1, 0.0, stirling))


def test_nn_weighted_moments():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, -1.0]])
    w = np.array([[1.0], [3.0], [2.0]])
    mean, var, mk, vk = _run(*tf.nn.weighted_moments(x, [0], w),
                             *tf.nn.weighted_moments(x, 0, w, keep_dims=True))
    want_m = (w * x).sum(0) / w.sum()
    np.testing.assert_allclose(mean, want_m)
    np.testing.assert_allclose(var, (w * (x - want_m) ** 2).sum(0) / w.sum())
    assert mk.shape == (1, 2) and vk.shape == (1, 2)


def test_conv3d_transpose_is_the_adjoint_of_conv3d():
    rs = np.random.RandomState(0)
    a, w = rs.randn(2, 5, 6, 4, 3), rs.randn(2, 3, 2, 3, 4)
    y = tf.nn.conv3d(tf.constant(a), tf.constant(w), [1, 2, 1, 2, 1], "SAME")
    (yv,) = _run(y)
    b = rs.randn(*yv.shape)
    t = tf.nn.conv3d_transpose(tf.constant(b), tf.constant(w), list(a.shape), [1, 2, 1, 2, 1],
                               "SAME")
    assert t.shape.as_list() == list(a.shape)
    (tv,) = _run(t)
    # <conv3d(a, w), b> == <a, conv3d_transpose(b, w)>
    np.testing.assert_allclose((yv * b).sum(), (a * tv).sum(), rtol=1e-10)
    with pytest.raises(ValueError):
        tf.nn.conv3d_transpose(tf.constant(b), tf.constant(rs.randn(2, 3, 2, 3, 5)),
                               list(a.shape), [1, 2, 1, 2, 1])


def test_conv3d_transpose_gradients():
    w = np.random.RandomState(1).randn(2, 2, 2, 2, 3)
    x = np.random.RandomState(2).randn(1, 2, 3, 2, 3)
    check_gradients(lambda v: tf.nn.conv3d_transpose(v, tf.constant(w), [1, 3, 5, 3, 2],
                                                     [1, 2, 2, 2, 1], "SAME"), [x])
    check_gradients(lambda k: tf.nn.conv3d_transpose(tf.constant(x), k, [1, 3, 5, 3, 2],
                                                     [1, 2, 2, 2, 1], "SAME"), [w])
    check_gradients(lambda v: tf.nn.conv3d_backprop_filter(
        v, [2, 2, 2, 2, 3], tf.constant(x), [1, 1, 1, 1, 1], "SAME"),
        [np.random.RandomState(3).randn(1, 2, 3, 2, 2)])


def test_conv1d_transpose_is_the_adjoint_of_conv1d():
    rs = np.random.RandomState(4)
    a, w = rs.randn(2, 7, 3), rs.randn(3, 3, 4)
    (y,) = _run(tf.nn.conv1d(a, w, 2, "SAME"))
    b = rs.randn(*y.shape)
    t = tf.nn.conv1d_transpose(b, w, [2, 7, 3], 2, "SAME")
    assert t.shape.as_list() == [2, 7, 3]
    (tv,) = _run(t)
    np.testing.assert_allclose((y * b).sum(), (a * tv).sum(), rtol=1e-10)
    with pytest.raises(ValueError):
        tf.nn.conv1d_transpose(b, w, [2, 7, 3], 2, data_format="NCW")


# -- tf.train loop helpers (tensorfleet/training/basic_loops.py) -----------------------------

def test_basic_train_loop_runs_until_stop_and_retries_on_abort(tmp_path):
    calls = []
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        inc = tf.assign_add(step, 1)
        sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)

        def train_step(sess, scale, offset=0):
            calls.append(sess.run(inc) * scale + offset)
            if len(calls) == 2:
                raise tf.errors.AbortedError(None, None, "preempted")
            if len(calls) == 4:
                sv.request_stop()

        tf.train.basic_train_loop(sv, train_step, args=[10], kwargs={"offset": 1})
    assert len(calls) == 4 and calls[0] == 11


def test_checkpoints_iterator_yields_the_latest_then_times_out(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=3)
    got = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=1.5))
    assert got == [path]
    assert tf.train.piecewise_constant_decay is tf.train.piecewise_constant
    assert v is not None


def test_histogram_fixed_width_and_bins():
    v = [-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]   # TensorFlow's documented example
    counts, bins, counts64 = _run(tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5),
                                  tf.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=5),
                                  tf.histogram_fixed_width(tf.constant([[1, 9], [4, 4]]),
                                                           [0, 10], nbins=2, dtype=tf.int64))
    np.testing.assert_array_equal(counts, [2, 1, 1, 0, 2])
    assert counts.dtype == np.int32
    np.testing.assert_array_equal(bins, [0, 0, 1, 2, 4, 4])
    np.testing.assert_array_equal(counts64, [3, 1])
    assert counts64.dtype == np.int64


def test_hessians_of_a_polynomial():
    x = tf.constant([1.0, 2.0], tf.float64)
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64)
    (h,), (hm,) = _run(tf.hessians(x[0] ** 2 * x[1] + x[1] ** 3, x),
                       tf.hessians(tf.reduce_sum(m * m), m))
    np.testing.assert_allclose(h, [[4.0, 2.0], [2.0, 12.0]])
    np.testing.assert_allclose(hm, 2 * np.eye(4).reshape(2, 2, 2, 2))
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError):
        tf.hessians(tf.reduce_sum(p ** 2), p)
    assert tf.hessians(tf.reduce_sum(p), tf.placeholder(tf.float32, [2])) == [None]


def _np_space_to_batch_nd(x, block, pads):
    """TensorFlow's documented algorithm, in numpy."""
    m = len(block)
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    split = [padded.shape[0]]
    for i, b in enumerate(block):
        split += [padded.shape[1 + i] // b, b]
    y = padded.reshape(split + list(padded.shape[1 + m:]))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, y.ndim))
    y = y.transpose(perm)
    return y.reshape([-1] + [split[1 + 2 * i] for i in range(m)] + list(padded.shape[1 + m:]))


def test_space_to_batch_nd_and_back():
    x = np.arange(1, 17).reshape(1, 4, 4, 1)
    (y,) = _run(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]))
    # TensorFlow's documented example.
    assert y[..., 0].tolist() == [[[1, 3], [9, 11]], [[2, 4], [10, 12]], [[5, 7], [13, 15]],
                                  [[6, 8], [14, 16]]]
    x = np.arange(2 * 5 * 3 * 2, dtype=np.float64).reshape(2, 5, 3, 2)
    pads = [[1, 0], [1, 2]]
    s2b = tf.space_to_batch_nd(x, [2, 3], pads)
    assert s2b.shape.as_list() == [12, 3, 2, 2]
    assert tf.batch_to_space_nd(s2b, [2, 3], pads).shape.as_list() == [2, 5, 3, 2]
    assert tf.space_to_batch_nd(x, [2, 3], tf.constant(pads)).shape.as_list() == [12, None, None, 2]
    (y,) = _run(s2b)
    np.testing.assert_array_equal(y, _np_space_to_batch_nd(x, [2, 3], pads))
    (back,) = _run(tf.batch_to_space_nd(y, [2, 3], pads))
    np.testing.assert_array_equal(back, x)
    x3 = np.arange(2 * 6 * 4).reshape(2, 6, 4)
    (y3,) = _run(tf.space_to_batch_nd(x3, [3], [[1, 2]]))
    np.testing.assert_array_equal(y3, _np_space_to_batch_nd(x3, [3], [[1, 2]]))
    x4 = np.arange(1 * 4 * 4 * 1).reshape(1, 4, 4, 1)
    a, b = _run(tf.space_to_batch(x4, [[0, 0], [0, 0]], block_size=2),
                tf.batch_to_space(tf.space_to_batch(x4, [[0, 0], [0, 0]], 2), [[0, 0], [0, 0]], 2))
    np.testing.assert_array_equal(a, _np_space_to_batch_nd(x4, [2, 2], [[0, 0], [0, 0]]))
    np.testing.assert_array_equal(b, x4)
    assert tf.nn.space_to_batch is tf.space_to_batch
    check_gradients(lambda v: tf.space_to_batch_nd(v, [2], [[1, 1]]) * 1.0,
                    [np.array([[[0.5], [1.0]], [[2.0], [-1.0]]])])


# -- gradient_override_map and custom_gradient ------------------------------------------------

def test_identity_n_is_one_op_with_pass_through_gradient():
    x = tf.constant([1.0, 2.0])
    y, z = tf.identity_n([x * 2.0, x])
    assert y.op is z.op and y.op.type == "IdentityN"
    (g,) = _run(tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(z * z), x)[0])
    np.testing.assert_allclose(g, [4.0, 6.0])


def test_gradient_override_map():
    g = tf.Graph()
    with g.as_default():
        @tf.RegisterGradient("CensusTimes100")
        def _times_100(op, grad):
            return grad * 100.0

        x = tf.constant([1.0, 2.0])
        with g.gradient_override_map({"Square": "CensusTimes100"}):
            overridden = tf.square(x)
            with g.gradient_override_map({"Square": "Square"}):
                inner = tf.square(x)
        plain = tf.square(x)
        with tf.Session() as sess:
            got = sess.run([tf.gradients(t, x)[0] for t in (overridden, inner, plain)])
    np.testing.assert_allclose(got[0], [100.0, 100.0])
    np.testing.assert_allclose(got[1], [2.0, 4.0])
    np.testing.assert_allclose(got[2], [2.0, 4.0])
    with pytest.raises(TypeError):
        with g.gradient_override_map([("Square", "x")]):
            pass


def test_custom_gradient_replaces_the_gradient():
    @tf.custom_gradient
    def log1pexp(x):   # TensorFlow's documented example: a stable gradient
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.log(1 + e), grad

    @tf.custom_gradient
    def flip(x, y):
        def grad(dz):
            return -dz, dz * 0.5
        return x + y, grad

    x = tf.constant([0.0, 100.0])
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    y = log1pexp(x)
    z = flip(a, b) * 3.0
    got = _run(tf.gradients(y, x)[0], *tf.gradients(tf.reduce_sum(z), [a, b]), z)
    np.testing.assert_allclose(got[0], [0.5, 1.0])
    np.testing.assert_allclose(got[1], [-3.0, -3.0])
    np.testing.assert_allclose(got[2], [1.5, 1.5])
    np.testing.assert_allclose(got[3], [12.0, 18.0])
    with pytest.raises(ValueError):
        flip(a, y=b)


def test_custom_gradient_with_variables():
    with tf.Graph().as_default():
        w = tf.Variable(2.0)
        seen = []

        @tf.custom_gradient
        def scale(x):
            def grad(dy, variables=None):
                seen.extend(variables)
                return dy * 10.0, [dy * 0.0 + 7.0]
            return x * w, grad

        x = tf.constant(3.0)
        out = scale(x)
        gx, gw = tf.gradients(out, [x, w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([out, gx, gw])
        assert seen == [w]
    np.testing.assert_allclose(got, [6.0, 10.0, 7.0])


def test_assert_rank_in_checks_an_unknown_rank_when_run():
    p = tf.placeholder(tf.float32)
    check = tf.assert_rank_in(p, [1, 2])
    with tf.control_dependencies([check]):
        out = tf.identity(p)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out, {p: [1.0, 2.0]}), [1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out, {p: 3.0})


def test_gradient_override_attribute_serializes():
    g = tf.Graph()
    with g.as_default():
        with g.gradient_override_map({"Square": "Identity"}):
            y = tf.square(tf.constant(2.0))
    assert y.op.attrs["_gradient_op_type"] == "Identity"
    g2 = import_graph_def(graph_to_plain(g))
    assert g2.get_operation_by_name(y.op.name).attrs["_gradient_op_type"] == "Identity"


# -- sparse names (tensorfleet/ops/sparse_ops.py) --------------------------------------------

SP_IDX = [[0, 0], [0, 2], [1, 1], [2, 3]]
SP_VAL = [-7.0, 4.0, 3.0, -2.0]


def _sp():
    return tf.SparseTensor(SP_IDX, SP_VAL, [4, 5])


def _dense(idx, val, shape):
    d = np.zeros(shape)
    for i, v in zip(idx, val):
        d[tuple(i)] = v
    return d


def test_sparse_reduce_max_ignores_implicit_zeros():
    got = _run(tf.sparse_reduce_max(_sp()), tf.sparse_reduce_max(_sp(), 0),
               tf.sparse_reduce_max(_sp(), 1, keepdims=True), tf.sparse.reduce_max(_sp(), [0, 1]))
    assert got[0] == 4.0 and got[3] == 4.0
    np.testing.assert_array_equal(got[1], [-7.0, 3.0, 4.0, -2.0, 0.0])
    np.testing.assert_array_equal(got[2], [[4.0], [3.0], [-2.0], [0.0]])


def test_sparse_softmax_over_stored_entries_with_gradient():
    sp = tf.SparseTensor([[0, 0], [0, 2], [0, 4], [2, 1]], [1.0, 2.0, 0.5, 3.0], [3, 5])
    (out,) = _run(tf.sparse_softmax(sp))
    e = np.exp([1.0, 2.0, 0.5])
    np.testing.assert_allclose(out.values, list(e / e.sum()) + [1.0], rtol=1e-6)
    np.testing.assert_array_equal(out.indices, [[0, 0], [0, 2], [0, 4], [2, 1]])
    w = np.array([1.0, -2.0, 0.5, 4.0])
    check_gradients(lambda v: tf.sparse_softmax(
        tf.SparseTensor([[0, 0], [0, 2], [0, 4], [2, 1]], v, [3, 5])).values * w,
        [np.array([1.0, 2.0, 0.5, 3.0])])


def test_sparse_maximum_and_minimum_over_the_union():
    sp2 = tf.SparseTensor([[0, 0], [1, 2], [3, 4]], [5.0, -1.0, 2.0], [4, 5])
    mx, mn = _run(tf.sparse_maximum(_sp(), sp2), tf.sparse.minimum(_sp(), sp2))
    da, db = _dense(SP_IDX, SP_VAL, (4, 5)), _dense([[0, 0], [1, 2], [3, 4]], [5, -1, 2], (4, 5))
    union = [[0, 0], [0, 2], [1, 1], [1, 2], [2, 3], [3, 4]]
    for got, fn in ((mx, np.maximum), (mn, np.minimum)):
        np.testing.assert_array_equal(got.indices, union)
        np.testing.assert_array_equal(got.values, [fn(da, db)[tuple(i)] for i in union])
        np.testing.assert_array_equal(got.dense_shape, [4, 5])
    with pytest.raises(TypeError):
        tf.sparse_maximum(_sp(), tf.SparseTensor([[0, 0]], [1], [4, 5]))


def test_sparse_reshape_transpose_and_reset_shape():
    rs, rs2, tr, rz, rz2 = _run(tf.sparse_reshape(_sp(), [2, -1]), tf.sparse.reshape(_sp(), [20]),
                                tf.sparse_transpose(_sp()), tf.sparse_reset_shape(_sp()),
                                tf.sparse_reset_shape(_sp(), [5, 6]))
    dense = _dense(SP_IDX, SP_VAL, (4, 5))
    np.testing.assert_array_equal(_dense(rs.indices, rs.values, rs.dense_shape),
                                  dense.reshape(2, 10))
    np.testing.assert_array_equal(rs2.indices[:, 0], [0, 2, 6, 13])
    np.testing.assert_array_equal(tr.indices, [[0, 0], [1, 1], [2, 0], [3, 2]])
    np.testing.assert_array_equal(_dense(tr.indices, tr.values, tr.dense_shape), dense.T)
    np.testing.assert_array_equal(rz.dense_shape, [3, 4])
    np.testing.assert_array_equal(rz2.dense_shape, [5, 6])
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(tf.sparse_reshape(_sp(), [3, 3]).values)
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(tf.sparse_reset_shape(_sp(), [3, 6]).values)


def test_sparse_slice_and_split():
    sl, s0, s1 = _run(tf.sparse_slice(_sp(), [0, 1], [3, 3]),
                      *tf.sparse_split(sp_input=_sp(), num_split=2, axis=1))
    dense = _dense(SP_IDX, SP_VAL, (4, 5))
    np.testing.assert_array_equal(sl.dense_shape, [3, 3])
    np.testing.assert_array_equal(_dense(sl.indices, sl.values, (3, 3)), dense[0:3, 1:4])
    np.testing.assert_array_equal(s0.dense_shape, [4, 3])
    np.testing.assert_array_equal(s1.dense_shape, [4, 2])
    np.testing.assert_array_equal(_dense(s0.indices, s0.values, (4, 3)), dense[:, :3])
    np.testing.assert_array_equal(_dense(s1.indices, s1.values, (4, 2)), dense[:, 3:])
    parts = _run(*tf.sparse.split(sp_input=_sp(), num_split=3, axis=0))
    assert [p.dense_shape.tolist() for p in parts] == [[2, 5], [1, 5], [1, 5]]
    with pytest.raises(ValueError):
        tf.sparse_split(_sp(), 2, 1)


def test_sparse_to_indicator_and_sparse_matmul():
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([3, 1, 4], tf.int64), [3, 2])
    ind, mm = _run(tf.sparse_to_indicator(ids, 5),
                   tf.sparse_matmul([[1.0, 2.0]], [[3.0], [4.0]], b_is_sparse=True))
    want = np.zeros((3, 5), bool)
    want[0, [1, 3]] = True
    want[2, 4] = True
    np.testing.assert_array_equal(ind, want)
    np.testing.assert_allclose(mm, [[11.0]])


def test_convert_to_tensor_or_sparse_tensor_and_indexed_slices():
    sp = tf.SparseTensor([[0, 1]], [2.0], [2, 3])
    assert tf.convert_to_tensor_or_sparse_tensor(sp) is sp
    fromv = tf.convert_to_tensor_or_sparse_tensor(tf.SparseTensorValue([[1, 0]], [5], [2, 2]))
    assert isinstance(fromv, tf.SparseTensor) and fromv.dtype == tf.int32
    t = tf.convert_to_tensor_or_sparse_tensor([1.0, 2.0], dtype=tf.float64)
    assert t.dtype == tf.float64
    with pytest.raises(ValueError):
        tf.convert_to_tensor_or_sparse_tensor(sp, dtype=tf.int32)
    sl = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([3]), tf.constant([5, 2]))
    assert tf.convert_to_tensor_or_indexed_slices(sl) is sl
    with pytest.raises(ValueError):
        tf.convert_to_tensor_or_indexed_slices(sl, dtype=tf.int64)
    (v,) = _run(tf.convert_to_tensor_or_indexed_slices(np.arange(3)))
    np.testing.assert_array_equal(v, [0, 1, 2])


# -- assorted names (array_ops, control_flow_ops, scatter_ops, check_ops, print_ops) ---------

def test_batch_gather_matches_per_batch_take():
    p = np.arange(48).reshape(2, 2, 3, 4)
    idx = np.array([[[2, 0], [1, 1]], [[0, 0], [2, 1]]])
    out = tf.batch_gather(p, idx)
    assert out.shape.as_list() == [2, 2, 2, 4]
    got, flat = _run(out, tf.batch_gather([10, 20, 30], [2, 0]))
    want = np.stack([np.stack([p[a, b][idx[a, b]] for b in range(2)]) for a in range(2)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(flat, [30, 10])
    check_gradients(lambda v: tf.batch_gather(v, [[1, 1], [0, 2]]),
                    [np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])])


def test_bitcast_between_widths():
    got = _run(tf.bitcast(tf.constant([1.0, -2.5], tf.float32), tf.uint8),
               tf.bitcast(tf.constant([[0, 0, 128, 63]], tf.uint8), tf.float32),
               tf.bitcast(tf.constant([1.5], tf.float64), tf.int32))
    np.testing.assert_array_equal(got[0], np.array([1.0, -2.5], np.float32).view(np.uint8)
                                  .reshape(2, 4))
    np.testing.assert_array_equal(got[1], [1.0])
    np.testing.assert_array_equal(got[2], np.array([1.5]).view(np.int32).reshape(1, 2))
    assert tf.bitcast(tf.constant([1.5], tf.float64), tf.int32).shape.as_list() == [1, 2]
    with pytest.raises(ValueError):
        tf.bitcast(tf.constant([[1, 2, 3]], tf.uint8), tf.float32)


def test_timestamp_and_guarantee_const():
    before = time.time()
    stamp, same = _run(tf.timestamp(), tf.guarantee_const([1, 2]))
    assert before <= stamp <= time.time() and stamp.dtype == np.float64
    np.testing.assert_array_equal(same, [1, 2])


def test_switch_case_runs_the_indexed_branch():
    i = tf.placeholder(tf.int32, [])
    r = tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20),
                           lambda: tf.constant(30)])
    r2 = tf.switch_case(i, {1: lambda: tf.constant(2), 0: lambda: tf.constant(1)},
                        default=lambda: tf.constant(-1))
    with tf.Session() as sess:
        assert [int(sess.run(r, {i: k})) for k in (0, 1, 2, 5, -1)] == [10, 20, 30, 30, 30]
        assert [int(sess.run(r2, {i: k})) for k in (0, 1, 2)] == [1, 2, -1]
    with pytest.raises(ValueError):
        tf.switch_case(i, {0: lambda: 1, 2: lambda: 2})


def test_required_space_to_batch_paddings_and_scatter_names():
    (pads, crops), (pads2, crops2), upd = _run(
        tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 1]]),
        tf.required_space_to_batch_paddings([5, 7], [2, 3]),
        tf.tensor_scatter_nd_update([1, 2, 3], [[1]], [9]))
    np.testing.assert_array_equal(pads, [[1, 0], [0, 2]])
    np.testing.assert_array_equal(crops, [[0, 0], [0, 1]])
    np.testing.assert_array_equal(pads2, [[0, 1], [0, 2]])
    np.testing.assert_array_equal(crops2, [[0, 1], [0, 2]])
    np.testing.assert_array_equal(upd, [1, 9, 3])
    assert tf.tensor_scatter_nd_add is tf.tensor_scatter_add


def test_assert_proper_iterable():
    tf.assert_proper_iterable([1, 2])
    tf.assert_proper_iterable((tf.constant(1),))
    for bad in (tf.constant([1]), np.array([1]), "ab", b"ab", 3):
        with pytest.raises(TypeError):
            tf.assert_proper_iterable(bad)


def test_random_get_seed_is_tf_get_seed():
    assert tf.random.get_seed is tf.get_seed


# -- tf.losses.mean_pairwise_squared_error (tensorfleet/ops/losses_pairwise_ops.py) ------------------

def _np_pairwise(labels, preds, weights):
    """Per example with n present elements (non-zero broadcast weight): the mean over the
    pairs of ((p_i - p_j) - (l_i - l_j))^2 when every element is present, else TF 1.x's
    closed form 2 sum(d^2) / (n - 1) - 2 sum(d)^2 / (n (n - 1)) over all elements; times
    the example's weights (summed in their own shape), summed over examples."""
    w_full = np.broadcast_to(weights, preds.shape).reshape(len(preds), -1)
    w = np.asarray(weights, dtype=float)
    d = (preds - labels).reshape(len(preds), -1)
    m = d.shape[1]
    total = 0.0
    for k in range(len(preds)):
        n = int((w_full[k] != 0).sum())
        if n < 2:
            continue
        if n == m:
            pairs = [(d[k, i] - d[k, j]) ** 2 for i in range(m) for j in range(i + 1, m)]
            value = np.mean(pairs)
        else:
            value = 2 * (d[k] ** 2).sum() / (n - 1) - 2 * d[k].sum() ** 2 / (n * (n - 1))
        total += value * (w if w.ndim == 0 else w.reshape(len(preds), -1)[k].sum())
    return total


def test_mean_pairwise_squared_error_matches_the_pair_average():
    rs = np.random.RandomState(0)
    lab, pred = rs.randn(3, 4), rs.randn(3, 4)
    l3, p3 = rs.randn(2, 3, 2), rs.randn(2, 3, 2)
    per_row = np.array([[1.0], [0.0], [2.0]])
    per_elem = np.array([[1.0, 0.0, 1.0, 1.0], [1, 1, 1, 1], [0, 0, 0, 1.0]])
    with tf.Graph().as_default():
        outs = [tf.losses.mean_pairwise_squared_error(lab, pred),
                tf.losses.mean_pairwise_squared_error(lab, pred, weights=2.0),
                tf.losses.mean_pairwise_squared_error(lab, pred, weights=per_row),
                tf.losses.mean_pairwise_squared_error(lab, pred, weights=per_elem),
                tf.losses.mean_pairwise_squared_error(l3, p3),
                tf.losses.mean_pairwise_squared_error(lab, pred, weights=0.0)]
        assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == 6
        assert outs[0].name == "mean_pairwise_squared_error/value_2:0"
        with pytest.raises(ValueError):
            tf.losses.mean_pairwise_squared_error(lab, pred, weights=[1.0, 0.0, 2.0])
        with tf.Session() as sess:
            got = sess.run(outs)
    want = [_np_pairwise(lab, pred, 1.0), 2 * _np_pairwise(lab, pred, 1.0),
            _np_pairwise(lab, pred, per_row), _np_pairwise(lab, pred, per_elem),
            _np_pairwise(l3, p3, 1.0), 0.0]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    check_gradients(lambda v: tf.losses.mean_pairwise_squared_error(lab, v, loss_collection=None),
                    [pred])


# -- tf.saved_model.main_op, contains_saved_model, get_tensor_from_tensor_info -----------------

def test_saved_model_main_op_and_contains_saved_model(tmp_path):
    export_dir = str(tmp_path / "export")
    assert not tf.saved_model.contains_saved_model(export_dir)
    with tf.Graph().as_default():
        v = tf.Variable(3.0, name="v")
        counter = tf.get_local_variable("counter", [], initializer=tf.constant_initializer(5.0))
        out = tf.identity(v * counter, name="out")
        op = tf.saved_model.main_op.main_op()
        assert op.type == "NoOp" and len(op.control_inputs) == 3
        with tf.Session() as sess:
            sess.run(op)
            assert sess.run(out) == 15.0
            builder = tf.saved_model.Builder(export_dir)
            builder.add_meta_graph_and_variables(
                sess, [tf.saved_model.SERVING], main_op=tf.saved_model.main_op.main_op())
            builder.save()
        info = tf.saved_model.utils.build_tensor_info(out)
    assert tf.saved_model.contains_saved_model(export_dir)
    with tf.Graph().as_default() as g:
        with tf.Session() as sess:
            tf.saved_model.load(sess, [tf.saved_model.SERVING], export_dir)
            t = tf.saved_model.get_tensor_from_tensor_info(info)
            assert t is g.get_tensor_by_name("out:0")
            assert sess.run(t) == 15.0
    with pytest.raises(TypeError):
        tf.saved_model.utils.get_tensor_from_tensor_info("out:0")


def test_main_op_with_restore_runs_after_main_op():
    with tf.Graph().as_default() as g:
        tf.Variable(1.0)
        saver = tf.train.Saver()
        restore = g.get_operation_by_name(saver.as_saver_def().restore_op_name)
        op = tf.saved_model.main_op_with_restore(restore)
        assert restore in op.control_inputs
        assert any(c.type == "NoOp" and c is not restore for c in op.control_inputs)
        with pytest.raises(TypeError):
            tf.saved_model.main_op_with_restore("save/restore_all")
