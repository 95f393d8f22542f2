"""Wide & deep click-through prediction on Criteo-shaped data, with train_and_evaluate.

The program writes a CSV file shaped like the Criteo display-advertising logs
(a 0/1 label, 13 integer features ``I1..I13``, 26 hashed categorical features
``C1..C26``, missing values left empty), whose clicks depend on a few of the
features, and trains ``tf.estimator.DNNLinearCombinedClassifier`` on it:

* wide part: the 26 categorical columns hashed into buckets, plus two crossed
  columns (``C1 x C2`` and ``C3 x C4``);
* deep part: the 13 numeric columns (log-scaled) and an 8-dimensional embedding
  of each categorical column, into a 256-128-64 network.

On a cluster the embeddings and the linear weights are partitioned over the
parameter servers (``input_layer_partitioner``), each shard on its own ps task.

Locally::

    python examples/wide_deep.py --model_dir /tmp/wide_deep

On a cluster of one chief, two parameter servers, one worker and an evaluator::

    tensorfleet launch --chief --ps 2 --workers 1 --evaluator --no-flags examples/wide_deep.py

Every task writes the same file (deterministically, under ``--data_dir``); the
evaluator prints the final AUC. After the final evaluation the model is exported as a
SavedModel under ``<model_dir>/export/wide_deep/<timestamp>``, fed serialized
``tf.train.Example``s (the classify, regress and predict signatures TensorFlow Serving
serves); TensorFlow's SavedModel loader loads it too. Swap the first import to run it
under TensorFlow.
"""

import tensorfleet as tf

import argparse
import json
import logging
import os
import tempfile

import numpy as np

logger = logging.getLogger("wide_deep")

NUMERIC = [f"I{i}" for i in range(1, 14)]
CATEGORICAL = [f"C{i}" for i in range(1, 27)]
COLUMNS = ["label"] + NUMERIC + CATEGORICAL


def write_criteo_like(path, rows, seed):
    """Writes ``rows`` Criteo-shaped CSV lines to ``path`` (atomically)."""
    rng = np.random.RandomState(seed)
    ints = rng.poisson(lam=rng.uniform(1, 20, size=13), size=(rows, 13))
    vocab = rng.randint(5, 200, size=26)
    cats = rng.zipf(1.5, size=(rows, 26)) % vocab
    # Clicks depend on two integer features, three categories and one pair of categories.
    score = 2.5 * (0.15 * (ints[:, 0] - ints[:, 0].mean())
                   - 0.1 * (ints[:, 1] - ints[:, 1].mean())
                   + 1.5 * (cats[:, 0] == 1) - 1.2 * (cats[:, 5] == 2)
                   + 2.0 * ((cats[:, 2] % 3 == 0) & (cats[:, 3] % 2 == 1)) - 0.8)
    label = (rng.uniform(size=rows) < 1.0 / (1.0 + np.exp(-score))).astype(int)
    missing_int = rng.uniform(size=ints.shape) < 0.05
    missing_cat = rng.uniform(size=cats.shape) < 0.05
    lines = []
    for r in range(rows):
        fields = [str(label[r])]
        fields += ["" if missing_int[r, j] else str(ints[r, j]) for j in range(13)]
        fields += ["" if missing_cat[r, j] else "%08x" % (cats[r, j] * 2654435761 % 2 ** 32)
                   for j in range(26)]
        lines.append(",".join(fields))
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def make_input_fn(path, batch_size, epochs, shuffle, seed):
    """Batches of (features, label) read from the CSV file with TextLineDataset."""
    defaults = [[0]] + [[0.0]] * 13 + [[""]] * 26

    def parse(lines):
        fields = tf.decode_csv(lines, record_defaults=defaults)
        features = dict(zip(COLUMNS, fields))
        return features, features.pop("label")

    def input_fn(config):
        ds = tf.data.TextLineDataset(path)
        if shuffle and config.num_worker_replicas > 1:
            ds = ds.shard(config.num_worker_replicas, config.global_id_in_cluster)
        if shuffle:
            ds = ds.shuffle(10000, seed=seed)
        return ds.repeat(epochs).batch(batch_size).map(parse)

    return input_fn


def feature_columns(hash_buckets, embedding_dim):
    """The wide (linear) and deep (DNN) columns."""
    categorical = [tf.feature_column.categorical_column_with_hash_bucket(k, hash_buckets)
                   for k in CATEGORICAL]
    crossed = [tf.feature_column.crossed_column(["C1", "C2"], 10000),
               tf.feature_column.crossed_column(["C3", "C4"], 10000)]
    numeric = [tf.feature_column.numeric_column(
        k, normalizer_fn=lambda x: tf.log1p(tf.maximum(x, 0.0))) for k in NUMERIC]
    embeddings = [tf.feature_column.embedding_column(c, embedding_dim) for c in categorical]
    return categorical + crossed, numeric + embeddings


def serving_input_receiver_fn(columns):
    """The serving input: a batch of serialized ``tf.train.Example``s of ``columns``."""
    spec = tf.feature_column.make_parse_example_spec(columns)
    return tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model_dir", default=os.path.join(tempfile.gettempdir(), "tensorfleet_examples",
                                                     "wide_deep"))
    parser.add_argument("--data_dir", default="/tmp/wide_deep_data")
    parser.add_argument("--train_rows", type=int, default=20000)
    parser.add_argument("--eval_rows", type=int, default=4000)
    parser.add_argument("--max_steps", type=int, default=400)
    parser.add_argument("--batch_size", type=int, default=256)
    parser.add_argument("--hash_buckets", type=int, default=1000)
    parser.add_argument("--embedding_dim", type=int, default=8)
    parser.add_argument("--hidden_units", default="256,128,64")
    parser.add_argument("--save_checkpoints_steps", type=int, default=100)
    parser.add_argument("--throttle_secs", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--results_file", default="",
                        help="where the evaluator (or a local run) writes its final metrics")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    os.makedirs(args.data_dir, exist_ok=True)
    train_path = os.path.join(args.data_dir, f"train-{args.train_rows}-{args.seed}.csv")
    eval_path = os.path.join(args.data_dir, f"eval-{args.eval_rows}-{args.seed}.csv")
    if not os.path.exists(train_path):
        write_criteo_like(train_path, args.train_rows, args.seed)
    if not os.path.exists(eval_path):
        write_criteo_like(eval_path, args.eval_rows, args.seed + 1)

    wide, deep = feature_columns(args.hash_buckets, args.embedding_dim)
    config = tf.estimator.RunConfig(model_dir=args.model_dir, tf_random_seed=args.seed,
                                    save_checkpoints_steps=args.save_checkpoints_steps,
                                    save_summary_steps=100, log_step_count_steps=100)
    # The ps count of the cluster (the evaluator is outside it, yet must split the
    # variables the same way to read the checkpoints).
    num_ps = len(config.cluster_spec.as_dict().get("ps", [])) if config.cluster_spec else 0
    estimator = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=wide, dnn_feature_columns=deep,
        dnn_hidden_units=[int(u) for u in args.hidden_units.split(",")],
        dnn_optimizer=tf.train.AdagradOptimizer(0.05), config=config,
        # Embeddings and linear weights of more than 16 KiB are split over the ps tasks.
        input_layer_partitioner=tf.min_max_variable_partitioner(
            max_partitions=max(1, num_ps), min_slice_size=16 << 10))
    train_spec = tf.estimator.TrainSpec(
        make_input_fn(train_path, args.batch_size, None, True, args.seed),
        max_steps=args.max_steps)
    eval_spec = tf.estimator.EvalSpec(
        make_input_fn(eval_path, 1000, 1, False, args.seed), steps=None,
        start_delay_secs=0, throttle_secs=args.throttle_secs, max_wait_secs=900,
        exporters=tf.estimator.FinalExporter("wide_deep",
                                             serving_input_receiver_fn(wide + deep)))
    metrics, exports = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    role = f"{config.task_type}:{config.task_id}"
    if metrics is None:
        logger.info("%s finished", role)
        return
    print(f"{role} AUC: {metrics['auc']:.4f} (accuracy {metrics['accuracy']:.4f}, "
          f"average loss {metrics['average_loss']:.4f}, step {metrics['global_step']})",
          flush=True)
    for path in exports or []:
        print(f"{role} exported the model to {os.fsdecode(path)}", flush=True)
    if args.results_file:
        tmp = args.results_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump({k: float(np.asarray(v)) for k, v in metrics.items()}, f)
        os.replace(tmp, args.results_file)


if __name__ == "__main__":
    main()
