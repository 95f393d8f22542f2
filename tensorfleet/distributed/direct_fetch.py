"""Big fetches pulled by the client straight from the task that holds them.

A client in its own process fetching a big tensor that another task computes
would otherwise get it through the master: the tensor goes to the master's task
whole, then from there to the client, one transfer after the other. Instead:

1. The client's RunStep says it can pull (``direct_pull``). For each remote
   partition the master asks the task to *park* the client's fetches of at least
   ``DIRECT_PULL_MIN_BYTES`` (``RpcServer.park``: a snapshot, fetchable once with a
   random 16-byte key, for ``rpc.RESPONSE_TTL`` seconds).
2. The RunGraph reply names each parked tensor instead of carrying it; the
   RunStep reply passes on where it is: the task's address, the key, its size and
   the task's side channel port.
3. The client redeems each one from that task (``RpcClient.redeem``, with the
   cluster token as on every call). If it cannot reach that task (another
   network, a firewall), it asks the master to fetch it and pass it on
   (``FetchParked``: the relay), which the master does only for an address of its
   own cluster.

Everything in these headers comes from the network and is checked here before
use: types, sizes, the key's length, the address being a cluster task's.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet import errors
from tensorfleet.transport import wire

logger = logging.getLogger(__name__)

# Below this a tensor rides in the RunStep reply: pulling it separately costs a
# round trip more than relaying saves (the side channel beats a unary reply from
# about 2 MiB on loopback; see transport.rpc).
DIRECT_PULL_MIN_BYTES = 4 << 20


def _bad(what: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"malformed parked-tensor reference: {what}")


class ParkedTensor:
    """Where a parked tensor waits: a task's address, the key, the message size and
    the task's side channel port (0: none, fetched with gRPC)."""

    __slots__ = ("address", "key", "total", "port")

    def __init__(self, address: str, key: bytes, total: int, port: int):
        self.address = address
        self.key = key
        self.total = total
        self.port = port

    def to_plain(self) -> List[Any]:
        return [self.address, self.key.hex(), self.total, self.port]

    @classmethod
    def from_plain(cls, plain: Any, max_bytes: int = wire.DEFAULT_MAX_MESSAGE_BYTES
                   ) -> "ParkedTensor":
        """Checks a ``to_plain`` list from the network field by field."""
        if not isinstance(plain, list) or len(plain) != 4:
            raise _bad("not a list of 4 fields")
        address, key, total, port = plain
        if not isinstance(address, str) or not 0 < len(address) <= 1024:
            raise _bad("address")
        if not isinstance(key, str) or len(key) != 32:
            raise _bad("key")
        try:
            raw = bytes.fromhex(key)
        except ValueError:
            raise _bad("key is not hex") from None
        if isinstance(total, bool) or not isinstance(total, int) or not 0 < total <= max_bytes:
            raise _bad(f"size {total!r} (limit {max_bytes})")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise _bad("port")
        return cls(address, raw, total, port)


def park_request(names: Sequence[str], min_bytes: int) -> Dict[str, Any]:
    """The RunGraph header field asking a task to park ``names`` of that size on."""
    return {"names": list(names), "min_bytes": int(min_bytes)}


def parse_park_request(plain: Any) -> Optional[Dict[str, Any]]:
    """The checked ``park`` field of a RunGraph request (None when absent)."""
    if plain is None:
        return None
    if not isinstance(plain, dict) or not isinstance(plain.get("names"), list) \
            or not all(isinstance(n, str) for n in plain["names"]):
        raise errors.InvalidArgumentError(None, None, "RunGraph: park needs a list of names")
    min_bytes = plain.get("min_bytes")
    if isinstance(min_bytes, bool) or not isinstance(min_bytes, int) \
            or min_bytes < DIRECT_PULL_MIN_BYTES:
        raise errors.InvalidArgumentError(
            None, None, f"RunGraph: park min_bytes must be an int of at least "
            f"{DIRECT_PULL_MIN_BYTES}, got {min_bytes!r}")
    return {"names": set(plain["names"]), "min_bytes": min_bytes}


def parked_results(address: str, parked: Any) -> Dict[str, ParkedTensor]:
    """The ``parked`` field of a RunGraph reply from the task at ``address``."""
    if not isinstance(parked, list):
        raise _bad("parked is not a list")
    out: Dict[str, ParkedTensor] = {}
    for entry in parked:
        if not isinstance(entry, list) or len(entry) != 4 or not isinstance(entry[0], str):
            raise _bad("a parked entry")
        out[entry[0]] = ParkedTensor.from_plain([address, *entry[1:]])
    return out


def pull(master_client: Any, client_for: Any, remote: Any, out: List[Any],
         timeout: float) -> None:
    """Fills ``out`` at the indices the RunStep reply's ``remote`` field names, each
    from the task holding it, or through the master when that task is out of reach.

    ``client_for(address)``: an ``RpcClient`` of that task with the master client's
    token and credentials.
    """
    if not isinstance(remote, list):
        raise _bad("remote is not a list")
    pulled: Dict[bytes, Any] = {}  # a tensor fetched twice in one step is parked once
    for entry in remote:
        if not isinstance(entry, list) or len(entry) != 2 or isinstance(entry[0], bool) \
                or not isinstance(entry[0], int) or not 0 <= entry[0] < len(out) \
                or out[entry[0]] is not None:
            raise _bad("a remote entry's index")
        parked = ParkedTensor.from_plain(entry[1])
        if parked.key in pulled:
            out[entry[0]] = pulled[parked.key]
            continue
        try:
            _, tensors = client_for(parked.address).redeem(parked.key, parked.total,
                                                           parked.port, timeout)
        except errors.UnavailableError as e:
            # Nothing was fetched (the task could not be reached), so it is still
            # parked there: the master, which reached that task, passes it on.
            logger.info("fetching a tensor from %s directly failed (%s); through the "
                        "master instead", parked.address, e.message)
            _, tensors = master_client.call("FetchParked", {"parked": parked.to_plain()}, [],
                                            timeout=timeout)
        if len(tensors) != 1:
            raise _bad(f"a parked message holds {len(tensors)} tensors, not 1")
        out[entry[0]] = pulled[parked.key] = tensors[0]


def relay(client_of_address: Callable[[str], Any], plain: Any, timeout: float) -> List[Any]:
    """The master's side of the fallback: fetches a parked tensor and returns it.

    ``client_of_address(address)``: the master's client of the task at that address,
    or None when no task of its cluster has it (then nothing is fetched: a client
    cannot make the master connect anywhere else).
    """
    parked = ParkedTensor.from_plain(plain)
    client = client_of_address(parked.address)
    if client is None:
        raise errors.InvalidArgumentError(
            None, None, f"FetchParked: {parked.address!r} is not a task of this cluster")
    _, tensors = client.redeem(parked.key, parked.total, parked.port, timeout)
    return tensors


__all__ = ["DIRECT_PULL_MIN_BYTES", "ParkedTensor", "park_request", "parse_park_request",
           "parked_results", "pull", "relay"]
