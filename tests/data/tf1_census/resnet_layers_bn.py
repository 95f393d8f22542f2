"""Tutorial family: a small ResNet with tf.layers batch norm and a piecewise-constant LR."""
import tensorflow as tf

_BATCH_NORM_DECAY = 0.997
_BATCH_NORM_EPSILON = 1e-5


def batch_norm(inputs, training):
    return tf.layers.batch_normalization(inputs=inputs, axis=3, momentum=_BATCH_NORM_DECAY,
                                         epsilon=_BATCH_NORM_EPSILON, center=True, scale=True,
                                         training=training, fused=True)


def fixed_padding(inputs, kernel_size):
    pad_total = kernel_size - 1
    pad_beg = pad_total // 2
    return tf.pad(inputs, [[0, 0], [pad_beg, pad_total - pad_beg],
                           [pad_beg, pad_total - pad_beg], [0, 0]])


def conv2d_fixed_padding(inputs, filters, kernel_size, strides):
    if strides > 1:
        inputs = fixed_padding(inputs, kernel_size)
    return tf.layers.conv2d(inputs=inputs, filters=filters, kernel_size=kernel_size,
                            strides=strides, padding=('SAME' if strides == 1 else 'VALID'),
                            use_bias=False,
                            kernel_initializer=tf.variance_scaling_initializer())


def building_block(inputs, filters, training, projection_shortcut, strides):
    shortcut = inputs
    inputs = batch_norm(inputs, training)
    inputs = tf.nn.relu(inputs)
    if projection_shortcut is not None:
        shortcut = projection_shortcut(inputs)
    inputs = conv2d_fixed_padding(inputs, filters, 3, strides)
    inputs = tf.nn.relu(batch_norm(inputs, training))
    inputs = conv2d_fixed_padding(inputs, filters, 3, 1)
    return inputs + shortcut


def model(inputs, training):
    inputs = conv2d_fixed_padding(inputs, 16, 3, 1)
    inputs = tf.identity(inputs, 'initial_conv')
    for i, filters in enumerate([16, 32, 64]):
        strides = 1 if i == 0 else 2
        proj = (lambda x, f=filters, s=strides: conv2d_fixed_padding(x, f, 1, s))
        inputs = building_block(inputs, filters, training, proj, strides)
    inputs = tf.nn.relu(batch_norm(inputs, training))
    inputs = tf.reduce_mean(inputs, [1, 2], keepdims=True)
    inputs = tf.squeeze(inputs, [1, 2])
    return tf.layers.dense(inputs=inputs, units=10)


images = tf.placeholder(tf.float32, [None, 32, 32, 3])
labels = tf.placeholder(tf.int32, [None])
logits = model(images, True)
cross_entropy = tf.losses.sparse_softmax_cross_entropy(logits=logits, labels=labels)
l2 = 2e-4 * tf.add_n([tf.nn.l2_loss(tf.cast(v, tf.float32)) for v in tf.trainable_variables()
                      if 'batch_normalization' not in v.name])
loss = cross_entropy + l2
global_step = tf.train.get_or_create_global_step()
learning_rate = tf.train.piecewise_constant(tf.cast(global_step, tf.int32), [100, 200],
                                            [0.1, 0.01, 0.001])
optimizer = tf.train.MomentumOptimizer(learning_rate=learning_rate, momentum=0.9,
                                       use_nesterov=True)
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = optimizer.minimize(loss, global_step)
accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, axis=1))
top5 = tf.nn.top_k(logits, k=5)
tf.identity(accuracy[1], name='train_accuracy')
