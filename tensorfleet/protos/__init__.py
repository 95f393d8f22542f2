"""Protocol buffer messages of tensorfleet's file formats (see the .proto files here).

``example_pb2`` is generated from ``example.proto``; the regeneration command is at
the top of that file.
"""
