"""The seed's two-task computation as one program for every task, started by one command:

    tensorfleet launch --ps 1 --workers 1 examples/launch_seed_zcalc.py

y1 = x - 8 runs on the ps, y2 = x + 1 on the worker, and the worker prints
z = y1 * y2 = -18. Each task reads its role from the seed's flags, which
``tensorfleet launch`` appends (--ps_hosts, --worker_hosts, --job_name,
--task_index); the ps returns once the worker is done, so the launch ends.
"""

import argparse
import time

import tensorfleet as tf

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ps_hosts", default="localhost:2222")
parser.add_argument("--worker_hosts", default="localhost:2223")
parser.add_argument("--job_name", default="worker")
parser.add_argument("--task_index", type=int, default=0)
args, _ = parser.parse_known_args()

cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","),
                                "worker": args.worker_hosts.split(",")})
server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_index)

if args.job_name == "ps":
    tf.train.join_until_workers_done(server)  # instead of server.join(): returns at the end
else:
    x = tf.constant(5)
    with tf.device("/job:ps/task:0"):
        y1 = x - 8
    with tf.device("/job:worker/task:%d" % args.task_index):
        y2 = x + 1
    z = y1 * y2
    with tf.Session(server.target) as sess:
        for attempt in range(300):  # the ps starts at the same time as we do
            try:
                print(sess.run(z))
                break
            except tf.errors.UnavailableError:
                time.sleep(0.1)
    tf.train.signal_workers_done(server.target, cluster, worker_index=args.task_index)
