"""word2vec family: skip-gram with sampled softmax, embedding sharded over parameter servers."""
import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("ps_hosts", "", "ps hosts")
flags.DEFINE_string("worker_hosts", "", "worker hosts")
flags.DEFINE_string("job_name", "", "ps or worker")
flags.DEFINE_integer("task_index", 0, "task index")
flags.DEFINE_integer("vocab_size", 100000, "vocabulary size")
flags.DEFINE_integer("emb_dim", 200, "embedding size")
FLAGS = flags.FLAGS


def main(_):
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","),
                                    "worker": FLAGS.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return
    num_ps = cluster.num_tasks("ps")
    with tf.device(tf.train.replica_device_setter(cluster=cluster,
                                                  worker_device="/job:worker/task:%d" %
                                                  FLAGS.task_index)):
        examples = tf.placeholder(tf.int64, [None])
        labels = tf.placeholder(tf.int64, [None, 1])
        emb = tf.get_variable("emb", [FLAGS.vocab_size, FLAGS.emb_dim],
                              partitioner=tf.fixed_size_partitioner(num_ps),
                              initializer=tf.random_uniform_initializer(-0.5, 0.5))
        sm_w = tf.get_variable("sm_w", [FLAGS.vocab_size, FLAGS.emb_dim],
                               partitioner=tf.fixed_size_partitioner(num_ps),
                               initializer=tf.zeros_initializer())
        sm_b = tf.get_variable("sm_b", [FLAGS.vocab_size], initializer=tf.zeros_initializer())
        example_emb = tf.nn.embedding_lookup(emb, examples, partition_strategy="div")
        sampled = tf.nn.fixed_unigram_candidate_sampler(
            true_classes=labels, num_true=1, num_sampled=100, unique=True,
            range_max=FLAGS.vocab_size, distortion=0.75, unigrams=[1] * FLAGS.vocab_size)
        loss = tf.reduce_mean(tf.nn.sampled_softmax_loss(
            weights=sm_w, biases=sm_b, labels=labels, inputs=example_emb, num_sampled=100,
            num_classes=FLAGS.vocab_size, sampled_values=sampled, partition_strategy="div"))
        global_step = tf.train.get_or_create_global_step()
        lr = tf.train.polynomial_decay(0.2, global_step, 100000, 0.0001)
        train_op = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=global_step)
    scaffold = tf.train.Scaffold(saver=tf.train.Saver(sharded=True, max_to_keep=3))
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=FLAGS.task_index == 0,
                                           scaffold=scaffold, checkpoint_dir="/tmp/w2v",
                                           hooks=[tf.train.StopAtStepHook(num_steps=10000)]) as s:
        while not s.should_stop():
            s.run(train_op, {examples: np.random.randint(0, FLAGS.vocab_size, 256),
                             labels: np.random.randint(0, FLAGS.vocab_size, (256, 1))})


if __name__ == "__main__":
    tf.app.run()
