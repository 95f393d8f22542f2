"""NLP family: a character-level GRU language model with dynamic_rnn and sampling."""
import numpy as np
import tensorflow as tf


class CharRNN(object):
    def __init__(self, num_classes, batch_size=64, num_steps=50, lstm_size=128, num_layers=2,
                 learning_rate=0.001, grad_clip=5, sampling=False, keep_prob=0.5):
        if sampling:
            batch_size, num_steps = 1, 1
        tf.reset_default_graph()
        self.inputs = tf.placeholder(tf.int32, shape=(batch_size, num_steps), name='inputs')
        self.targets = tf.placeholder(tf.int32, shape=(batch_size, num_steps), name='targets')
        self.keep_prob = tf.placeholder(tf.float32, name='keep_prob')
        x_one_hot = tf.one_hot(self.inputs, num_classes)
        cells = [tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(lstm_size),
                                               output_keep_prob=self.keep_prob)
                 for _ in range(num_layers)]
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        self.initial_state = cell.zero_state(batch_size, tf.float32)
        outputs, state = tf.nn.dynamic_rnn(cell, x_one_hot, initial_state=self.initial_state)
        self.final_state = state
        seq_output = tf.concat(outputs, axis=1)
        x = tf.reshape(seq_output, [-1, lstm_size])
        with tf.variable_scope('softmax'):
            softmax_w = tf.Variable(tf.truncated_normal((lstm_size, num_classes), stddev=0.1))
            softmax_b = tf.Variable(tf.zeros(num_classes))
        self.logits = tf.matmul(x, softmax_w) + softmax_b
        self.prediction = tf.nn.softmax(self.logits, name='predictions')
        self.sample = tf.multinomial(self.logits, 1)
        y_one_hot = tf.one_hot(self.targets, num_classes)
        y_reshaped = tf.reshape(y_one_hot, self.logits.get_shape())
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(logits=self.logits, labels=y_reshaped)
        self.loss = tf.reduce_mean(loss)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(self.loss, tvars), grad_clip)
        self.optimizer = tf.train.AdamOptimizer(learning_rate).apply_gradients(zip(grads, tvars))


if __name__ == '__main__':
    model = CharRNN(65)
    saver = tf.train.Saver(max_to_keep=100)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        new_state = sess.run(model.initial_state)
        x = np.random.randint(0, 65, (64, 50))
        feed = {model.inputs: x, model.targets: x, model.keep_prob: 0.5,
                model.initial_state: new_state}
        batch_loss, new_state, _ = sess.run([model.loss, model.final_state, model.optimizer],
                                            feed_dict=feed)
        saver.save(sess, "checkpoints/i{}.ckpt".format(1))
        checkpoint = tf.train.latest_checkpoint('checkpoints')
        saver.restore(sess, checkpoint)
