"""Top-level TensorFlow 1.x ops: tf.fingerprint, tf.extract_volume_patches, tf.conv,
tf.approx_top_k, tf.batch_scatter_update, tf.ragged_fill_empty_rows(_grad) and
tf.IdentityReader; expected values come from TensorFlow 2.21's tf.compat.v1."""

import numpy as np
import pytest

import tensorfleet as tf


def _run(fetches, init=False):
    with tf.Session() as s:
        if init:
            s.run(tf.global_variables_initializer())
        return s.run(fetches)


def test_fingerprint_is_tensorflows_farmhash():
    with tf.Graph().as_default():
        out = _run([tf.fingerprint(tf.constant([[1, 2], [3, 4]], tf.int32)),
                    tf.fingerprint(tf.constant(["ab", "c"])),
                    tf.fingerprint(tf.constant([["ab", "c"], ["d", "ef"]])),
                    tf.fingerprint(tf.constant(np.zeros((2, 0), np.float32)))])
        with pytest.raises(ValueError, match="farmhash64"):
            tf.fingerprint(tf.constant([1]), method="x")
        with pytest.raises(ValueError, match="at least one dimension"):
            tf.fingerprint(tf.constant(3))
    assert out[0].dtype == np.uint8 and out[0].shape == (2, 8)
    assert out[0].tolist() == [[76, 18, 253, 133, 168, 204, 240, 10],
                               [254, 162, 60, 240, 103, 244, 53, 255]]
    assert out[1].tolist() == [[30, 165, 173, 66, 82, 110, 141, 170],
                               [40, 123, 203, 224, 169, 24, 161, 158]]
    assert out[2].tolist() == [[65, 83, 39, 149, 164, 245, 170, 22],
                               [12, 31, 118, 200, 155, 30, 123, 79]]
    assert out[3].tolist() == [[79, 64, 144, 47, 59, 106, 225, 154]] * 2


def test_extract_volume_patches_values_and_gradient():
    x = np.arange(2 * 3 * 4 * 3 * 2, dtype=np.float32).reshape(2, 3, 4, 3, 2)
    with tf.Graph().as_default():
        xt = tf.constant(x)
        same = tf.extract_volume_patches(xt, [1, 2, 3, 2, 1], [1, 2, 1, 2, 1], "SAME")
        valid = tf.extract_volume_patches(xt, [1, 2, 3, 2, 1], [1, 2, 1, 2, 1], "VALID")
        g = tf.gradients(tf.reduce_sum(valid), xt)[0]
        s, v, gv = _run([same, valid, g])
        with pytest.raises(ValueError, match="ksizes"):
            tf.extract_volume_patches(xt, [1, 2, 2, 1], [1, 1, 1, 1, 1], "SAME")
    assert s.shape == (2, 2, 4, 2, 24) and s.sum() == 25740.0
    assert s.reshape(-1)[:12].tolist() == [0, 0, 0, 0, 0, 1, 2, 3, 6, 7, 8, 9]
    assert v.shape == (2, 1, 2, 1, 24) and v.sum() == 5616.0
    assert v.reshape(-1)[-7:].tolist() == [109, 110, 111, 114, 115, 116, 117]
    # Each input element's gradient counts the VALID patches that read it.
    assert gv.sum() == v.size and gv.max() == 2.0


def test_conv_generic_matches_tensorflow():
    x = np.arange(2 * 5 * 5 * 4, dtype=np.float32).reshape(2, 5, 5, 4) / 50
    w = np.arange(3 * 3 * 4 * 6, dtype=np.float32).reshape(3, 3, 4, 6) / 100
    with tf.Graph().as_default():
        outs = _run([
            tf.conv(x, w, [1, 1, 1, 1], "EXPLICIT", explicit_paddings=[0, 0, 1, 2, 2, 1, 0, 0]),
            tf.conv(x.reshape(1, 2, 5, 5, 4), w, [1, 1, 1, 1], "VALID", batch_dims=2),
            tf.conv(x, w, [1, 2, 2, 1], "SAME"),
            tf.conv(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])])
        with pytest.raises(ValueError, match="groups"):
            tf.conv(x, w[:, :, :2], [1, 1, 1, 1], "VALID", groups=2)
        with pytest.raises(ValueError, match="rank 5"):
            tf.conv(x, w, [1, 1, 1, 1], "VALID", batch_dims=2)
    expect = [((2, 6, 6, 6), 20388.24, 7.9056), ((1, 2, 3, 3, 6), 9119.5, 29.9412),
              ((2, 3, 3, 6), 5035.04, 15.3624), ((2, 5, 5, 6), 13406.68, 17.0192)]
    for y, (shape, total, eighth) in zip(outs, expect):
        assert y.shape == shape
        assert y.sum() == pytest.approx(total, rel=1e-5)
        assert y.reshape(-1)[7] == pytest.approx(eighth, rel=1e-4)


def test_approx_top_k_and_batch_scatter_update():
    with tf.Graph().as_default():
        vals, idx = tf.approx_top_k(tf.constant([[3., 1., 2.], [0., 5., 4.]]), 2)
        mvals, _ = tf.approx_top_k(tf.constant([[3., 1., 2.]]), 1, is_max_k=False)
        v = tf.Variable([[1., 2., 3.], [4., 5., 6.]])
        u = tf.batch_scatter_update(v, [[0], [2]], [[10.], [20.]])
        v3 = tf.Variable(tf.reshape(tf.range(12.), [2, 2, 3]))
        u3 = tf.batch_scatter_update(v3, [[[2, 0]], [[1, 1]]], [[[7., 8.]], [[9., 10.]]])
        v1 = tf.Variable([1., 2., 3.])
        u1 = tf.batch_scatter_update(v1, [2, 0], [7., 8.])
        out = _run([vals, idx, mvals, u, u3, u1], init=True)
    assert out[0].tolist() == [[3., 2.], [5., 4.]] and out[1].tolist() == [[0, 2], [1, 2]]
    assert out[2].tolist() == [[1.]]
    assert out[3].tolist() == [[10., 2., 3.], [4., 5., 20.]]
    assert out[4].tolist() == [[[8., 1., 7.], [3., 4., 5.]], [[6., 10., 8.], [9., 10., 11.]]]
    assert out[5].tolist() == [8., 2., 7.]


def test_ragged_fill_empty_rows_and_its_gradient():
    with tf.Graph().as_default():
        x, d = tf.constant([1., 2., 3., 4.]), tf.constant(9.)
        r = tf.ragged_fill_empty_rows(value_rowids=tf.constant([0, 0, 2, 4], tf.int64),
                                      values=x, nrows=tf.constant(6, tf.int64),
                                      default_value=d)
        g = tf.ragged_fill_empty_rows_grad(reverse_index_map=r.reverse_index_map,
                                           grad_values=tf.range(1., 9.))
        unsorted = tf.ragged_fill_empty_rows([2, 0], [1., 2.], 3, 9.)
        grads = tf.gradients(tf.reduce_sum(r.output_values * tf.range(1., 8.)), [x, d])
        bad = tf.ragged_fill_empty_rows([0, 3], [1., 2.], 2, 9.)
        out = _run([r, g, unsorted, grads])
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
            s.run(bad)
    assert [a.tolist() for a in out[0]] == [[0, 0, 1, 2, 3, 4, 5],
                                            [1., 2., 9., 3., 9., 4., 9.],
                                            [False, True, False, True, False, True],
                                            [0, 1, 3, 5]]
    assert out[1].d_values.tolist() == [1., 2., 4., 6.] and out[1].d_default_value == 23.
    assert [a.tolist() for a in out[2]] == [[0, 1, 2], [2., 9., 1.], [False, True, False],
                                            [2, 0]]
    assert out[3][0].tolist() == [1., 2., 4., 6.] and out[3][1] == 15.


def test_identity_reader_reads_work_items():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(5, tf.string)
        enq, close = q.enqueue_many([["a", "bb", "c"]]), q.close()
        r = tf.IdentityReader()
        k, v = r.read(q)
        ks, vs = r.read_up_to(q, 5)
        with tf.Session() as s:
            s.run([enq, close])
            assert s.run([k, v]) == [b"a", b"a"]
            assert [a.tolist() for a in s.run([ks, vs])] == [[b"bb"], [b"bb"]]
            assert s.run([r.num_records_produced(), r.num_work_units_completed()]) == [2, 2]
            s.run(k)
            with pytest.raises(tf.errors.OutOfRangeError):
                s.run(k)
