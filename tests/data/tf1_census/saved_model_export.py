"""Graph-export family: a SavedModel with a predict signature, then loaded for serving."""
import tensorflow as tf

export_dir = "/tmp/saved_model/1"
x = tf.placeholder(tf.float32, [None, 3], name="x")
w = tf.Variable(tf.random_normal([3, 2]), name="w")
y = tf.nn.softmax(tf.matmul(x, w), name="y")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
    tensor_info_x = tf.saved_model.utils.build_tensor_info(x)
    tensor_info_y = tf.saved_model.utils.build_tensor_info(y)
    prediction_signature = tf.saved_model.signature_def_utils.build_signature_def(
        inputs={"images": tensor_info_x}, outputs={"scores": tensor_info_y},
        method_name=tf.saved_model.signature_constants.PREDICT_METHOD_NAME)
    legacy_init_op = tf.group(tf.tables_initializer(), name="legacy_init_op")
    builder.add_meta_graph_and_variables(
        sess, [tf.saved_model.tag_constants.SERVING],
        signature_def_map={"predict_images": prediction_signature,
                           tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                           prediction_signature},
        legacy_init_op=legacy_init_op)
    builder.save()

with tf.Session(graph=tf.Graph()) as sess:
    meta_graph_def = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                                export_dir)
    signature = meta_graph_def.signature_def
    x_name = signature["predict_images"].inputs["images"].name
    y_name = signature["predict_images"].outputs["scores"].name
    print(sess.run(sess.graph.get_tensor_by_name(y_name),
                   {sess.graph.get_tensor_by_name(x_name): [[1.0, 2.0, 3.0]]}))

with tf.Graph().as_default():
    a = tf.placeholder(tf.float32, [None, 3])
    with tf.Session() as sess:
        tf.saved_model.simple_save(sess, "/tmp/simple/1", inputs={"a": a}, outputs={"b": a * 2})
