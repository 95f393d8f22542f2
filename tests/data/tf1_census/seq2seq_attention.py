"""NLP family: an attention seq2seq (NMT style) with tf.contrib.seq2seq."""
import tensorflow as tf
from tensorflow.python.layers.core import Dense


def build_graph(src_vocab, tgt_vocab, num_units=128, batch_size=32, beam_width=0):
    source = tf.placeholder(tf.int32, [None, None], name="source")
    source_len = tf.placeholder(tf.int32, [None], name="source_len")
    target_in = tf.placeholder(tf.int32, [None, None], name="target_in")
    target_out = tf.placeholder(tf.int32, [None, None], name="target_out")
    target_len = tf.placeholder(tf.int32, [None], name="target_len")
    with tf.variable_scope("embeddings"):
        enc_emb = tf.get_variable("enc", [src_vocab, num_units])
        dec_emb = tf.get_variable("dec", [tgt_vocab, num_units])
    with tf.variable_scope("encoder"):
        fw = tf.nn.rnn_cell.LSTMCell(num_units // 2)
        bw = tf.nn.rnn_cell.LSTMCell(num_units // 2)
        (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, tf.nn.embedding_lookup(enc_emb, source), sequence_length=source_len,
            dtype=tf.float32)
        memory = tf.concat([out_fw, out_bw], -1)
        enc_state = tf.nn.rnn_cell.LSTMStateTuple(tf.concat([st_fw.c, st_bw.c], -1),
                                                  tf.concat([st_fw.h, st_bw.h], -1))
    with tf.variable_scope("decoder"):
        attention = tf.contrib.seq2seq.BahdanauAttention(num_units, memory,
                                                         memory_sequence_length=source_len)
        cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(num_units),
                                                   attention, attention_layer_size=num_units)
        init_state = cell.zero_state(tf.shape(source)[0], tf.float32).clone(cell_state=enc_state)
        projection = Dense(tgt_vocab, use_bias=False)
        helper = tf.contrib.seq2seq.TrainingHelper(tf.nn.embedding_lookup(dec_emb, target_in),
                                                   target_len)
        decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, init_state,
                                                  output_layer=projection)
        outputs, _, _ = tf.contrib.seq2seq.dynamic_decode(decoder)
        logits = outputs.rnn_output
    with tf.variable_scope("decoder", reuse=True):
        infer_helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(
            dec_emb, tf.fill([tf.shape(source)[0]], 1), 2)
        infer_decoder = tf.contrib.seq2seq.BasicDecoder(cell, infer_helper, init_state,
                                                        output_layer=projection)
        infer_out, _, _ = tf.contrib.seq2seq.dynamic_decode(infer_decoder,
                                                            maximum_iterations=50)
        sample_id = infer_out.sample_id
    mask = tf.sequence_mask(target_len, tf.shape(target_out)[1], dtype=tf.float32)
    loss = tf.contrib.seq2seq.sequence_loss(logits, target_out, mask)
    params = tf.trainable_variables()
    gradients = tf.gradients(loss, params)
    clipped, _ = tf.clip_by_global_norm(gradients, 5.0)
    train_op = tf.train.AdamOptimizer(0.001).apply_gradients(zip(clipped, params))
    return train_op, loss, sample_id


if __name__ == "__main__":
    train_op, loss, sample_id = build_graph(1000, 1000)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.tables_initializer())
