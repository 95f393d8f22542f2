"""slim family: a small VGG with arg_scope, repeat and slim's learning loop pieces."""
import tensorflow as tf

slim = tf.contrib.slim


def vgg_arg_scope(weight_decay=0.0005):
    with slim.arg_scope([slim.conv2d, slim.fully_connected], activation_fn=tf.nn.relu,
                        weights_regularizer=slim.l2_regularizer(weight_decay),
                        biases_initializer=tf.zeros_initializer()):
        with slim.arg_scope([slim.conv2d], padding='SAME') as arg_sc:
            return arg_sc


def vgg_a(inputs, num_classes=10, is_training=True, dropout_keep_prob=0.5, scope='vgg_a'):
    with tf.variable_scope(scope, 'vgg_a', [inputs]) as sc:
        end_points_collection = sc.original_name_scope + '_end_points'
        with slim.arg_scope([slim.conv2d, slim.max_pool2d],
                            outputs_collections=end_points_collection):
            net = slim.repeat(inputs, 1, slim.conv2d, 64, [3, 3], scope='conv1')
            net = slim.max_pool2d(net, [2, 2], scope='pool1')
            net = slim.repeat(net, 2, slim.conv2d, 128, [3, 3], scope='conv2')
            net = slim.max_pool2d(net, [2, 2], scope='pool2')
            net = slim.flatten(net)
            net = slim.fully_connected(net, 512, scope='fc6')
            net = slim.dropout(net, dropout_keep_prob, is_training=is_training, scope='dropout6')
            net = slim.fully_connected(net, num_classes, activation_fn=None, scope='fc8')
            end_points = slim.utils.convert_collection_to_dict(end_points_collection)
            return net, end_points


images = tf.placeholder(tf.float32, [None, 32, 32, 3])
labels = tf.placeholder(tf.int64, [None])
with slim.arg_scope(vgg_arg_scope()):
    logits, end_points = vgg_a(images)
one_hot = slim.one_hot_encoding(labels, 10)
slim.losses.softmax_cross_entropy(logits, one_hot)
total_loss = slim.losses.get_total_loss()
tf.summary.scalar('losses/total_loss', total_loss)
optimizer = tf.train.MomentumOptimizer(learning_rate=0.01, momentum=0.9)
train_op = slim.learning.create_train_op(total_loss, optimizer)
variables_to_restore = slim.get_variables_to_restore(exclude=['vgg_a/fc8'])
init_fn = slim.assign_from_checkpoint_fn('/tmp/vgg_a.ckpt', variables_to_restore,
                                         ignore_missing_vars=True)
slim.model_analyzer.analyze_vars(slim.get_model_variables(), print_info=True)
