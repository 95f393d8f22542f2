"""examples/seq2seq_attention.py: a short training run learns, and both decoders run."""

import importlib.util
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_example():
    spec = importlib.util.spec_from_file_location(
        "seq2seq_attention_example", os.path.join(ROOT, "examples", "seq2seq_attention.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_data_reverses_and_marks_the_end():
    ex = load_example()
    src, src_len, tgt_in, tgt_out, tgt_len = ex.make_data(5, 2, 6, np.random.RandomState(0))
    for s, n, ti, to, tn in zip(src, src_len, tgt_in, tgt_out, tgt_len):
        assert tn == n + 1 and (s[n:] == ex.PAD).all()
        np.testing.assert_array_equal(to[:n], s[:n][::-1])
        assert to[n] == ex.EOS and ti[0] == ex.GO
        np.testing.assert_array_equal(ti[1:n + 1], to[:n])
    assert src.shape[1] == src_len.max()
    ids = np.array([[5, 4, ex.EOS, 7], [5, 4, 3, ex.EOS]])
    assert ex.sequence_accuracy(ids, np.array([[5, 4, ex.EOS], [5, 4, ex.EOS]]),
                                np.array([3, 3])) == 0.5


def test_training_loss_falls_and_decoders_run():
    ex = load_example()
    args = ex.parse_args(["--steps", "200", "--max_length", "6", "--num_units", "32",
                          "--beam_width", "3", "--eval_size", "100", "--log_every", "1000"])
    logs = []
    sess, model, losses = ex.train(args, log=logs.append)
    with sess:
        greedy, beam = ex.evaluate(sess, model, args)
    assert len(losses) == 200 and len(logs) == 1
    assert np.mean(losses[:10]) > 2.0
    assert np.mean(losses[-10:]) < 0.1, losses[::10]
    # short sequences are learnt within these few steps
    assert greedy > 0.9 and beam > 0.9, (greedy, beam)
