"""Every element of a data set, read through a one-shot iterator in a session of its own."""

import tensorfleet as tf


def drain(ds):
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as s:
        while True:
            try:
                out.append(s.run(nxt))
            except tf.errors.OutOfRangeError:
                return out
