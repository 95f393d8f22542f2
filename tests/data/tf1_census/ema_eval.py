"""Training-utilities family: evaluate with exponential-moving-average shadow variables."""
import math
import time

import numpy as np
import tensorflow as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string('checkpoint_dir', '/tmp/cifar10_train', "Directory with checkpoints")
tf.app.flags.DEFINE_integer('eval_interval_secs', 60 * 5, "How often to run the eval.")
tf.app.flags.DEFINE_boolean('run_once', True, "Whether to run eval only once.")


def eval_once(saver, summary_writer, top_k_op, summary_op):
    with tf.Session() as sess:
        ckpt = tf.train.get_checkpoint_state(FLAGS.checkpoint_dir)
        if ckpt and ckpt.model_checkpoint_path:
            saver.restore(sess, ckpt.model_checkpoint_path)
            global_step = ckpt.model_checkpoint_path.split('/')[-1].split('-')[-1]
        else:
            print('No checkpoint file found')
            return
        coord = tf.train.Coordinator()
        threads = []
        for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))
        predictions = sess.run([top_k_op])
        precision = np.sum(predictions) / 128.0
        summary = tf.Summary()
        summary.ParseFromString(sess.run(summary_op))
        summary.value.add(tag='Precision @ 1', simple_value=precision)
        summary_writer.add_summary(summary, global_step)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)


def evaluate():
    with tf.Graph().as_default() as g:
        images = tf.random_uniform([128, 24, 24, 3])
        labels = tf.random_uniform([128], maxval=10, dtype=tf.int32)
        w = tf.get_variable("w", [24 * 24 * 3, 10])
        logits = tf.matmul(tf.reshape(images, [128, -1]), w)
        top_k_op = tf.nn.in_top_k(logits, labels, 1)
        variable_averages = tf.train.ExponentialMovingAverage(0.9999)
        variables_to_restore = variable_averages.variables_to_restore()
        saver = tf.train.Saver(variables_to_restore)
        summary_op = tf.summary.merge_all()
        summary_writer = tf.summary.FileWriter('/tmp/cifar10_eval', g)
        while True:
            eval_once(saver, summary_writer, top_k_op, summary_op)
            if FLAGS.run_once:
                break
            time.sleep(FLAGS.eval_interval_secs)


def main(argv=None):
    if tf.gfile.Exists('/tmp/cifar10_eval'):
        tf.gfile.DeleteRecursively('/tmp/cifar10_eval')
    tf.gfile.MakeDirs('/tmp/cifar10_eval')
    evaluate()


if __name__ == '__main__':
    tf.app.run()
