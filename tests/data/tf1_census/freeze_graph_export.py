"""Graph-export family: freeze a checkpoint into a constant GraphDef and load it back."""
import argparse
import os

import tensorflow as tf
from tensorflow.python.framework import graph_util
from tensorflow.python.platform import gfile


def freeze_graph(model_dir, output_node_names):
    checkpoint = tf.train.get_checkpoint_state(model_dir)
    input_checkpoint = checkpoint.model_checkpoint_path
    absolute_model_dir = "/".join(input_checkpoint.split('/')[:-1])
    output_graph = absolute_model_dir + "/frozen_model.pb"
    clear_devices = True
    with tf.Session(graph=tf.Graph()) as sess:
        saver = tf.train.import_meta_graph(input_checkpoint + '.meta', clear_devices=clear_devices)
        saver.restore(sess, input_checkpoint)
        output_graph_def = tf.graph_util.convert_variables_to_constants(
            sess, tf.get_default_graph().as_graph_def(), output_node_names.split(","))
        output_graph_def = graph_util.remove_training_nodes(output_graph_def)
        with tf.gfile.GFile(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString())
        print("%d ops in the final graph." % len(output_graph_def.node))
    return output_graph_def


def load_graph(frozen_graph_filename):
    with gfile.FastGFile(frozen_graph_filename, "rb") as f:
        graph_def = tf.GraphDef()
        graph_def.ParseFromString(f.read())
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(graph_def, name="prefix")
    return graph


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", type=str, default="")
    parser.add_argument("--output_node_names", type=str, default="")
    args = parser.parse_args()
    freeze_graph(args.model_dir, args.output_node_names)
    graph = load_graph(os.path.join(args.model_dir, "frozen_model.pb"))
    for op in graph.get_operations():
        print(op.name, op.node_def.op)
    x = graph.get_tensor_by_name('prefix/Placeholder/inputs_placeholder:0')
    y = graph.get_tensor_by_name('prefix/Accuracy/predictions:0')
    with tf.Session(graph=graph) as sess:
        y_out = sess.run(y, feed_dict={x: [[3, 5, 7, 4, 5, 1, 1, 1, 1, 1]]})
    tf.train.write_graph(graph.as_graph_def(), "/tmp", "graph.pbtxt", as_text=True)
