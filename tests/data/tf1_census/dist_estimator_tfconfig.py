"""Distributed family: an Estimator trained with train_and_evaluate from TF_CONFIG."""
import json
import os

import numpy as np
import tensorflow as tf

tf.logging.set_verbosity(tf.logging.INFO)


def input_fn(mode, batch_size=32):
    x = np.random.randn(1024, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
    if mode == tf.estimator.ModeKeys.TRAIN:
        ds = ds.shuffle(1000).repeat()
    return ds.batch(batch_size)


def main(_):
    tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    tf.logging.info("TF_CONFIG: %s", tf_config)
    run_config = tf.estimator.RunConfig(model_dir="/tmp/est_model", save_checkpoints_steps=200,
                                        keep_checkpoint_max=3, log_step_count_steps=50)
    feature_columns = [tf.feature_column.numeric_column("x", shape=[4])]
    estimator = tf.estimator.DNNClassifier(hidden_units=[16, 8], feature_columns=feature_columns,
                                           n_classes=2, config=run_config,
                                           optimizer=tf.train.ProximalAdagradOptimizer(
                                               learning_rate=0.1, l1_regularization_strength=0.001))
    train_spec = tf.estimator.TrainSpec(input_fn=lambda: input_fn(tf.estimator.ModeKeys.TRAIN),
                                        max_steps=2000)
    exporter = tf.estimator.LatestExporter(
        "exporter", tf.estimator.export.build_parsing_serving_input_receiver_fn(
            tf.feature_column.make_parse_example_spec(feature_columns)))
    eval_spec = tf.estimator.EvalSpec(input_fn=lambda: input_fn(tf.estimator.ModeKeys.EVAL),
                                      steps=20, exporters=[exporter], throttle_secs=30)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)


if __name__ == "__main__":
    tf.app.run()
