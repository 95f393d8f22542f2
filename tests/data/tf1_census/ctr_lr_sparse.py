"""CTR family: logistic regression on libsvm-style sparse ids, partitioned weights."""
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_integer("num_features", 1000000, "hash space")
flags.DEFINE_integer("batch_size", 512, "batch size")
FLAGS = flags.FLAGS


def parse_line(line):
    parts = tf.string_split([line], " ")
    label = tf.string_to_number(parts.values[0], out_type=tf.float32)
    kv = tf.string_split(parts.values[1:], ":")
    ids = tf.string_to_number(tf.reshape(kv.values, [-1, 2])[:, 0], out_type=tf.int64)
    vals = tf.string_to_number(tf.reshape(kv.values, [-1, 2])[:, 1], out_type=tf.float32)
    return ids, vals, label


def build(ids, vals, labels):
    with tf.variable_scope("lr", partitioner=tf.min_max_variable_partitioner(
            max_partitions=4, min_slice_size=64 << 10)):
        w = tf.get_variable("w", [FLAGS.num_features, 1],
                            initializer=tf.random_normal_initializer(stddev=0.01))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    sp_ids = tf.SparseTensor(indices=ids.indices, values=ids.values, dense_shape=ids.dense_shape)
    sp_vals = tf.SparseTensor(indices=vals.indices, values=vals.values,
                              dense_shape=vals.dense_shape)
    logits = tf.nn.embedding_lookup_sparse(w, sp_ids, sp_vals, combiner="sum") + b
    logits = tf.reshape(logits, [-1])
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    auc, auc_update = tf.metrics.auc(labels, tf.sigmoid(logits), num_thresholds=1000)
    opt = tf.train.FtrlOptimizer(0.05, l1_regularization_strength=0.001,
                                 l2_regularization_strength=0.001)
    train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return loss, train_op, auc_update


def main(_):
    ids = tf.sparse_placeholder(tf.int64)
    vals = tf.sparse_placeholder(tf.float32)
    labels = tf.placeholder(tf.float32, [None])
    loss, train_op, auc_update = build(ids, vals, labels)
    init = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
    with tf.Session() as sess:
        sess.run(init)
        saver = tf.train.Saver(max_to_keep=2, sharded=True)
        saver.save(sess, "/tmp/lr/model.ckpt", global_step=tf.train.get_global_step())


if __name__ == "__main__":
    tf.app.run()
