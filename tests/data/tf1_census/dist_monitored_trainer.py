"""Distributed family: between-graph replication with MonitoredTrainingSession and hooks."""
import argparse
import sys

import numpy as np
import tensorflow as tf

FLAGS = None


def main(_):
    ps_hosts = FLAGS.ps_hosts.split(",")
    worker_hosts = FLAGS.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
    elif FLAGS.job_name == "worker":
        with tf.device(tf.train.replica_device_setter(
                worker_device="/job:worker/task:%d" % FLAGS.task_index, cluster=cluster,
                ps_strategy=tf.contrib.training.GreedyLoadBalancingStrategy(
                    len(ps_hosts), tf.contrib.training.byte_size_load_fn))):
            x = tf.placeholder(tf.float32, [None, 10])
            y = tf.placeholder(tf.float32, [None, 1])
            hidden = tf.layers.dense(x, 32, activation=tf.nn.relu,
                                     kernel_initializer=tf.glorot_uniform_initializer())
            pred = tf.layers.dense(hidden, 1)
            loss = tf.losses.mean_squared_error(y, pred)
            global_step = tf.train.get_or_create_global_step()
            train_op = tf.train.AdagradOptimizer(0.01).minimize(loss, global_step=global_step)
            tf.summary.scalar("loss", loss)
        hooks = [tf.train.StopAtStepHook(last_step=1000),
                 tf.train.LoggingTensorHook({"loss": loss, "step": global_step}, every_n_iter=100),
                 tf.train.NanTensorHook(loss)]
        config = tf.ConfigProto(allow_soft_placement=True,
                                gpu_options=tf.GPUOptions(allow_growth=True))
        with tf.train.MonitoredTrainingSession(master=server.target,
                                               is_chief=(FLAGS.task_index == 0),
                                               checkpoint_dir="/tmp/train_logs",
                                               hooks=hooks, config=config,
                                               save_summaries_steps=100) as mon_sess:
            while not mon_sess.should_stop():
                bx = np.random.randn(64, 10).astype(np.float32)
                by = bx.sum(axis=1, keepdims=True)
                mon_sess.run(train_op, feed_dict={x: bx, y: by})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.register("type", "bool", lambda v: v.lower() == "true")
    parser.add_argument("--ps_hosts", type=str, default="")
    parser.add_argument("--worker_hosts", type=str, default="")
    parser.add_argument("--job_name", type=str, default="")
    parser.add_argument("--task_index", type=int, default=0)
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
