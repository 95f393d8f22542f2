"""Protocol buffer messages of the file formats tensorfleet shares with TensorFlow.

Each ``*_pb2`` module is generated from the ``.proto`` file of the same name here
(message names and field numbers are TensorFlow's; the package is tensorfleet's own).
The regeneration command is at the top of ``example.proto`` and ``types.proto``.
"""
