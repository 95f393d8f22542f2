"""tf.keras.estimator.model_to_estimator (warm-started from the Keras weights, trains,
evaluates, predicts) and tf.keras.mixed_precision.LossScaleOptimizer (scaled loss,
unscaled gradients, skipped non-finite steps, dynamic scale)."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def test_model_to_estimator_starts_from_keras_weights_and_trains(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.randn(64, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-1.0], [2.0]], np.float32)
    inp = keras.Input(shape=(3,), name="x")
    out = keras.layers.Dense(1, name="out")(keras.layers.Dense(4, name="hidden")(inp))
    model = keras.Model(inp, out)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    want = model.predict(x[:4])
    est = keras.estimator.model_to_estimator(keras_model=model, model_dir=str(tmp_path))

    def input_fn(repeat=True):
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(16)
        return ds.repeat() if repeat else ds
    preds = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(
        {"x": x[:4]}).batch(4)))
    np.testing.assert_allclose(np.stack([p["out"] for p in preds]), want, rtol=1e-5)
    before = est.evaluate(lambda: input_fn(False))
    est.train(input_fn, steps=40)
    after = est.evaluate(lambda: input_fn(False))
    assert after["loss"] < before["loss"] and "mae" in after
    with pytest.raises(ValueError, match="exactly one"):
        keras.estimator.model_to_estimator()


def _loss_and_var():
    v = tf.Variable([1.0, -2.0])
    return v, tf.reduce_sum(v * v)


def test_loss_scale_optimizer_scales_and_unscales():
    v, loss = _loss_and_var()
    opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1), dynamic=False,
                                                   initial_scale=128.0)
    scaled = opt.get_scaled_loss(loss)
    (g, _), = opt.compute_gradients(loss, var_list=[v])
    step = opt.minimize(loss, var_list=[v])
    sess = K.get_session()
    sess.run(tf.variables_initializer([v] + opt.variables()))
    assert sess.run(scaled) == pytest.approx(128 * 5.0)
    np.testing.assert_allclose(sess.run(g), [2.0, -4.0], rtol=1e-6)
    sess.run(step)
    np.testing.assert_allclose(sess.run(v), [0.8, -1.6], rtol=1e-6)
    with pytest.raises(ValueError, match="initial_scale"):
        keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(), dynamic=False)


def test_dynamic_loss_scale_skips_bad_steps_and_grows():
    v = tf.Variable([1.0, 2.0])
    bad = tf.placeholder(tf.bool, [])
    loss = tf.reduce_sum(v * v) * tf.where(bad, np.inf, 1.0)
    opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1),
                                                   initial_scale=8.0, dynamic_growth_steps=2)
    step = opt.minimize(loss, var_list=[v])
    sess = K.get_session()
    sess.run(tf.variables_initializer([v] + opt.variables()))
    sess.run(step, {bad: True})
    np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])  # skipped
    assert sess.run(opt.loss_scale) == 4.0
    sess.run(step, {bad: False})
    sess.run(step, {bad: False})
    assert sess.run(opt.loss_scale) == 8.0
    np.testing.assert_allclose(sess.run(v), [0.64, 1.28], rtol=1e-5)


def test_export_archive_writes_a_servable_saved_model(tmp_path):
    rng = np.random.RandomState(1)
    model = keras.Sequential([keras.layers.Dense(2, activation="relu", input_shape=(3,)),
                              keras.layers.Dense(1)])
    x = rng.randn(5, 3).astype(np.float32)
    want = model.predict(x)
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model, input_signature=[keras.Input(shape=(3,))])
    path = str(tmp_path / "exported")
    archive.write_out(path)
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def["serve"]
        inp = sess.graph.get_tensor_by_name(sig.inputs["input_0"].name)
        out = sess.graph.get_tensor_by_name(sig.outputs["output_0"].name)
        np.testing.assert_allclose(sess.run(out, {inp: x}), want, rtol=1e-6)
    with pytest.raises(ValueError, match="track"):
        keras.export.ExportArchive().add_endpoint("f", model, [keras.Input(shape=(3,))])
