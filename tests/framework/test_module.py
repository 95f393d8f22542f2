"""``tf.Module``: names and scopes, and the variables and submodules found through its
attributes."""

import pytest

import tensorfleet as tf


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
            self.b = tf.Variable(tf.zeros([n_out]), name="b", trainable=False)

    @tf.Module.with_name_scope
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(2, 3), Dense(3, 1, name="out")]
        self.again = {"first": self.layers[0]}


def test_variables_submodules_and_scopes():
    with tf.Graph().as_default():
        mlp = MLP()
        assert mlp.name == "mlp" and Dense(1, 1).name == "dense"
        assert [m.name for m in mlp.submodules] == ["dense", "out"]
        names = sorted(v.op.name for v in mlp.variables)
        assert names == ["dense/b", "dense/w", "out/b", "out/w"]  # the dict repeat counted once
        assert len(mlp.trainable_variables) == 2
        assert {v.op.name.split("/")[-1] for v in mlp.trainable_variables} == {"w"}
        y = mlp.layers[1](mlp.layers[0](tf.ones([1, 2])))
        assert y.op.name.startswith("out/")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y).tolist() == [[6.0]]
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="bad name")
