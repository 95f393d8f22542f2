"""transport: tensor message coding, gRPC services, the bulk side channel, the cluster token."""

from tensorfleet.transport import auth, bulk, bulk_client, rpc, rpc_client, wire  # noqa: F401
from tensorfleet.transport.auth import (  # noqa: F401
    TOKEN_ENV, TokenInterceptor, channel_credentials, generate_token, require_token_for,
    server_credentials)
from tensorfleet.transport.bulk import BULK_ENV, BulkListener  # noqa: F401
from tensorfleet.transport.bulk_client import BulkPool  # noqa: F401
from tensorfleet.transport.rpc import (  # noqa: F401
    CHANNELS, PROTOCOL_VERSION, ChannelCache, RpcClient, RpcServer, ServiceHandlers)
from tensorfleet.transport.wire import decode, encode, encode_parts  # noqa: F401

__all__ = [
    "auth", "bulk", "bulk_client", "rpc", "rpc_client", "wire", "TOKEN_ENV", "TokenInterceptor",
    "channel_credentials", "generate_token", "require_token_for", "server_credentials",
    "BULK_ENV", "BulkListener", "BulkPool", "CHANNELS", "PROTOCOL_VERSION", "ChannelCache",
    "RpcClient", "RpcServer", "ServiceHandlers", "decode", "encode", "encode_parts",
]
