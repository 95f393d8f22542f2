"""``tf.test``: the test case class, its runner and the helpers of TensorFlow's tests."""

from tensorfleet.testing.testcase import (TestCase, compute_gradient, compute_gradient_error,
    create_local_cluster, get_temp_dir, gpu_device_name, is_built_with_cuda, is_gpu_available,
    main, mock)
from tensorfleet.testing.benchmark import Benchmark, benchmark_config
from tensorfleet.testing.decorators import disable_with_predicate, with_eager_op_as_function
from tensorfleet.testing.graph_def_equality import assert_equal_graph_def
from tensorfleet.testing.platform_queries import (is_built_with_gpu_support,
    is_built_with_rocm, is_built_with_xla, is_cpu_target_available, test_src_dir_path)
from tensorfleet.testing.stubout import StubOutForTesting
from tensorfleet.api import test_experimental as experimental

__all__ = ["TestCase", "compute_gradient", "compute_gradient_error", "create_local_cluster",
           "get_temp_dir", "gpu_device_name", "is_built_with_cuda", "is_gpu_available", "main",
           "mock", "Benchmark", "benchmark_config", "disable_with_predicate",
           "with_eager_op_as_function", "assert_equal_graph_def", "is_built_with_gpu_support",
           "is_built_with_rocm", "is_built_with_xla", "is_cpu_target_available",
           "test_src_dir_path", "StubOutForTesting", "experimental"]
