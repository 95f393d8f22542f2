"""Integers in requests are int64, as in TensorFlow's messages: a 4,000-digit step id
is refused, not looked up."""

from types import SimpleNamespace

import pytest

from tensorfleet import errors
from tensorfleet.distributed import protocol


class _Worker:
    def __init__(self):
        self.asked = []

    def recv_tensor(self, step_id, key, timeout):
        self.asked.append(step_id)
        raise errors.AbortedError(None, None, "no such step")

    def recv_tensors(self, step_id, keys, timeout):
        self.asked.append(step_id)
        return []


@pytest.mark.parametrize("method,extra", [("RecvTensor", {"key": "k"}),
                                          ("RecvTensors", {"keys": ["k"]})])
def test_a_huge_step_id_is_refused_before_the_worker_sees_it(method, extra):
    worker = _Worker()
    table = protocol.handlers(SimpleNamespace(master=None, worker=worker, cluster_spec=None))
    huge = int("9" * 4000)
    with pytest.raises(errors.InvalidArgumentError, match="outside the int64 range"):
        table[method](dict({"step_id": huge, "timeout": 1.0}, **extra), [])
    assert worker.asked == []


def test_the_int64_bounds_themselves_pass():
    for v in (-2 ** 63, 2 ** 63 - 1, 0):
        assert protocol.field({"step_id": v}, "step_id", int, "RecvTensor") == v
    with pytest.raises(errors.InvalidArgumentError):
        protocol.field({"step_id": 2 ** 63}, "step_id", int, "RecvTensor")
