"""Keras DynamicLookup / DynamicEmbedding / UpdateEmbeddingCallback: lookups and the LFU
frequency table against what tf_keras (Keras 2, TF 2.21) gives for the same batches."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend
exp = keras.layers.experimental


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def _feed(layer, values):
    x = tf.placeholder(tf.string, [None] * np.ndim(values))
    y = layer(x)
    return K.get_session().run(y, {x: np.array(values, dtype=object)})


def test_dynamic_lookup_indices_and_lfu_table_match_keras():
    layer = exp.DynamicLookup(3, [b"a", b"b", b"c"])
    np.testing.assert_array_equal(_feed(layer, [[b"a", b"x"], [b"c", b"a"]]), [[0, 3], [2, 0]])
    _feed(layer, [b"x", b"y", b"a"])
    _feed(layer, [b"z", b"a"])
    keys, counts = K.batch_get_value([layer.vocabulary_table_keys,
                                      layer.vocabulary_table_values])
    assert list(keys) == [b"x", b"y", b"z"] and list(counts) == [2, 1, 1]
    assert list(K.eval(layer.get_top_vocabulary(2))) == [b"x", b"y"]
    with pytest.raises(ValueError, match="LFU"):
        exp.DynamicLookup(3, [b"a", b"b", b"c"], eviction_policy="LRU")


def test_dynamic_embedding_update_keeps_rows_of_kept_keys():
    layer = exp.DynamicEmbedding(input_dim=2, output_dim=3, initial_vocabulary=[1, 2])
    x = tf.placeholder(tf.int64, [None])
    y = layer(x)
    sess = K.get_session()
    rows_before = K.get_value(layer.embedding_layer.embeddings)
    out = sess.run(y, {x: [2, 7]})
    np.testing.assert_allclose(out, rows_before[[1, 2]])  # 7 is unknown: the OOV row
    sess.run(y, {x: [7, 2]})
    layer.update_embeddings()
    vocab = list(K.get_value(layer.get_vocabulary()))
    assert set(vocab) == {2, 7}
    rows = K.get_value(layer.embedding_layer.embeddings)
    np.testing.assert_allclose(rows[vocab.index(2)], rows_before[1])
    assert len(layer.weights) == 4


def test_update_embedding_callback_refreshes_during_fit():
    layer = exp.DynamicEmbedding(input_dim=3, output_dim=2, initial_vocabulary=[10, 11, 12],
                                 input_length=2)
    model = keras.Sequential([layer, keras.layers.Flatten(), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    data = np.array([[20, 21], [20, 10], [21, 22]], np.int64)
    callback = keras.callbacks.experimental.UpdateEmbeddingCallback(layer, interval=1e-9)
    with callback:
        model.fit(data, np.zeros((3, 1), np.float32), batch_size=1, epochs=1, verbose=0,
                  callbacks=[callback], shuffle=False)
    assert callback.updates == 3
    # The LFU table after the three batches (21 is evicted before the third is counted).
    assert list(K.get_value(layer.get_vocabulary())) == [20, 10, 22]
    with pytest.raises(ValueError, match="interval"):
        keras.callbacks.experimental.UpdateEmbeddingCallback(layer, interval=0)
