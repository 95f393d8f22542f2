"""The program of docs/kubernetes.md: one script for every task, its role read from
TF_CONFIG (as Kubeflow's TFJob operator, or ``tensorfleet launch``, sets it).

    tensorfleet launch --ps 1 --workers 2 --no-flags examples/tfconfig_trainer.py
    tensorfleet launch --chief --ps 1 --workers 1 --no-flags examples/tfconfig_trainer.py
"""

import argparse

import numpy as np

import tensorfleet as tf

parser = argparse.ArgumentParser()
parser.add_argument("--train_steps", type=int, default=1000, help="last global step")
parser.add_argument("--checkpoint_dir", default="", help="'' writes no checkpoints")
args = parser.parse_args()

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
cluster = resolver.cluster_spec()
job, index = resolver.task_type, resolver.task_id
server = tf.train.Server(cluster, job_name=job, task_index=index)
if job == "ps":
    tf.train.join_until_workers_done(server)  # returns once every worker is done
else:
    # With a Chief replica, chief:0 is the chief; without one, worker 0 is. Exactly
    # one task may initialize the variables: the others wait for it.
    is_chief = job == "chief" or ("chief" not in cluster.jobs and index == 0)
    with tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:{job}/task:{index}", cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    hooks = [tf.train.StopAtStepHook(last_step=args.train_steps)]
    rng = np.random.RandomState(index)
    value = float("nan")  # no step runs when the job is already at its last step
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                           checkpoint_dir=args.checkpoint_dir or None,
                                           hooks=hooks) as sess:
        while not sess.should_stop():
            xs = rng.rand(32, 4).astype(np.float32)
            _, value = sess.run([train_op, loss], {x: xs, y: xs.sum(1, keepdims=True)})
    print(f"{job}:{index} done, loss {value:.4f}", flush=True)
    tf.train.signal_workers_done(server.target, cluster, worker_index=index)
