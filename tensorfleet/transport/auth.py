"""The cluster token and TLS credentials.

Every call carries the cluster token in gRPC metadata (``x-tensorfleet-token``).
A server that has a token checks it in a ``grpc.ServerInterceptor``, before the
handler runs and before any byte of the request is decoded; a peer without the
right token gets ``UNAUTHENTICATED`` and a warning in the server's log (with the
peer address, never the token): the first refusal at once, then at most one line
per ``limits.REFUSAL_LOG_INTERVAL`` seconds with the count since, so that a peer
that keeps calling with a wrong token cannot flood the log. A server bound to
anything but loopback refuses to start without a token. TLS is optional and
comes from certificate files.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import secrets
import ssl
import threading
import urllib.parse
import weakref
from typing import Any, Callable, Dict, Optional, Tuple

import grpc

from tensorfleet import errors
from tensorfleet.transport import limits

logger = logging.getLogger(__name__)

TOKEN_ENV = "TENSORFLEET_TOKEN"
TOKEN_METADATA_KEY = "x-tensorfleet-token"
MAX_TOKEN_CHARS = 1024


def generate_token() -> str:
    """A fresh random cluster token (43 URL-safe characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def validate_token(token: str) -> str:
    """Returns ``token`` if it can travel in gRPC metadata, else raises InvalidArgumentError."""
    if not isinstance(token, str) or not token:
        raise errors.InvalidArgumentError(
            None, None, "the cluster token must be a non-empty string")
    if len(token) > MAX_TOKEN_CHARS:
        raise errors.InvalidArgumentError(
            None, None, f"the cluster token is longer than {MAX_TOKEN_CHARS} characters")
    # gRPC metadata values are printable ASCII, and it trims surrounding spaces.
    if not all("!" <= ch <= "~" for ch in token):
        raise errors.InvalidArgumentError(
            None, None, "the cluster token may hold only printable ASCII without spaces")
    return token


def resolve_token(token: Optional[str] = None) -> Optional[str]:
    """The explicit ``token`` if given, else ``$TENSORFLEET_TOKEN``, else None (no token)."""
    if token is None:
        token = os.environ.get(TOKEN_ENV) or None
    return None if token is None else validate_token(token)


def split_address(address: str) -> Tuple[str, int]:
    """Splits ``host:port`` (or ``[v6]:port``) into host and port.

    Raises:
      InvalidArgumentError: the address has no valid port.
    """
    host, sep, port = str(address).rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise errors.InvalidArgumentError(
            None, None, f"address {address!r} is not of the form host:port")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def is_loopback(address: str) -> bool:
    """Whether ``address`` (host:port) is reachable only from this machine."""
    host, _ = split_address(address)
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        # Any other name may resolve to a public interface: treat it as exposed.
        return False


def require_token_for(address: str, token: Optional[str] = None) -> Optional[str]:
    """The token a server bound to ``address`` uses; refuses a public address without one.

    Args:
      address: where the server binds (``host:port``).
      token: an explicit token; None reads ``$TENSORFLEET_TOKEN``.

    Returns:
      The token, or None for a loopback address with no token configured.

    Raises:
      FailedPreconditionError: ``address`` is not loopback and no token is set.
    """
    resolved = resolve_token(token)
    if resolved is None and not is_loopback(address):
        raise errors.FailedPreconditionError(
            None, None, f"refusing to serve on {address} without a cluster token: a server "
            f"reachable from other machines must authenticate its peers. Set {TOKEN_ENV} "
            "(the same value on every task) or pass token=..., or bind to localhost")
    return resolved


def token_metadata(token: Optional[str]) -> Optional[Tuple[Tuple[str, str], ...]]:
    """The call metadata that carries ``token`` (None when there is no token)."""
    return None if token is None else ((TOKEN_METADATA_KEY, token),)


def _rejecting_handler(handler: Optional[grpc.RpcMethodHandler], method: str,
                       reason: str, refusals: limits.RefusalLog) -> grpc.RpcMethodHandler:
    """A handler of the same shape as ``handler`` that aborts without reading the request."""

    def reject(_request: Any, context: grpc.ServicerContext) -> Any:
        # gRPC percent-encodes IPv6 peers ("ipv6:%5B::1%5D:port"); unquote for the reader.
        peer = urllib.parse.unquote(context.peer() or "unknown peer")
        refusals.refused(peer, f"rejected {method} from {peer}: {reason} cluster token")
        context.abort(grpc.StatusCode.UNAUTHENTICATED,
                      f"{reason} cluster token: every task of a cluster must use the same "
                      f"{TOKEN_ENV}")

    make: Callable[..., grpc.RpcMethodHandler] = grpc.unary_unary_rpc_method_handler
    if handler is not None:
        make = {
            (False, False): grpc.unary_unary_rpc_method_handler,
            (False, True): grpc.unary_stream_rpc_method_handler,
            (True, False): grpc.stream_unary_rpc_method_handler,
            (True, True): grpc.stream_stream_rpc_method_handler,
        }[(bool(handler.request_streaming), bool(handler.response_streaming))]
    return make(reject)


class TokenInterceptor(grpc.ServerInterceptor):
    """Rejects every call whose metadata lacks the cluster token, before its handler runs.

    ``refusals`` logs the rejections rate-limited and counts them (``total``).
    """

    def __init__(self, token: str):
        self._expected = validate_token(token).encode("ascii")
        self.refusals = limits.RefusalLog(logger)

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails],
                                                       Optional[grpc.RpcMethodHandler]],
                          handler_call_details: grpc.HandlerCallDetails
                          ) -> Optional[grpc.RpcMethodHandler]:
        """Passes authenticated calls on; answers the others with UNAUTHENTICATED."""
        presented = None
        for key, value in handler_call_details.invocation_metadata or ():
            if key == TOKEN_METADATA_KEY:
                presented = value
                break
        if isinstance(presented, str):
            presented = presented.encode("utf-8", "replace")
        if presented is not None and hmac.compare_digest(presented, self._expected):
            return continuation(handler_call_details)
        # The lookup only tells whether the method streams its request, so the
        # rejection reads nothing from the stream; it runs no application code.
        handler = continuation(handler_call_details)
        reason = "missing" if presented is None else "invalid"
        return _rejecting_handler(handler, handler_call_details.method, reason, self.refusals)


def _read(path: Optional[str], what: str) -> Optional[bytes]:
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise errors.NotFoundError(
            None, None, f"cannot read the TLS {what} {path!r}: {e}") from None


def server_credentials(cert_file: str, key_file: str, ca_file: Optional[str] = None,
                       require_client_auth: bool = False) -> grpc.ServerCredentials:
    """TLS credentials for ``RpcServer`` from PEM files.

    Args:
      cert_file, key_file: the server's certificate chain and private key.
      ca_file: CA bundle that client certificates must chain to (mutual TLS).
      require_client_auth: reject clients without a certificate signed by ``ca_file``.
    """
    if require_client_auth and ca_file is None:
        raise errors.InvalidArgumentError(None, None, "require_client_auth needs a ca_file")
    credentials = grpc.ssl_server_credentials(
        [(_read(key_file, "key"), _read(cert_file, "certificate"))],
        root_certificates=_read(ca_file, "CA bundle"),
        require_client_auth=require_client_auth)
    context = _context(ssl.PROTOCOL_TLS_SERVER, cert_file, key_file, ca_file)
    context.verify_mode = ssl.CERT_REQUIRED if require_client_auth else ssl.CERT_NONE
    # Session tickets would arrive on a connection after its handshake, unread, and
    # make an idle pooled connection look as if it had bytes nobody asked for.
    context.num_tickets = 0
    _SIDE_CHANNEL_TLS[credentials] = context
    return credentials


def channel_credentials(ca_file: Optional[str] = None, cert_file: Optional[str] = None,
                        key_file: Optional[str] = None) -> grpc.ChannelCredentials:
    """TLS credentials for ``RpcClient`` from PEM files.

    Args:
      ca_file: CA bundle that the server certificate must chain to (None: system roots).
      cert_file, key_file: this client's certificate and key, for mutual TLS.
    """
    if (cert_file is None) != (key_file is None):
        raise errors.InvalidArgumentError(
            None, None, "a client certificate needs both cert_file and key_file")
    credentials = grpc.ssl_channel_credentials(
        root_certificates=_read(ca_file, "CA bundle"),
        private_key=_read(key_file, "key"),
        certificate_chain=_read(cert_file, "certificate"))
    context = _context(ssl.PROTOCOL_TLS_CLIENT, cert_file, key_file, ca_file)
    if ca_file is None:
        context.load_default_certs(ssl.Purpose.SERVER_AUTH)
    _SIDE_CHANNEL_TLS[credentials] = context
    return credentials


# A client in a process of its own (``tf.Session("grpc://...")`` against a TLS
# cluster) finds its TLS files here, as gRPC's own tools take theirs from the environment.
TLS_CA_ENV = "TENSORFLEET_TLS_CA_FILE"
TLS_CERT_ENV = "TENSORFLEET_TLS_CERT_FILE"
TLS_KEY_ENV = "TENSORFLEET_TLS_KEY_FILE"
_ENV_CREDENTIALS: Dict[Tuple[Optional[str], ...], grpc.ChannelCredentials] = {}
_ENV_LOCK = threading.Lock()


def channel_credentials_from_env() -> Optional[grpc.ChannelCredentials]:
    """``channel_credentials`` of ``$TENSORFLEET_TLS_CA_FILE`` (and, for mutual TLS,
    ``$TENSORFLEET_TLS_CERT_FILE`` and ``$TENSORFLEET_TLS_KEY_FILE``); None when none
    is set (plaintext). The same files give the same credentials object, so clients
    and their side-channel connections are shared."""
    files = tuple(os.environ.get(name) or None for name in (TLS_CA_ENV, TLS_CERT_ENV,
                                                             TLS_KEY_ENV))
    if files == (None, None, None):
        return None
    with _ENV_LOCK:
        creds = _ENV_CREDENTIALS.get(files)
        if creds is None:
            creds = _ENV_CREDENTIALS[files] = channel_credentials(*files)
        return creds


def _context(protocol: int, cert_file: Optional[str], key_file: Optional[str],
             ca_file: Optional[str]) -> ssl.SSLContext:
    """An ``ssl`` context of the side channel from the same PEM files as gRPC's."""
    context = ssl.SSLContext(protocol)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        if cert_file is not None:
            context.load_cert_chain(cert_file, key_file)
        if ca_file is not None:
            context.load_verify_locations(cafile=ca_file)
    except (OSError, ssl.SSLError) as e:
        raise errors.InvalidArgumentError(
            None, None, f"cannot use the TLS files {cert_file!r}, {key_file!r}, "
            f"{ca_file!r}: {e}") from None
    return context


# Credentials made by the functions above -> the side channel's context from the
# same files: a gRPC credentials object does not let its certificates be read back.
_SIDE_CHANNEL_TLS: "weakref.WeakKeyDictionary[Any, ssl.SSLContext]" = weakref.WeakKeyDictionary()


def side_channel_tls(credentials: Any) -> Optional[ssl.SSLContext]:
    """The ``ssl`` context with which the bulk side channel carries TLS for
    ``credentials`` (server or channel credentials of ``server_credentials`` or
    ``channel_credentials``), or None: no credentials, or credentials made some
    other way, whose certificates the side channel cannot know (it then stays off).
    """
    if credentials is None:
        return None
    try:
        return _SIDE_CHANNEL_TLS.get(credentials)
    except TypeError:  # not weakly referenceable: not made here
        return None


__all__ = [
    "TOKEN_ENV", "TOKEN_METADATA_KEY", "generate_token", "validate_token", "resolve_token",
    "split_address", "is_loopback", "require_token_for", "token_metadata",
    "TokenInterceptor", "server_credentials", "channel_credentials", "side_channel_tls",
]
