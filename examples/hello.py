"""The seed's first example: a single-process cluster and a session on it."""

import tensorfleet as tf

c = tf.constant("Hello, distributed TensorFlow!")
server = tf.train.Server.create_local_server()
sess = tf.Session(server.target)  # Create a session on the server.
print(sess.run(c).decode())
sess.close()
server.stop()
