"""An LSTM language model in the style of the PTB tutorial, on a small synthetic corpus.

The corpus comes from a tiny English-like grammar (determiners, adjectives, nouns,
verbs, prepositions), so it has real structure for the model to learn and needs no
download. Two ``BasicLSTMCell`` layers in a ``MultiRNNCell`` run by
``tf.nn.dynamic_rnn``; the state is carried from one batch to the next as in
truncated backpropagation through time. Each epoch prints the training and
validation perplexity, which fall from about the vocabulary size towards the
corpus's own entropy. A plain TensorFlow 1.x program (under TensorFlow 1.x, swap
the first import):

    python examples/ptb_lstm.py --epochs 5
"""

import tensorfleet as tf

import argparse
import time

import numpy as np

DETERMINERS = ["the", "a", "every", "some"]
ADJECTIVES = ["small", "big", "red", "quiet", "old", "happy"]
NOUNS = ["cat", "dog", "bird", "child", "farmer", "teacher", "river", "house"]
VERBS = ["sees", "likes", "follows", "finds", "watches"]
PREPOSITIONS = ["near", "behind", "under", "with"]


def noun_phrase(rng):
    words = [rng.choice(DETERMINERS)]
    if rng.rand() < 0.5:
        words.append(rng.choice(ADJECTIVES))
    words.append(rng.choice(NOUNS))
    if rng.rand() < 0.25:
        words += [rng.choice(PREPOSITIONS)] + noun_phrase(rng)[:3]
    return words


def make_corpus(n_sentences, seed):
    """Token ids of ``n_sentences`` grammar sentences, and the vocabulary."""
    rng = np.random.RandomState(seed)
    vocab = sorted(set(DETERMINERS + ADJECTIVES + NOUNS + VERBS + PREPOSITIONS + ["."]))
    index = {w: i for i, w in enumerate(vocab)}
    words = []
    for _ in range(n_sentences):
        words += noun_phrase(rng) + [rng.choice(VERBS)] + noun_phrase(rng) + ["."]
    return np.array([index[w] for w in words], np.int32), vocab


def batches(data, batch_size, num_steps):
    """PTB-style iteration: the stream cut into ``batch_size`` rows, read ``num_steps``
    columns at a time, targets shifted by one."""
    n = (len(data) - 1) // batch_size
    rows = data[:batch_size * n].reshape(batch_size, n)
    nxt = data[1:batch_size * n + 1].reshape(batch_size, n)
    for i in range(0, n - num_steps + 1, num_steps):
        yield rows[:, i:i + num_steps], nxt[:, i:i + num_steps]


class Model:
    """The graph of one configuration; ``is_training`` adds dropout and the train op."""

    def __init__(self, is_training, vocab_size, args):
        size, layers = args.hidden_size, args.num_layers
        self.inputs = tf.placeholder(tf.int32, [args.batch_size, args.num_steps], name="inputs")
        self.targets = tf.placeholder(tf.int32, [args.batch_size, args.num_steps],
                                      name="targets")
        self.state_in = tuple(
            tf.nn.rnn_cell.LSTMStateTuple(
                tf.placeholder(tf.float32, [args.batch_size, size], name=f"c{i}"),
                tf.placeholder(tf.float32, [args.batch_size, size], name=f"h{i}"))
            for i in range(layers))
        cells = []
        for _ in range(layers):
            cell = tf.nn.rnn_cell.BasicLSTMCell(size, forget_bias=0.0)
            if is_training and args.keep_prob < 1:
                cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=args.keep_prob)
            cells.append(cell)
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        embedding = tf.get_variable("embedding", [vocab_size, size])
        x = tf.nn.embedding_lookup(embedding, self.inputs)
        if is_training and args.keep_prob < 1:
            x = tf.nn.dropout(x, args.keep_prob)
        outputs, self.state_out = tf.nn.dynamic_rnn(cell, x, initial_state=self.state_in)
        logits = tf.layers.dense(outputs, vocab_size, name="softmax")
        # Mean cross entropy per token; exp of its average over an epoch is the perplexity.
        self.cost = tf.contrib.seq2seq.sequence_loss(
            logits, self.targets, tf.ones([args.batch_size, args.num_steps]))
        if not is_training:
            return
        self.lr = tf.Variable(args.learning_rate, trainable=False, name="learning_rate")
        self.new_lr = tf.placeholder(tf.float32, [], name="new_learning_rate")
        self.lr_update = tf.assign(self.lr, self.new_lr)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(self.cost * args.num_steps, tvars),
                                          args.max_grad_norm)
        self.train_op = tf.train.GradientDescentOptimizer(self.lr).apply_gradients(
            zip(grads, tvars), global_step=tf.train.get_or_create_global_step())

    def zero_state(self):
        return tuple(tf.nn.rnn_cell.LSTMStateTuple(np.zeros(s.c.shape.as_list(), np.float32),
                                                   np.zeros(s.h.shape.as_list(), np.float32))
                     for s in self.state_in)


def run_epoch(sess, model, data, args, train_op=None):
    """Runs over ``data`` once, carrying the state; returns the perplexity."""
    state = model.zero_state()
    costs, steps = 0.0, 0
    fetches = [model.cost, model.state_out] + ([train_op] if train_op is not None else [])
    for x, y in batches(data, args.batch_size, args.num_steps):
        feed = {model.inputs: x, model.targets: y}
        for ph, val in zip(model.state_in, state):
            feed[ph.c], feed[ph.h] = val.c, val.h
        cost, state = sess.run(fetches, feed)[:2]
        costs += cost
        steps += 1
    return float(np.exp(costs / max(steps, 1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--sentences", type=int, default=3000)
    parser.add_argument("--batch_size", type=int, default=20)
    parser.add_argument("--num_steps", type=int, default=20)
    parser.add_argument("--hidden_size", type=int, default=64)
    parser.add_argument("--num_layers", type=int, default=2)
    parser.add_argument("--keep_prob", type=float, default=1.0)
    parser.add_argument("--learning_rate", type=float, default=1.0)
    parser.add_argument("--lr_decay", type=float, default=0.8)
    parser.add_argument("--max_grad_norm", type=float, default=5.0)
    parser.add_argument("--init_scale", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    train_data, vocab = make_corpus(args.sentences, seed=0)
    valid_data, _ = make_corpus(max(args.sentences // 10, 200), seed=1)
    print(f"vocabulary {len(vocab)} words, {len(train_data)} training tokens")
    tf.set_random_seed(args.seed)
    init = tf.random_uniform_initializer(-args.init_scale, args.init_scale, seed=args.seed)
    with tf.variable_scope("Model", reuse=None, initializer=init):
        train_model = Model(True, len(vocab), args)
    with tf.variable_scope("Model", reuse=True, initializer=init):
        valid_model = Model(False, len(vocab), args)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        valid_ppl = run_epoch(sess, valid_model, valid_data, args)
        print(f"before training: valid perplexity {valid_ppl:.2f}")
        for epoch in range(args.epochs):
            lr = args.learning_rate * args.lr_decay ** max(epoch - 1, 0)
            sess.run(train_model.lr_update, {train_model.new_lr: lr})
            start = time.time()
            train_ppl = run_epoch(sess, train_model, train_data, args, train_model.train_op)
            valid_ppl = run_epoch(sess, valid_model, valid_data, args)
            print(f"epoch {epoch + 1}: learning rate {lr:.3f}, train perplexity "
                  f"{train_ppl:.2f}, valid perplexity {valid_ppl:.2f} "
                  f"({time.time() - start:.1f} s)")


if __name__ == "__main__":
    main()
