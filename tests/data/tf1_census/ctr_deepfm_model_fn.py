"""CTR family: a DeepFM-style custom model_fn over hashed sparse ids and TFRecords."""
import tensorflow as tf

FLAGS = tf.flags.FLAGS
tf.flags.DEFINE_integer("feature_size", 117581, "Number of features")
tf.flags.DEFINE_integer("field_size", 39, "Number of fields")
tf.flags.DEFINE_integer("embedding_size", 32, "Embedding size")
tf.flags.DEFINE_string("deep_layers", "256,128,64", "deep layers")
tf.flags.DEFINE_float("l2_reg", 0.0001, "L2 regularization")


def input_fn(filenames, batch_size=32, num_epochs=1, perform_shuffle=False):
    def decode(serialized):
        features = {"label": tf.FixedLenFeature([], tf.float32),
                    "feat_ids": tf.FixedLenFeature([FLAGS.field_size], tf.int64),
                    "feat_vals": tf.FixedLenFeature([FLAGS.field_size], tf.float32)}
        parsed = tf.parse_single_example(serialized, features)
        label = parsed.pop("label")
        return parsed, label

    dataset = tf.data.TFRecordDataset(filenames).map(decode, num_parallel_calls=4).prefetch(500)
    if perform_shuffle:
        dataset = dataset.shuffle(buffer_size=256)
    dataset = dataset.repeat(num_epochs).batch(batch_size)
    iterator = dataset.make_one_shot_iterator()
    batch_features, batch_labels = iterator.get_next()
    return batch_features, batch_labels


def model_fn(features, labels, mode, params):
    field_size = params["field_size"]
    feature_size = params["feature_size"]
    embedding_size = params["embedding_size"]
    layers = list(map(int, params["deep_layers"].split(",")))
    FM_B = tf.get_variable(name="fm_bias", shape=[1], initializer=tf.constant_initializer(0.0))
    FM_W = tf.get_variable(name="fm_w", shape=[feature_size],
                           initializer=tf.glorot_normal_initializer())
    FM_V = tf.get_variable(name="fm_v", shape=[feature_size, embedding_size],
                           initializer=tf.glorot_normal_initializer())
    feat_ids = tf.reshape(features["feat_ids"], shape=[-1, field_size])
    feat_vals = tf.reshape(features["feat_vals"], shape=[-1, field_size])
    with tf.variable_scope("First-order"):
        feat_wgts = tf.nn.embedding_lookup(FM_W, feat_ids)
        y_w = tf.reduce_sum(tf.multiply(feat_wgts, feat_vals), 1)
    with tf.variable_scope("Second-order"):
        embeddings = tf.nn.embedding_lookup(FM_V, feat_ids)
        embeddings = tf.multiply(embeddings, tf.reshape(feat_vals, shape=[-1, field_size, 1]))
        sum_square = tf.square(tf.reduce_sum(embeddings, 1))
        square_sum = tf.reduce_sum(tf.square(embeddings), 1)
        y_v = 0.5 * tf.reduce_sum(tf.subtract(sum_square, square_sum), 1)
    with tf.variable_scope("Deep-part"):
        deep_inputs = tf.reshape(embeddings, shape=[-1, field_size * embedding_size])
        for i, units in enumerate(layers):
            deep_inputs = tf.contrib.layers.fully_connected(
                inputs=deep_inputs, num_outputs=units,
                weights_regularizer=tf.contrib.layers.l2_regularizer(params["l2_reg"]),
                scope="mlp%d" % i)
            if mode == tf.estimator.ModeKeys.TRAIN:
                deep_inputs = tf.nn.dropout(deep_inputs, keep_prob=0.5)
        y_deep = tf.contrib.layers.fully_connected(inputs=deep_inputs, num_outputs=1,
                                                   activation_fn=tf.identity, scope="deep_out")
        y_d = tf.reshape(y_deep, shape=[-1])
    y_bias = FM_B * tf.ones_like(y_d, dtype=tf.float32)
    y = y_bias + y_w + y_v + y_d
    pred = tf.sigmoid(y)
    predictions = {"prob": pred}
    export_outputs = {tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                      tf.estimator.export.PredictOutput(predictions)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions,
                                          export_outputs=export_outputs)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=labels)) + \
        params["l2_reg"] * tf.nn.l2_loss(FM_W) + params["l2_reg"] * tf.nn.l2_loss(FM_V)
    eval_metric_ops = {"auc": tf.metrics.auc(labels, pred)}
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                          eval_metric_ops=eval_metric_ops)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                      train_op=train_op)


def main(_):
    params = {"field_size": FLAGS.field_size, "feature_size": FLAGS.feature_size,
              "embedding_size": FLAGS.embedding_size, "deep_layers": FLAGS.deep_layers,
              "l2_reg": FLAGS.l2_reg}
    config = tf.estimator.RunConfig().replace(session_config=tf.ConfigProto(
        device_count={"GPU": 0, "CPU": 4}), log_step_count_steps=100, save_summary_steps=100)
    deepfm = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/deepfm", params=params,
                                    config=config)
    deepfm.train(input_fn=lambda: input_fn(["tr.tfrecords"], num_epochs=1, batch_size=256))
    for prob in deepfm.predict(input_fn=lambda: input_fn(["te.tfrecords"], num_epochs=1)):
        print(prob["prob"])


if __name__ == "__main__":
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run()
