"""The seed's map-reduce mean: a 100-value placeholder split over two tasks.

Start both servers (examples/seed_server.py) first; prints the mean and numpy's.
"""

import argparse

import numpy as np

import tensorfleet as tf

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--hosts", default="localhost:2222,localhost:2223")
args = parser.parse_args()
hosts = args.hosts.split(",")

x = tf.placeholder(tf.float32, 100)
with tf.device("/job:local/task:1"):
    first_batch = tf.slice(x, [0], [50])
    mean1 = tf.reduce_mean(first_batch)
with tf.device("/job:local/task:0"):
    second_batch = tf.slice(x, [50], [-1])
    mean2 = tf.reduce_mean(second_batch)
    mean = (mean1 + mean2) / 2

data = np.random.random(100)
with tf.Session("grpc://" + hosts[0]) as sess:
    result = sess.run(mean, feed_dict={x: data})
    print(result)
    print("numpy:", np.mean(data.astype(np.float32)))
