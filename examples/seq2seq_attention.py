"""A sequence-to-sequence model with attention that learns to reverse digit sequences.

The TensorFlow 1.x NMT recipe at toy scale: an embedding shared by both sides, an
LSTM encoder run by ``tf.nn.dynamic_rnn``, and a decoder cell wrapped in an
``AttentionWrapper`` over the encoder outputs (``BahdanauAttention``, or
``LuongAttention`` with ``--attention luong``). Training feeds the target
sequence through a ``TrainingHelper`` and minimizes ``sequence_loss``. Inference
decodes held-out sequences twice: greedily (``GreedyEmbeddingHelper``) and with a
``BeamSearchDecoder``, whose attention memory and encoder state are ``tile_batch``-ed
as beam search needs. The program prints the share of sequences reversed exactly
right by each. A plain TensorFlow 1.x program (under TensorFlow 1.x, swap the first
import):

    python examples/seq2seq_attention.py --steps 1000
"""

import tensorfleet as tf

import argparse
import time

import numpy as np

PAD, GO, EOS = 0, 1, 2
VOCAB = 13  # the three markers, then the digits 0-9 as ids 3-12


def make_data(n, min_len, max_len, rng):
    """``n`` random digit sequences (padded ids and lengths) and their reversals,
    padded to the longest of them."""
    lengths = rng.randint(min_len, max_len + 1, n)
    max_len = int(lengths.max())
    j = np.arange(max_len)[None]
    inside = j < lengths[:, None]
    src = np.where(inside, rng.randint(0, 10, (n, max_len)) + 3, PAD).astype(np.int32)
    # Reversing each row's first `length` entries: index length - 1 - j for j < length.
    rev = np.where(inside, src[np.arange(n)[:, None], np.maximum(lengths[:, None] - 1 - j, 0)],
                   PAD)
    tgt_out = np.full((n, max_len + 1), PAD, np.int32)
    tgt_out[:, :max_len] = rev
    tgt_out[np.arange(n), lengths] = EOS
    tgt_in = np.concatenate([np.full((n, 1), GO, np.int32), tgt_out[:, :-1]], 1)
    tgt_in[tgt_in == EOS] = PAD
    return src, lengths.astype(np.int32), tgt_in, tgt_out, (lengths + 1).astype(np.int32)


class Model:
    """Encoder, attention decoder, training loss and both inference decoders."""

    def __init__(self, args):
        units = args.num_units
        self.src = tf.placeholder(tf.int32, [None, None], name="source")
        self.src_len = tf.placeholder(tf.int32, [None], name="source_length")
        self.tgt_in = tf.placeholder(tf.int32, [None, None], name="target_input")
        self.tgt_out = tf.placeholder(tf.int32, [None, None], name="target_output")
        self.tgt_len = tf.placeholder(tf.int32, [None], name="target_length")
        batch = tf.shape(self.src)[0]
        self.embedding = tf.get_variable("embedding", [VOCAB, args.embedding_size])
        with tf.variable_scope("encoder"):
            enc_cell = tf.nn.rnn_cell.BasicLSTMCell(units)
            memory, enc_state = tf.nn.dynamic_rnn(
                enc_cell, tf.nn.embedding_lookup(self.embedding, self.src),
                sequence_length=self.src_len, dtype=tf.float32)
        self.args = args

        # Training: teacher forcing.
        cell, init, projection, scope = self.decoder_cell(memory, self.src_len, enc_state,
                                                          batch, reuse=False)
        helper = tf.contrib.seq2seq.TrainingHelper(
            tf.nn.embedding_lookup(self.embedding, self.tgt_in), self.tgt_len)
        decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, init, output_layer=projection)
        outputs, _, _ = tf.contrib.seq2seq.dynamic_decode(decoder, scope=scope)
        mask = tf.sequence_mask(self.tgt_len, tf.shape(self.tgt_out)[1], dtype=tf.float32)
        self.loss = tf.contrib.seq2seq.sequence_loss(outputs.rnn_output, self.tgt_out, mask)
        optimizer = tf.train.AdamOptimizer(args.learning_rate)
        grads, tvars = zip(*optimizer.compute_gradients(self.loss))
        grads, _ = tf.clip_by_global_norm(grads, args.max_grad_norm)
        self.train_op = optimizer.apply_gradients(
            zip(grads, tvars), global_step=tf.train.get_or_create_global_step())

        max_iterations = tf.reduce_max(self.src_len) * 2
        start = tf.fill([batch], GO)
        # Greedy decoding.
        cell, init, projection, scope = self.decoder_cell(memory, self.src_len, enc_state,
                                                          batch, reuse=True)
        helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(self.embedding, start, EOS)
        decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, init, output_layer=projection)
        outputs, _, _ = tf.contrib.seq2seq.dynamic_decode(
            decoder, maximum_iterations=max_iterations, scope=scope)
        self.greedy_ids = outputs.sample_id
        # Beam search: every batch entry's memory and state repeated beam_width times.
        k = args.beam_width
        cell, init, projection, scope = self.decoder_cell(
            tf.contrib.seq2seq.tile_batch(memory, k), tf.contrib.seq2seq.tile_batch(
                self.src_len, k), tf.contrib.seq2seq.tile_batch(enc_state, k), batch * k,
            reuse=True)
        decoder = tf.contrib.seq2seq.BeamSearchDecoder(
            cell, self.embedding, start, EOS, init, k, output_layer=projection,
            length_penalty_weight=args.length_penalty)
        outputs, _, _ = tf.contrib.seq2seq.dynamic_decode(
            decoder, maximum_iterations=max_iterations, scope=scope)
        self.beam_ids = outputs.predicted_ids[:, :, 0]  # the best beam

    def decoder_cell(self, memory, memory_length, encoder_state, batch_size, reuse):
        """The attention decoder cell, its initial state and the output projection."""
        units = self.args.num_units
        with tf.variable_scope("decoder", reuse=reuse) as scope:
            if self.args.attention == "luong":
                mechanism = tf.contrib.seq2seq.LuongAttention(
                    units, memory, memory_sequence_length=memory_length, scale=True)
            else:
                mechanism = tf.contrib.seq2seq.BahdanauAttention(
                    units, memory, memory_sequence_length=memory_length, normalize=True)
            cell = tf.contrib.seq2seq.AttentionWrapper(
                tf.nn.rnn_cell.BasicLSTMCell(units), mechanism, attention_layer_size=units)
            init = cell.zero_state(batch_size, tf.float32).clone(cell_state=encoder_state)
            projection = tf.layers.Dense(VOCAB, use_bias=False, name="output_projection")
        return cell, init, projection, scope


def sequence_accuracy(ids, tgt_out, tgt_len):
    """The share of rows whose decoded ids, up to and with EOS, equal the target."""
    n, width = tgt_out.shape
    got = np.full((n, width), -1, np.int64)
    m = min(width, ids.shape[1])
    got[:, :m] = ids[:, :m]
    inside = np.arange(width)[None] < tgt_len[:, None]
    return float(np.mean(np.all((got == tgt_out) | ~inside, axis=1)))


def train(args, log=print):
    """Builds the model and trains it for ``args.steps`` steps; returns
    ``(session, model, losses)`` (the caller closes the session)."""
    tf.reset_default_graph()
    tf.set_random_seed(args.seed)
    rng = np.random.RandomState(args.seed)
    model = Model(args)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    losses = []
    start = time.time()
    for step in range(1, args.steps + 1):
        src, src_len, tgt_in, tgt_out, tgt_len = make_data(args.batch_size, args.min_length,
                                                           args.max_length, rng)
        loss, _ = sess.run([model.loss, model.train_op], {
            model.src: src, model.src_len: src_len, model.tgt_in: tgt_in,
            model.tgt_out: tgt_out, model.tgt_len: tgt_len})
        losses.append(float(loss))
        if step % args.log_every == 0 or step == args.steps:
            log(f"step {step}: loss {np.mean(losses[-args.log_every:]):.4f} "
                f"({time.time() - start:.1f} s)")
    return sess, model, losses


def evaluate(sess, model, args):
    """Greedy and beam-search sequence accuracy on fresh (held-out) sequences."""
    rng = np.random.RandomState(args.seed + 1000)
    src, src_len, _, tgt_out, tgt_len = make_data(args.eval_size, args.min_length,
                                                  args.max_length, rng)
    greedy, beam = sess.run([model.greedy_ids, model.beam_ids],
                            {model.src: src, model.src_len: src_len})
    return (sequence_accuracy(greedy, tgt_out, tgt_len),
            sequence_accuracy(beam, tgt_out, tgt_len))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--min_length", type=int, default=3)
    parser.add_argument("--max_length", type=int, default=12)
    parser.add_argument("--num_units", type=int, default=64)
    parser.add_argument("--embedding_size", type=int, default=16)
    parser.add_argument("--attention", choices=["luong", "bahdanau"], default="bahdanau")
    parser.add_argument("--beam_width", type=int, default=4)
    parser.add_argument("--length_penalty", type=float, default=0.0)
    parser.add_argument("--learning_rate", type=float, default=0.005)
    parser.add_argument("--max_grad_norm", type=float, default=5.0)
    parser.add_argument("--eval_size", type=int, default=500)
    parser.add_argument("--log_every", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args(argv)


def main():
    args = parse_args()
    start = time.time()
    sess, model, _ = train(args)
    with sess:
        greedy, beam = evaluate(sess, model, args)
    print(f"held-out sequence accuracy: greedy {greedy:.3f}, beam search (width "
          f"{args.beam_width}) {beam:.3f} ({time.time() - start:.1f} s)")


if __name__ == "__main__":
    main()
