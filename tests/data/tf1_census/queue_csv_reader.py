"""Input-pipeline family: CSV files through a TextLineReader and batch_join."""
import tensorflow as tf


def read_my_file_format(filename_queue):
    reader = tf.TextLineReader(skip_header_lines=1)
    _, value = reader.read(filename_queue)
    record_defaults = [[0.0], [0.0], [0.0], [0.0], [0]]
    c1, c2, c3, c4, label = tf.decode_csv(value, record_defaults=record_defaults)
    features = tf.stack([c1, c2, c3, c4])
    return features, label


def input_pipeline(filenames, batch_size, num_epochs=None, read_threads=4):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=num_epochs,
                                                    shuffle=True)
    example_list = [read_my_file_format(filename_queue) for _ in range(read_threads)]
    min_after_dequeue = 1000
    capacity = min_after_dequeue + 3 * batch_size
    return tf.train.shuffle_batch_join(example_list, batch_size=batch_size, capacity=capacity,
                                       min_after_dequeue=min_after_dequeue)


features, labels = input_pipeline(tf.train.match_filenames_once("/tmp/data/*.csv"), 32,
                                  num_epochs=2)
queue = tf.FIFOQueue(capacity=100, dtypes=[tf.float32, tf.int32], shapes=[[32, 4], [32]])
enqueue_op = queue.enqueue([features, labels])
qr = tf.train.QueueRunner(queue, [enqueue_op] * 2)
tf.train.add_queue_runner(qr)
x, y = queue.dequeue()
init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
sess = tf.Session()
sess.run(init_op)
coord = tf.train.Coordinator()
threads = tf.train.start_queue_runners(sess=sess, coord=coord)
try:
    while not coord.should_stop():
        sess.run([x, y])
except tf.errors.OutOfRangeError:
    print('Done training -- epoch limit reached')
finally:
    coord.request_stop()
coord.join(threads)
sess.close()
