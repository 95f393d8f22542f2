"""transport: tensor message coding, gRPC services, the bulk side channel, the cluster token,
the socket helpers and handshake of every raw connection, the collectives' link interface."""

from tensorfleet.transport import (  # noqa: F401
    auth, bulk, bulk_client, handshake, link, rpc, rpc_client, rpc_protocol, sockio, wire)
from tensorfleet.transport.auth import (  # noqa: F401
    TOKEN_ENV, TokenInterceptor, channel_credentials, generate_token, require_token_for,
    server_credentials)
from tensorfleet.transport.bulk import BULK_ENV, BulkListener  # noqa: F401
from tensorfleet.transport.bulk_client import BulkPool  # noqa: F401
from tensorfleet.transport.link import FrameLink, PeerAbort  # noqa: F401
from tensorfleet.transport.rpc import (  # noqa: F401
    PROTOCOL_VERSION, ChannelCache, RpcClient, RpcServer, ServiceHandlers, channel_cache)
from tensorfleet.transport.wire import decode, encode, encode_parts  # noqa: F401

__all__ = [
    "auth", "bulk", "bulk_client", "handshake", "link", "rpc", "rpc_client", "rpc_protocol",
    "sockio", "wire", "FrameLink", "PeerAbort", "TOKEN_ENV", "TokenInterceptor",
    "channel_credentials", "generate_token", "require_token_for", "server_credentials",
    "BULK_ENV", "BulkListener", "BulkPool", "channel_cache", "PROTOCOL_VERSION", "ChannelCache",
    "RpcClient", "RpcServer", "ServiceHandlers", "decode", "encode", "encode_parts",
]
