"""Starts one task of the seed's two-task ``local`` cluster and serves until killed.

    python examples/seed_server.py --task_index 0   # localhost:2222
    python examples/seed_server.py --task_index 1   # localhost:2223
"""

import argparse

import tensorfleet as tf

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--task_index", type=int, default=0)
parser.add_argument("--hosts", default="localhost:2222,localhost:2223",
                    help="comma-separated host:port of the tasks of job 'local'")
args = parser.parse_args()

cluster = tf.train.ClusterSpec({"local": args.hosts.split(",")})
server = tf.train.Server(cluster, job_name="local", task_index=args.task_index)
print("Starting server #{}".format(args.task_index), flush=True)
server.start()
server.join()
