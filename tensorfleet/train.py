"""``tf.train``: optimizers, sessions, savers, hooks, cluster and server."""
