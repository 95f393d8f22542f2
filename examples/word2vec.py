"""Skip-gram word2vec with noise-contrastive estimation, its embedding split over 2 ps.

A plain TensorFlow 1.x program in the style of the seed's trainer: with
``import tensorflow as tf`` instead of the first import it runs under TensorFlow.
The corpus is synthetic, with planted co-occurrences: words come in small topic
groups (animals, colours, ...), each sentence mixes the words of one topic with
frequent filler words, so after training each topic word's nearest neighbour (by
cosine similarity) should be another word of its topic.

The embedding and the NCE weights are created with
``partitioner=tf.fixed_size_partitioner(2)`` under ``tf.train.replica_device_setter``,
so with two parameter servers each holds half of the rows:

    tensorfleet launch --ps 2 --workers 2 examples/word2vec.py --train_steps 1500

Without cluster flags it trains in this process (the shards then live here):

    python examples/word2vec.py --train_steps 1500
"""

import argparse
import json
import sys

import numpy as np

import tensorfleet as tf

FLAGS = None

FILLERS = ["the", "a", "and", "of", "to", "in", "is", "it"]
TOPICS = [
    ["cat", "dog", "horse", "cow"],
    ["red", "green", "blue", "yellow"],
    ["one", "two", "three", "four"],
    ["paris", "london", "berlin", "rome"],
    ["apple", "pear", "plum", "cherry"],
    ["run", "walk", "jump", "swim"],
    ["piano", "violin", "guitar", "drum"],
    ["monday", "tuesday", "friday", "sunday"],
]


def build_corpus(num_sentences: int, seed: int):
    """Vocabulary (fillers first: they are the most frequent, as the log-uniform
    sampler assumes), word ids of the corpus, and each topic word's group index."""
    vocab = FILLERS + [w for topic in TOPICS for w in topic]
    index = {w: i for i, w in enumerate(vocab)}
    group = {index[w]: g for g, topic in enumerate(TOPICS) for w in topic}
    rng = np.random.RandomState(seed)
    sentences = []
    for _ in range(num_sentences):
        topic = TOPICS[rng.randint(len(TOPICS))]
        words = []
        for _ in range(8):
            words.append(topic[rng.randint(len(topic))] if rng.rand() < 0.6
                         else FILLERS[rng.randint(len(FILLERS))])
        sentences.append([index[w] for w in words])
    return vocab, sentences, group


def skipgram_pairs(sentences, window: int):
    """Every (center, context) pair within ``window`` words, inside one sentence."""
    centers, contexts = [], []
    for s in sentences:
        for i, c in enumerate(s):
            for j in range(max(0, i - window), min(len(s), i + window + 1)):
                if j != i:
                    centers.append(c)
                    contexts.append(s[j])
    return np.array(centers, np.int64), np.array(contexts, np.int64)


def build_model(vocab_size: int):
    """Placeholders, the mean NCE loss, the training op and normalised embeddings."""
    center = tf.placeholder(tf.int64, [None], name="center")
    context = tf.placeholder(tf.int64, [None, 1], name="context")
    partitioner = tf.fixed_size_partitioner(2)
    embeddings = tf.get_variable(
        "embeddings", [vocab_size, FLAGS.embedding_size], partitioner=partitioner,
        initializer=tf.random_uniform_initializer(-1.0, 1.0, seed=FLAGS.seed))
    nce_weights = tf.get_variable(
        "nce_weights", [vocab_size, FLAGS.embedding_size], partitioner=partitioner,
        initializer=tf.truncated_normal_initializer(
            stddev=1.0 / np.sqrt(FLAGS.embedding_size), seed=FLAGS.seed + 1))
    nce_biases = tf.get_variable("nce_biases", [vocab_size],
                                 initializer=tf.zeros_initializer())
    embed = tf.nn.embedding_lookup(embeddings, center)
    loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases,
                                         labels=context, inputs=embed,
                                         num_sampled=FLAGS.num_sampled,
                                         num_classes=vocab_size))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdagradOptimizer(FLAGS.learning_rate).minimize(
        loss, global_step=global_step)
    all_rows = tf.nn.embedding_lookup(embeddings, tf.range(vocab_size, dtype=tf.int64))
    normalized = tf.nn.l2_normalize(all_rows, 1)
    return center, context, loss, train_op, global_step, normalized, embeddings


def nearest_neighbours(normalized: np.ndarray, vocab, group):
    """Each topic word's nearest other word by cosine similarity; the fraction of
    topic words whose nearest neighbour is in their own topic."""
    sim = normalized @ normalized.T
    np.fill_diagonal(sim, -np.inf)
    nearest = np.argsort(-sim, axis=1)[:, :3]
    hits = sum(group.get(int(nearest[i, 0])) == g for i, g in group.items())
    return nearest, hits / len(group)


def train(target: str, is_chief: bool, hooks, task_index: int, num_workers: int,
          device_fn) -> dict:
    vocab, sentences, group = build_corpus(FLAGS.sentences, FLAGS.seed)
    centers, contexts = skipgram_pairs(sentences, FLAGS.window)
    # Each worker trains on its own shard of the pairs.
    centers, contexts = centers[task_index::num_workers], contexts[task_index::num_workers]
    tf.set_random_seed(FLAGS.seed + task_index)
    with tf.device(device_fn):
        center, context, loss, train_op, global_step, normalized, embeddings = build_model(
            len(vocab))
    if is_chief:
        for shard in embeddings:
            print("%s %s on %s" % (shard.name, shard.get_shape().as_list(),
                                   shard.device or "this process"), flush=True)
    hooks = list(hooks) + [tf.train.StopAtStepHook(last_step=FLAGS.train_steps)]
    rng = np.random.RandomState(FLAGS.seed + task_index)
    losses = []
    with tf.train.MonitoredTrainingSession(master=target, is_chief=is_chief, hooks=hooks,
                                           checkpoint_dir=None, save_summaries_steps=None,
                                           log_step_count_steps=0) as sess:
        while not sess.should_stop():
            idx = rng.randint(0, len(centers), FLAGS.batch_size)
            _, step, l = sess.run([train_op, global_step, loss],
                                  feed_dict={center: centers[idx], context: contexts[idx, None]})
            losses.append(l)
            if FLAGS.log_every and len(losses) % FLAGS.log_every == 0:
                print("worker %d: global step %d, loss %.4f" % (task_index, step, l), flush=True)
        emb = sess._tf_sess().run(normalized)
    nearest, accuracy = nearest_neighbours(emb, vocab, group)
    if is_chief:
        for topic in TOPICS:
            w = vocab.index(topic[0])
            print("nearest to %s: %s" % (topic[0], ", ".join(vocab[j] for j in nearest[w])),
                  flush=True)
    k = max(1, min(20, len(losses) // 5))
    return {"worker": task_index, "local_steps": len(losses),
            "first_loss": round(float(np.mean(losses[:k])), 4),
            "last_loss": round(float(np.mean(losses[-k:])), 4),
            "neighbour_accuracy": round(float(accuracy), 4)}


def main(_):
    if not FLAGS.ps_hosts:
        report = train("", True, [], 0, 1, None)
        print("RESULT " + json.dumps(report), flush=True)
        return 0
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","),
                                    "worker": FLAGS.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        tf.train.join_until_workers_done(server)
        return 0
    num_workers = cluster.num_tasks("worker")
    device_fn = tf.train.replica_device_setter(
        worker_device="/job:worker/task:%d" % FLAGS.task_index, cluster=cluster)
    report = train(server.target, FLAGS.task_index == 0, [], FLAGS.task_index, num_workers,
                   device_fn)
    print("RESULT " + json.dumps(report), flush=True)
    tf.train.signal_workers_done(server.target, cluster, FLAGS.task_index)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ps_hosts", type=str, default="")
    parser.add_argument("--worker_hosts", type=str, default="")
    parser.add_argument("--job_name", type=str, default="")
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--train_steps", "--steps", type=int, default=1500,
                        help="last global step")
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--embedding_size", type=int, default=16)
    parser.add_argument("--num_sampled", type=int, default=8)
    parser.add_argument("--window", type=int, default=2)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--learning_rate", type=float, default=0.5)
    parser.add_argument("--log_every", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
