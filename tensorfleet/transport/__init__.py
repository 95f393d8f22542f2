"""transport: tensor message coding, gRPC services, the bulk side channel, the cluster token."""

from tensorfleet.transport import auth, bulk, rpc, wire  # noqa: F401
from tensorfleet.transport.auth import (  # noqa: F401
    TOKEN_ENV, TokenInterceptor, channel_credentials, generate_token, require_token_for,
    server_credentials)
from tensorfleet.transport.bulk import BULK_ENV, BulkListener, BulkPool  # noqa: F401
from tensorfleet.transport.rpc import (  # noqa: F401
    CHANNELS, PROTOCOL_VERSION, ChannelCache, RpcClient, RpcServer)
from tensorfleet.transport.wire import decode, encode, encode_parts  # noqa: F401

__all__ = [
    "auth", "bulk", "rpc", "wire", "TOKEN_ENV", "TokenInterceptor", "channel_credentials",
    "generate_token", "require_token_for", "server_credentials", "BULK_ENV", "BulkListener",
    "BulkPool", "CHANNELS", "PROTOCOL_VERSION", "ChannelCache", "RpcClient", "RpcServer",
    "decode", "encode", "encode_parts",
]
