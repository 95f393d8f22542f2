"""The seed's two-task computation: y1 = x - 8 on task 0, y2 = x + 1 on task 1, z = y1 * y2.

Start both servers (examples/seed_server.py) first; prints -18.
"""

import argparse

import tensorfleet as tf

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--hosts", default="localhost:2222,localhost:2223")
parser.add_argument("--target_task", type=int, default=1, help="which task's master to use")
args = parser.parse_args()
hosts = args.hosts.split(",")

cluster = tf.train.ClusterSpec({"local": hosts})
x = tf.constant(5)
with tf.device("/job:local/task:0"):
    y1 = x - 8
with tf.device("/job:local/task:1"):
    y2 = x + 1
z = y1 * y2

with tf.Session("grpc://" + hosts[args.target_task]) as sess:
    result = sess.run(z)
    print(result)
