"""``tf.distribute``: cluster resolvers (and, with collectives, all-reduce strategies)."""

import types

from tensorfleet.distributed.resolver import TFConfigClusterResolver

cluster_resolver = types.SimpleNamespace(TFConfigClusterResolver=TFConfigClusterResolver)
