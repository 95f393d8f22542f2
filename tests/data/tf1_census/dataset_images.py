"""Input-pipeline family: JPEG files through tf.data with augmentation and an initializable iterator."""
import tensorflow as tf


def _parse_function(filename, label):
    image_string = tf.read_file(filename)
    image_decoded = tf.image.decode_jpeg(image_string, channels=3)
    image = tf.image.convert_image_dtype(image_decoded, tf.float32)
    image = tf.image.resize_images(image, [64, 64])
    return image, label


def train_preprocess(image, label):
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=32.0 / 255.0)
    image = tf.image.random_saturation(image, lower=0.5, upper=1.5)
    image = tf.image.random_hue(image, max_delta=0.05)
    image = tf.clip_by_value(image, 0.0, 1.0)
    return image, label


filenames = tf.placeholder(tf.string, shape=[None])
labels = tf.placeholder(tf.int32, shape=[None])
dataset = tf.data.Dataset.from_tensor_slices((filenames, labels))
dataset = dataset.shuffle(len(range(100)))
dataset = dataset.map(_parse_function, num_parallel_calls=4)
dataset = dataset.map(train_preprocess, num_parallel_calls=4)
dataset = dataset.batch(32).prefetch(1)
iterator = dataset.make_initializable_iterator()
images, batch_labels = iterator.get_next()
gray = tf.image.rgb_to_grayscale(images)
crop = tf.image.central_crop(images, 0.875)
padded = tf.image.pad_to_bounding_box(crop, 4, 4, 64, 64)
tf.summary.image("train", images, max_outputs=3)
with tf.Session() as sess:
    sess.run(iterator.initializer, feed_dict={filenames: ["a.jpg"], labels: [0]})
    while True:
        try:
            sess.run(images)
        except tf.errors.OutOfRangeError:
            break
    handle = tf.data.Iterator.from_structure(dataset.output_types, dataset.output_shapes)
