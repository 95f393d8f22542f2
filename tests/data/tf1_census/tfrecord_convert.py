"""Input-pipeline family: write images to TFRecords, read them back with a queue reader."""
import numpy as np
import tensorflow as tf


def _int64_feature(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


def _bytes_feature(value):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def _float_feature(value):
    return tf.train.Feature(float_list=tf.train.FloatList(value=value))


def convert_to(images, labels, filename):
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    with tf.python_io.TFRecordWriter(filename, options=options) as writer:
        for index in range(images.shape[0]):
            example = tf.train.Example(features=tf.train.Features(feature={
                'height': _int64_feature(images.shape[1]),
                'width': _int64_feature(images.shape[2]),
                'label': _int64_feature(int(labels[index])),
                'mean': _float_feature([float(images[index].mean())]),
                'image_raw': _bytes_feature(images[index].tostring())}))
            writer.write(example.SerializeToString())


def read_and_decode(filename_queue):
    reader = tf.TFRecordReader(options=tf.python_io.TFRecordOptions(
        tf.python_io.TFRecordCompressionType.GZIP))
    _, serialized_example = reader.read(filename_queue)
    features = tf.parse_single_example(serialized_example, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64),
        'mean': tf.VarLenFeature(tf.float32)})
    image = tf.decode_raw(features['image_raw'], tf.uint8)
    image.set_shape([784])
    image = tf.cast(image, tf.float32) * (1. / 255) - 0.5
    label = tf.cast(features['label'], tf.int32)
    return image, label, tf.sparse_tensor_to_dense(features['mean'])


convert_to(np.zeros((10, 28, 28), np.uint8), np.arange(10), '/tmp/train.tfrecords')
for record in tf.python_io.tf_record_iterator('/tmp/train.tfrecords', options=tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)):
    print(tf.train.Example.FromString(record).features.feature['label'].int64_list.value)
with tf.name_scope('input'):
    filename_queue = tf.train.string_input_producer(['/tmp/train.tfrecords'], num_epochs=1)
    image, label, mean = read_and_decode(filename_queue)
    images, sparse_labels = tf.train.shuffle_batch([image, label], batch_size=4, num_threads=2,
                                                   capacity=1000 + 3 * 4,
                                                   min_after_dequeue=1000)
