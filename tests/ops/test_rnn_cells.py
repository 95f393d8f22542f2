"""RNN cells: values against numpy, gradients numerically, variable names as TensorFlow's."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.ops import rnn_cell_impl, rnn_ops
from tensorfleet.testing.gradient_checker import check_gradients

rc = tf.nn.rnn_cell
RNG = np.random.RandomState(7)


def sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def rand(*shape, scale=0.5):
    return RNG.uniform(-scale, scale, shape)


def weight_getter(weights):
    """A custom getter handing out the given tensors by the name's ending."""
    def getter(inner, name, *args, **kwargs):
        for suffix, value in weights.items():
            if name.endswith(suffix):
                return value
        raise AssertionError(f"unexpected variable {name}")
    return getter


def run_cell(make_cell, x, state, weights):
    """One step of a cell with constant weights; returns (output, new_state) as numpy."""
    with tf.Graph().as_default():
        consts = {k: tf.constant(v) for k, v in weights.items()}
        with tf.variable_scope("s", custom_getter=weight_getter(consts)):
            cell = make_cell()
            st = rnn_cell_impl.map_structure(tf.constant, state)
            out, new = cell(tf.constant(x), st)
        with tf.Session() as sess:
            return sess.run([out, new])


# -- numpy references -------------------------------------------------------------------

def np_basic_rnn(x, h, w, b):
    return np.tanh(np.concatenate([x, h], 1) @ w + b)


def np_gru(x, h, gw, gb, cw, cb):
    rz = sig(np.concatenate([x, h], 1) @ gw + gb)
    n = h.shape[1]
    r, u = rz[:, :n], rz[:, n:]
    c = np.tanh(np.concatenate([x, r * h], 1) @ cw + cb)
    return u * h + (1 - u) * c


def np_lstm(x, c, h, w, b, forget_bias=1.0, peep=None, cell_clip=None, proj=None,
            proj_clip=None):
    z = np.concatenate([x, h], 1) @ w + b
    n = c.shape[1]
    i, j, f, o = z[:, :n], z[:, n:2 * n], z[:, 2 * n:3 * n], z[:, 3 * n:]
    if peep is not None:
        wf, wi, wo = peep
        f = f + wf * c
        i = i + wi * c
    new_c = sig(f + forget_bias) * c + sig(i) * np.tanh(j)
    if cell_clip is not None:
        new_c = np.clip(new_c, -cell_clip, cell_clip)
    if peep is not None:
        o = o + wo * new_c
    m = sig(o) * np.tanh(new_c)
    if proj is not None:
        m = m @ proj
        if proj_clip is not None:
            m = np.clip(m, -proj_clip, proj_clip)
    return new_c, m


# -- values ------------------------------------------------------------------------------

def test_basic_rnn_cell_matches_numpy():
    x, h = rand(2, 3), rand(2, 4)
    w, b = rand(7, 4), rand(4)
    out, new = run_cell(lambda: rc.BasicRNNCell(4), x, h, {"kernel": w, "bias": b})
    np.testing.assert_allclose(out, np_basic_rnn(x, h, w, b), rtol=1e-10)
    np.testing.assert_allclose(new, out)


def test_gru_cell_matches_numpy():
    x, h = rand(2, 3), rand(2, 4)
    ws = {"gates/kernel": rand(7, 8), "gates/bias": rand(8),
          "candidate/kernel": rand(7, 4), "candidate/bias": rand(4)}
    out, new = run_cell(lambda: rc.GRUCell(4), x, h, ws)
    want = np_gru(x, h, ws["gates/kernel"], ws["gates/bias"], ws["candidate/kernel"],
                  ws["candidate/bias"])
    np.testing.assert_allclose(out, want, rtol=1e-10)
    np.testing.assert_allclose(new, want, rtol=1e-10)


@pytest.mark.parametrize("forget_bias", [1.0, 0.0, 0.5])
def test_basic_lstm_cell_matches_numpy(forget_bias):
    x, c, h = rand(2, 3), rand(2, 4), rand(2, 4)
    w, b = rand(7, 16), rand(16)
    out, (nc, nh) = run_cell(lambda: rc.BasicLSTMCell(4, forget_bias=forget_bias), x,
                             rc.LSTMStateTuple(c, h), {"kernel": w, "bias": b})
    wc, wh = np_lstm(x, c, h, w, b, forget_bias)
    np.testing.assert_allclose(nc, wc, rtol=1e-10)
    np.testing.assert_allclose(nh, wh, rtol=1e-10)
    np.testing.assert_allclose(out, wh, rtol=1e-10)


def test_basic_lstm_cell_concatenated_state():
    x, c, h = rand(2, 3), rand(2, 4), rand(2, 4)
    w, b = rand(7, 16), rand(16)
    out, new = run_cell(lambda: rc.BasicLSTMCell(4, state_is_tuple=False), x,
                        np.concatenate([c, h], 1), {"kernel": w, "bias": b})
    wc, wh = np_lstm(x, c, h, w, b)
    np.testing.assert_allclose(new, np.concatenate([wc, wh], 1), rtol=1e-10)
    np.testing.assert_allclose(out, wh, rtol=1e-10)


def test_lstm_cell_peepholes_clip_projection_match_numpy():
    x, c, m = rand(2, 3), rand(2, 4, scale=2), rand(2, 2)
    ws = {"lstm_cell/kernel": rand(5, 16, scale=2), "lstm_cell/bias": rand(16),
          "w_f_diag": rand(4), "w_i_diag": rand(4), "w_o_diag": rand(4),
          "projection/kernel": rand(4, 2, scale=3)}
    make = lambda: rc.LSTMCell(4, use_peepholes=True, cell_clip=0.3, num_proj=2,  # noqa: E731
                               proj_clip=0.2, forget_bias=0.5)
    out, (nc, nm) = run_cell(make, x, rc.LSTMStateTuple(c, m), ws)
    wc, wm = np_lstm(x, c, m, ws["lstm_cell/kernel"], ws["lstm_cell/bias"], 0.5,
                     peep=(ws["w_f_diag"], ws["w_i_diag"], ws["w_o_diag"]), cell_clip=0.3,
                     proj=ws["projection/kernel"], proj_clip=0.2)
    np.testing.assert_allclose(nc, wc, rtol=1e-10)
    np.testing.assert_allclose(nm, wm, rtol=1e-10)
    assert np.abs(nc).max() <= 0.3 + 1e-12 and np.abs(nm).max() <= 0.2 + 1e-12
    np.testing.assert_allclose(out, wm)


def test_multi_rnn_cell_stacks_layers():
    x = rand(2, 3)
    s0, s1 = rand(2, 4), (rand(2, 5), rand(2, 5))
    ws = {"cell_0/basic_rnn_cell/kernel": rand(7, 4), "cell_0/basic_rnn_cell/bias": rand(4),
          "cell_1/basic_lstm_cell/kernel": rand(9, 20), "cell_1/basic_lstm_cell/bias": rand(20)}
    make = lambda: rc.MultiRNNCell([rc.BasicRNNCell(4), rc.BasicLSTMCell(5)])  # noqa: E731
    out, (n0, (n1c, n1h)) = run_cell(make, x, (s0, rc.LSTMStateTuple(*s1)), ws)
    h0 = np_basic_rnn(x, s0, ws["cell_0/basic_rnn_cell/kernel"], ws["cell_0/basic_rnn_cell/bias"])
    c1, h1 = np_lstm(h0, s1[0], s1[1], ws["cell_1/basic_lstm_cell/kernel"],
                     ws["cell_1/basic_lstm_cell/bias"])
    np.testing.assert_allclose(n0, h0, rtol=1e-10)
    np.testing.assert_allclose(n1c, c1, rtol=1e-10)
    np.testing.assert_allclose(out, h1, rtol=1e-10)


def test_state_and_output_sizes_and_zero_state():
    assert rc.BasicLSTMCell(4).state_size == (4, 4)
    assert rc.LSTMCell(4, num_proj=2).state_size == rc.LSTMStateTuple(4, 2)
    assert rc.LSTMCell(4, num_proj=2).output_size == 2
    assert rc.LSTMCell(4, num_proj=2, state_is_tuple=False).state_size == 6
    multi = rc.MultiRNNCell([rc.ResidualWrapper(rc.BasicRNNCell(4)),
                             rc.DropoutWrapper(rc.LSTMCell(4), output_keep_prob=0.5),
                             rc.DeviceWrapper(rc.GRUCell(4), "/cpu:0")])
    assert multi.state_size == (4, rc.LSTMStateTuple(4, 4), 4)
    assert multi.output_size == 4
    batch = tf.placeholder(tf.int32, [])
    z = multi.zero_state(batch, tf.float64)
    assert isinstance(z[1], rc.LSTMStateTuple)
    assert z[1].c.shape.as_list() == [None, 4]
    with tf.Session() as sess:
        vals = sess.run(z, {batch: 3})
    assert vals[0].shape == (3, 4) and vals[1].h.shape == (3, 4)
    assert vals[0].dtype == np.float64 and not np.any(vals[1].c)
    flat = rc.MultiRNNCell([rc.BasicRNNCell(2), rc.GRUCell(3)], state_is_tuple=False)
    assert flat.state_size == 5
    assert flat.zero_state(2, tf.float32).shape.as_list() == [2, 5]


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="state_is_tuple"):
        rc.MultiRNNCell([rc.BasicLSTMCell(2)], state_is_tuple=False)
    with pytest.raises(ValueError, match="at least one cell"):
        rc.MultiRNNCell([])
    with pytest.raises(ValueError, match="between 0 and 1"):
        rc.DropoutWrapper(rc.GRUCell(2), output_keep_prob=1.5)
    with pytest.raises(ValueError, match="variational_recurrent"):
        rc.DropoutWrapper(rc.GRUCell(2), variational_recurrent=True)
    with pytest.raises(TypeError, match="not a RNNCell"):
        rc.DropoutWrapper("cell")
    with pytest.raises(ValueError, match="proj_clip needs num_proj"):
        rc.LSTMCell(3, proj_clip=1.0)
    cell = rc.GRUCell(2)
    with pytest.raises(ValueError, match="shape\\[-1\\]"):
        cell(tf.placeholder(tf.float32, [2, None]), tf.zeros([2, 2]))
    with pytest.raises(TypeError, match="floating point"):
        rc.BasicRNNCell(2)(tf.zeros([2, 2], tf.int32), tf.zeros([2, 2]))


# -- wrappers ----------------------------------------------------------------------------

def test_residual_wrapper_adds_inputs():
    x, h = rand(2, 4), rand(2, 4)
    w, b = rand(8, 4), rand(4)
    out, new = run_cell(lambda: rc.ResidualWrapper(rc.BasicRNNCell(4)), x, h,
                        {"kernel": w, "bias": b})
    np.testing.assert_allclose(out, x + np_basic_rnn(x, h, w, b), rtol=1e-10)
    np.testing.assert_allclose(new, np_basic_rnn(x, h, w, b), rtol=1e-10)


def test_dropout_wrapper_keeps_lstm_c_and_scales_kept_values():
    cell = rc.DropoutWrapper(rc.BasicLSTMCell(50), input_keep_prob=0.5,
                             output_keep_prob=0.5, state_keep_prob=0.5, seed=3)
    x = tf.ones([40, 8])
    st = cell.zero_state(40, tf.float32)
    out, (c, h) = cell(x, st)
    ident = rc.DropoutWrapper(rc.GRUCell(3))
    y, _ = ident(x, ident.zero_state(40, tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, cv, hv = sess.run([out, c, h])
    # Output and h are dropped (about half zeros); c never is.
    assert 0.3 < np.mean(o == 0) < 0.7 and 0.3 < np.mean(hv == 0) < 0.7
    assert np.mean(cv == 0) < 0.05
    assert y.op.type != "Dropout"  # keep_prob 1.0 adds no op


def test_dropout_wrapper_keep_prob_placeholder():
    kp = tf.placeholder(tf.float32, [])
    cell = rc.DropoutWrapper(rc.BasicRNNCell(20), output_keep_prob=kp)
    out, _ = cell(tf.ones([10, 3]), tf.zeros([10, 20]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        full = sess.run(out, {kp: 1.0})
        half = sess.run(out, {kp: 0.5})
    assert np.all(full != 0)
    kept = half != 0
    np.testing.assert_allclose(half[kept], 2 * full[kept], rtol=1e-5)


def test_device_wrapper_places_ops():
    cell = rc.DeviceWrapper(rc.BasicRNNCell(2), "/job:worker/task:1")
    out, _ = cell(tf.ones([1, 2]), tf.zeros([1, 2]))
    assert "/job:worker/task:1" in out.op.device or "task:1" in out.op.device


# -- variable names (TensorFlow 1.x's, recorded from its reference build) --------------------

def names():
    return [v.op.name for v in tf.global_variables()]


def test_variable_names_direct_calls():
    i = tf.zeros([2, 4])
    c1, c2 = rc.BasicLSTMCell(6), rc.BasicLSTMCell(6)
    s = c1.zero_state(2, tf.float32)
    c1(i, s)
    c1(i, s)   # a second call shares the variables
    c2(i, s)
    c3 = rc.GRUCell(3)
    c3(i, c3.zero_state(2, tf.float32), scope="myscope")
    with tf.variable_scope("outer"):
        c4 = rc.BasicRNNCell(3)
        c4(i, c4.zero_state(2, tf.float32))
    c5 = rc.BasicRNNCell(3, name="named")
    c5(i, c5.zero_state(2, tf.float32))
    assert names() == [
        "basic_lstm_cell/kernel", "basic_lstm_cell/bias",
        "basic_lstm_cell_1/kernel", "basic_lstm_cell_1/bias",
        "myscope/gates/kernel", "myscope/gates/bias",
        "myscope/candidate/kernel", "myscope/candidate/bias",
        "outer/basic_rnn_cell/kernel", "outer/basic_rnn_cell/bias",
        "named/kernel", "named/bias"]
    assert [v.op.name for v in c1.trainable_variables] == ["basic_lstm_cell/kernel",
                                                           "basic_lstm_cell/bias"]
    assert c1.variables[0].shape.as_list() == [10, 24]


def test_variable_names_in_dynamic_rnn():
    x = tf.placeholder(tf.float32, [3, 5, 4])
    cell = rc.MultiRNNCell([rc.BasicLSTMCell(6) for _ in range(2)])
    tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    tf.nn.dynamic_rnn(rc.LSTMCell(6, use_peepholes=True, num_proj=3), x, dtype=tf.float32,
                      scope="proj")
    wrapped = rc.MultiRNNCell([rc.ResidualWrapper(rc.BasicRNNCell(4)),
                               rc.DropoutWrapper(rc.LSTMCell(4), output_keep_prob=0.5),
                               rc.DeviceWrapper(rc.GRUCell(4), "/cpu:0")])
    tf.nn.dynamic_rnn(wrapped, x, dtype=tf.float32, scope="enc")
    got = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
    assert got == {
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel": [10, 24],
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias": [24],
        "rnn/multi_rnn_cell/cell_1/basic_lstm_cell/kernel": [12, 24],
        "rnn/multi_rnn_cell/cell_1/basic_lstm_cell/bias": [24],
        "proj/lstm_cell/kernel": [7, 24],
        "proj/lstm_cell/bias": [24],
        "proj/lstm_cell/w_f_diag": [6],
        "proj/lstm_cell/w_i_diag": [6],
        "proj/lstm_cell/w_o_diag": [6],
        "proj/lstm_cell/projection/kernel": [6, 3],
        "enc/multi_rnn_cell/cell_0/basic_rnn_cell/kernel": [8, 4],
        "enc/multi_rnn_cell/cell_0/basic_rnn_cell/bias": [4],
        "enc/multi_rnn_cell/cell_1/lstm_cell/kernel": [8, 16],
        "enc/multi_rnn_cell/cell_1/lstm_cell/bias": [16],
        "enc/multi_rnn_cell/cell_2/gru_cell/gates/kernel": [8, 8],
        "enc/multi_rnn_cell/cell_2/gru_cell/gates/bias": [8],
        "enc/multi_rnn_cell/cell_2/gru_cell/candidate/kernel": [8, 4],
        "enc/multi_rnn_cell/cell_2/gru_cell/candidate/bias": [4]}


def test_variable_names_bidirectional_and_static():
    x = tf.placeholder(tf.float32, [3, 5, 4])
    tf.nn.bidirectional_dynamic_rnn(rc.GRUCell(6), rc.GRUCell(6), x, dtype=tf.float32)
    tf.nn.static_rnn(rc.BasicRNNCell(6), tf.unstack(x, axis=1), dtype=tf.float32)
    assert names() == [
        "bidirectional_rnn/fw/gru_cell/gates/kernel", "bidirectional_rnn/fw/gru_cell/gates/bias",
        "bidirectional_rnn/fw/gru_cell/candidate/kernel",
        "bidirectional_rnn/fw/gru_cell/candidate/bias",
        "bidirectional_rnn/bw/gru_cell/gates/kernel", "bidirectional_rnn/bw/gru_cell/gates/bias",
        "bidirectional_rnn/bw/gru_cell/candidate/kernel",
        "bidirectional_rnn/bw/gru_cell/candidate/bias",
        "rnn/basic_rnn_cell/kernel", "rnn/basic_rnn_cell/bias"]


def test_gru_bias_initializers_and_reuse_flag():
    cell = rc.GRUCell(3)
    cell(tf.zeros([1, 2]), tf.zeros([1, 3]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gb, cb = sess.run([v for v in tf.global_variables() if v.op.name.endswith("bias")])
    np.testing.assert_array_equal(gb, np.ones(6))
    np.testing.assert_array_equal(cb, np.zeros(3))
    shared = rc.GRUCell(3, reuse=True, name="gru_cell")
    shared(tf.zeros([1, 2]), tf.zeros([1, 3]))
    assert len(tf.global_variables()) == 4
    with pytest.raises(ValueError, match="does not exist"):
        rc.GRUCell(3, reuse=True, name="nope")(tf.zeros([1, 2]), tf.zeros([1, 3]))


# -- gradients -----------------------------------------------------------------------------

def grad_check(make_cell, state_fn, n_state, weight_names, inputs):
    """check_gradients over (x, state parts..., weights...) of one cell step."""
    def build(x, *rest):
        states, ws = rest[:n_state], rest[n_state:]
        getter = weight_getter(dict(zip(weight_names, ws)))
        with tf.variable_scope("g", custom_getter=getter):
            out, new = make_cell()(x, state_fn(*states))
        parts = [out] + rnn_cell_impl.flatten(new)
        return tf.concat([tf.reshape(p, [-1]) for p in parts], 0)
    check_gradients(build, inputs, delta=1e-6, rtol=1e-5, atol=1e-7)


def test_basic_rnn_cell_gradients():
    grad_check(lambda: rc.BasicRNNCell(3), lambda h: h, 1, ["kernel", "bias"],
               [rand(2, 2), rand(2, 3), rand(5, 3), rand(3)])


def test_gru_cell_gradients():
    grad_check(lambda: rc.GRUCell(3), lambda h: h, 1,
               ["gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias"],
               [rand(2, 2), rand(2, 3), rand(5, 6), rand(6), rand(5, 3), rand(3)])


def test_basic_lstm_cell_gradients_fused():
    grad_check(lambda: rc.BasicLSTMCell(3, forget_bias=0.7), rc.LSTMStateTuple, 2,
               ["kernel", "bias"],
               [rand(2, 2), rand(2, 3), rand(2, 3), rand(5, 12, scale=1.0), rand(12)])


def test_lstm_cell_peephole_projection_gradients():
    grad_check(lambda: rc.LSTMCell(3, use_peepholes=True, num_proj=2, cell_clip=5.0),
               rc.LSTMStateTuple, 2,
               ["lstm_cell/kernel", "lstm_cell/bias", "w_f_diag", "w_i_diag", "w_o_diag",
                "projection/kernel"],
               [rand(2, 2), rand(2, 3), rand(2, 2), rand(4, 12, scale=1.0), rand(12),
                rand(3), rand(3), rand(3), rand(3, 2)])


def test_multi_cell_with_residual_gradients():
    make = lambda: rc.MultiRNNCell([rc.ResidualWrapper(rc.GRUCell(2)),  # noqa: E731
                                    rc.BasicLSTMCell(2)])
    grad_check(make, lambda a, c, h: (a, rc.LSTMStateTuple(c, h)), 3,
               ["gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias",
                "basic_lstm_cell/kernel", "basic_lstm_cell/bias"],
               [rand(2, 2), rand(2, 2), rand(2, 2), rand(2, 2), rand(4, 4), rand(4),
                rand(4, 2), rand(2), rand(4, 8), rand(8)])


# -- the fused LSTM op --------------------------------------------------------------------

def test_fused_lstm_equals_unfused_math_and_gradients():
    vals = [rand(3, 4), rand(3, 5, scale=2), rand(3, 5), rand(9, 20, scale=1.5), rand(20)]
    phs = [tf.placeholder(tf.float64, v.shape) for v in vals]
    c1, h1, gates = rnn_ops.fused_lstm_cell(*phs, forget_bias=0.3)
    c2, h2 = rnn_cell_impl._lstm_math(phs[0], phs[1], phs[2], phs[3], phs[4], 0.3, tf.tanh)
    loss1 = tf.reduce_sum(c1 * 1.3 + h1 * 0.7)
    loss2 = tf.reduce_sum(c2 * 1.3 + h2 * 0.7)
    g1, g2 = tf.gradients(loss1, phs), tf.gradients(loss2, phs)
    with tf.Session() as sess:
        feed = dict(zip(phs, vals))
        r1, r2, gv = sess.run([[c1, h1] + g1, [c2, h2] + g2, gates], feed)
    for a, b in zip(r1, r2):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert [g.op.type for g in g1] == ["FusedLSTMCellGrad"] * 5
    # The saved gates are the activated i, j, f, o.
    z = np.concatenate([vals[0], vals[2]], 1) @ vals[3] + vals[4]
    np.testing.assert_allclose(gv[:, 5:10], np.tanh(z[:, 5:10]), rtol=1e-12)
    np.testing.assert_allclose(gv[:, 10:15], sig(z[:, 10:15] + 0.3), rtol=1e-12)


def test_fused_lstm_gradients_numerically():
    def build(x, c, h, w, b):
        nc, nh, _ = rnn_ops.fused_lstm_cell(x, c, h, w, b, forget_bias=1.0)
        return tf.concat([nc, nh], 1)
    check_gradients(build, [rand(2, 3), rand(2, 4), rand(2, 4), rand(7, 16, scale=1.0),
                            rand(16)], delta=1e-6, rtol=1e-5, atol=1e-7)


def test_fused_lstm_float32_and_bad_shapes():
    x = tf.placeholder(tf.float32, [2, 3])
    c = tf.placeholder(tf.float32, [2, 4])
    w = tf.placeholder(tf.float32, [6, 16])
    nc, nh, _ = rnn_ops.fused_lstm_cell(x, c, c, w, tf.zeros([16]))
    assert nc.shape.as_list() == [2, 4] and nc.dtype == tf.float32
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="LSTM step"):
            sess.run(nh, {x: np.zeros((2, 3)), c: np.zeros((2, 4)), w: np.zeros((6, 16))})
    with pytest.raises(TypeError, match="dtype"):
        rnn_ops.fused_lstm_cell(x, c, c, tf.zeros([7, 16], tf.float64), tf.zeros([16]))


def test_cell_dtype_and_trainable_arguments():
    cell = rc.GRUCell(2, dtype=tf.float64, trainable=False)
    cell(tf.zeros([1, 3], tf.float64), tf.zeros([1, 2], tf.float64))
    assert {v.dtype.base_dtype for v in cell.variables} == {tf.float64}
    assert tf.trainable_variables() == [] and len(tf.global_variables()) == 4
    with pytest.raises(TypeError):
        rc.BasicRNNCell(2, dtype=tf.float64)(tf.zeros([1, 3]), tf.zeros([1, 2]))
