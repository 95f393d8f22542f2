"""Distributed family: synchronous replicas with the Supervisor (pre-Monitored style)."""
import math
import sys
import tempfile
import time

import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("ps_hosts", "localhost:2222", "Comma-separated list of hostname:port pairs")
flags.DEFINE_string("worker_hosts", "localhost:2223,localhost:2224", "worker hosts")
flags.DEFINE_string("job_name", None, "job name: worker or ps")
flags.DEFINE_integer("task_index", None, "Worker task index")
flags.DEFINE_integer("hidden_units", 100, "Number of units in the hidden layer")
flags.DEFINE_integer("train_steps", 200, "Number of (global) training steps")
flags.DEFINE_integer("batch_size", 100, "Training batch size")
flags.DEFINE_float("learning_rate", 0.01, "Learning rate")
flags.DEFINE_boolean("sync_replicas", False, "Use the sync_replicas mode")
flags.DEFINE_integer("replicas_to_aggregate", None, "Number of replicas to aggregate")
FLAGS = flags.FLAGS
IMAGE_PIXELS = 28


def main(unused_argv):
    ps_spec = FLAGS.ps_hosts.split(",")
    worker_spec = FLAGS.worker_hosts.split(",")
    num_workers = len(worker_spec)
    cluster = tf.train.ClusterSpec({"ps": ps_spec, "worker": worker_spec})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
    is_chief = (FLAGS.task_index == 0)
    worker_device = "/job:worker/task:%d/cpu:0" % FLAGS.task_index
    with tf.device(tf.train.replica_device_setter(worker_device=worker_device,
                                                  ps_device="/job:ps/cpu:0", cluster=cluster)):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        hid_w = tf.Variable(tf.truncated_normal([IMAGE_PIXELS * IMAGE_PIXELS, FLAGS.hidden_units],
                                                stddev=1.0 / IMAGE_PIXELS), name="hid_w")
        hid_b = tf.Variable(tf.zeros([FLAGS.hidden_units]), name="hid_b")
        sm_w = tf.Variable(tf.truncated_normal([FLAGS.hidden_units, 10],
                                               stddev=1.0 / math.sqrt(FLAGS.hidden_units)),
                           name="sm_w")
        sm_b = tf.Variable(tf.zeros([10]), name="sm_b")
        x = tf.placeholder(tf.float32, [None, IMAGE_PIXELS * IMAGE_PIXELS])
        y_ = tf.placeholder(tf.float32, [None, 10])
        hid = tf.nn.relu(tf.nn.xw_plus_b(x, hid_w, hid_b))
        y = tf.nn.softmax(tf.nn.xw_plus_b(hid, sm_w, sm_b))
        cross_entropy = -tf.reduce_sum(y_ * tf.log(tf.clip_by_value(y, 1e-10, 1.0)))
        opt = tf.train.AdamOptimizer(FLAGS.learning_rate)
        if FLAGS.sync_replicas:
            replicas_to_aggregate = FLAGS.replicas_to_aggregate or num_workers
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=replicas_to_aggregate,
                                                 total_num_replicas=num_workers,
                                                 name="mnist_sync_replicas")
        train_step = opt.minimize(cross_entropy, global_step=global_step)
        if FLAGS.sync_replicas:
            local_init_op = opt.local_step_init_op
            if is_chief:
                local_init_op = opt.chief_init_op
            ready_for_local_init_op = opt.ready_for_local_init_op
            chief_queue_runner = opt.get_chief_queue_runner()
            sync_init_op = opt.get_init_tokens_op()
        init_op = tf.global_variables_initializer()
        train_dir = tempfile.mkdtemp()
        if FLAGS.sync_replicas:
            sv = tf.train.Supervisor(is_chief=is_chief, logdir=train_dir, init_op=init_op,
                                     local_init_op=local_init_op,
                                     ready_for_local_init_op=ready_for_local_init_op,
                                     recovery_wait_secs=1, global_step=global_step)
        else:
            sv = tf.train.Supervisor(is_chief=is_chief, logdir=train_dir, init_op=init_op,
                                     recovery_wait_secs=1, global_step=global_step)
        sess_config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False,
                                     device_filters=["/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
        sess = sv.prepare_or_wait_for_session(server.target, config=sess_config)
        if FLAGS.sync_replicas and is_chief:
            sess.run(sync_init_op)
            sv.start_queue_runners(sess, [chief_queue_runner])
        time_begin = time.time()
        local_step = 0
        while True:
            batch_xs = np.random.rand(FLAGS.batch_size, IMAGE_PIXELS * IMAGE_PIXELS)
            batch_ys = np.eye(10)[np.random.randint(0, 10, FLAGS.batch_size)]
            _, step = sess.run([train_step, global_step], feed_dict={x: batch_xs, y_: batch_ys})
            local_step += 1
            if step >= FLAGS.train_steps:
                break
        print("Training elapsed time: %f s" % (time.time() - time_begin))


if __name__ == "__main__":
    tf.app.run()
