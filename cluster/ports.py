"""Ports for the servers the tests, `make bench` and `make cluster` start on loopback, and the
check that the server answering on one is the one just started.

A port is taken below the kernel's ephemeral range (from which every outgoing connection takes
its own: a port found free there may be some connection's a moment later), at random, so that
two runs side by side rarely try the same one; and since one may still, a start is checked: the
process must be alive and hold the socket listening on its port (read from /proc on Linux), or
the start fails at once with its log, or is tried again on other ports (`start_on_free_ports`)."""

import os
import random
import socket
import time
from pathlib import Path

# Ports are picked from the system's entropy, never from the random module's state, which a
# test may seed: two runs side by side, seeded alike, would pick the same ports at once.
_PICK = random.SystemRandom()
# Below this are the ports of services people run (and the privileged ones).
LOWEST = 20000
# Where /proc does not say (not Linux): the range IANA sets aside.
EPHEMERAL_DEFAULT = (49152, 65535)


class PortTaken(RuntimeError):
    """Another process answers on the port a server was started on."""


def ephemeral() -> tuple[int, int]:
    """The kernel's ephemeral ports (first, last)."""
    try:
        first, last = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(first), int(last)
    except (OSError, ValueError):
        return EPHEMERAL_DEFAULT


def free_ports(count: int = 1) -> int:
    """The first of `count` consecutive ports below the ephemeral range that nothing listens
    on now, picked at random."""
    first_ephemeral = ephemeral()[0]
    highest = max(first_ephemeral, 1024) - count
    lowest = LOWEST if highest - LOWEST > 1000 else 1024
    for _ in range(500):
        first = _PICK.randint(lowest, highest)
        if all(_free(first + n) for n in range(count)):
            return first
    raise RuntimeError(f"no {count} free consecutive ports below {first_ephemeral}")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _listening_inodes(port: int) -> set[str] | None:
    """The inodes of the sockets listening on `port` (None: /proc does not say)."""
    found, readable = set(), False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        readable = True
        for line in lines:
            fields = line.split()
            # local address "ADDR:PORT" in hex, state 0A is LISTEN, the inode is field 9
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                found.add(fields[9])
    return found if readable else None


def holders(port: int) -> set[int] | None:
    """The processes holding a socket that listens on `port` (None: /proc does not say)."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in wanted for fd in (entry / "fd").iterdir()):
                pids.add(int(entry.name))
        except OSError:  # (gone meanwhile, or not ours to read)
            continue
    return pids


def wait_until_ours(port: int, pid, seconds: float, *, alive, log=lambda: "") -> None:
    """Until the process `pid()` (a function: a server may say its pid only once started)
    listens on `port`, while `alive()`; raises RuntimeError with `log()` if it stops first or
    never listens in `seconds`, PortTaken if another process answers there."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError(f"the server on port {port} stopped at start:\n{log()[-3000:]}")
        if answers(port):
            ours = pid()
            holding = holders(port)
            if holding is None or (ours is not None and ours in holding):
                return
            if holding and ours is not None:
                raise PortTaken(f"port {port} is held by {sorted(holding)}, not by {ours}")
        time.sleep(0.1)
    raise RuntimeError(
        f"nothing of ours answers on port {port} after {seconds} s:\n{log()[-3000:]}"
    )


def start_on_free_ports(start, count: int = 1, attempts: int = 3):
    """`start(first_port)` on `count` free consecutive ports; tried again on others when it
    finds one taken (PortTaken, or a server that stopped as it started, as one does that cannot
    bind). What `start` returns."""
    for attempt in range(attempts):
        try:
            return start(free_ports(count))
        except (PortTaken, RuntimeError):
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
