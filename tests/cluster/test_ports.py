"""The ports the tests' servers take (cluster/ports.py): below the kernel's ephemeral range, and
a start is checked to be the process listening on its port: one that finds its port taken fails
at once with its log and is started again on another."""

import os
import random
import socket
import subprocess
import sys
import time

import pytest

from cluster import ports


def listening(port: int) -> socket.socket:
    held = socket.socket()
    held.bind(("127.0.0.1", port))
    held.listen()
    return held


def http_server(port: int, log) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip


def test_free_ports_lie_below_the_ephemeral_range_and_are_free():
    first = ports.free_ports(8)
    assert first >= ports.LOWEST and first + 8 <= ports.ephemeral()[0]
    for port in range(first, first + 8):
        listening(port).close()  # (each could be taken)


def test_the_holder_of_a_listening_port_is_known():
    held = listening(ports.free_ports())
    try:
        assert ports.holders(held.getsockname()[1]) == {os.getpid()}
    finally:
        held.close()


def test_a_server_whose_port_another_holds_fails_at_once(tmp_path):
    held = listening(ports.free_ports())
    port = held.getsockname()[1]
    log = tmp_path / "server.log"
    try:
        with open(log, "wb") as output:
            server = http_server(port, output)
        started = time.monotonic()
        # (another holds the port: PortTaken; or the server stopped, "Address already in use"
        # in the log it fails with)
        with pytest.raises(RuntimeError, match=r"held by|Address already in use"):
            ports.wait_until_ours(
                port, lambda: server.pid, 30, alive=lambda: server.poll() is None,
                log=log.read_text,
            )  # fmt: skip
        assert time.monotonic() - started < 10
    finally:
        held.close()
        server.kill()
        server.wait()


def test_another_process_answering_on_the_port_is_not_taken_for_ours():
    held = listening(ports.free_ports())
    try:
        # (a process that is alive, but holds no socket on the port: what answers is another)
        with pytest.raises(ports.PortTaken):
            ports.wait_until_ours(
                held.getsockname()[1], lambda: os.getppid(), 5, alive=lambda: True
            )
    finally:
        held.close()


def test_a_start_that_finds_its_port_taken_is_tried_again_on_another(tmp_path, monkeypatch):
    taken = listening(ports.free_ports())
    offered = iter([taken.getsockname()[1]])
    free = ports.free_ports
    monkeypatch.setattr(ports, "free_ports", lambda count=1: next(offered, None) or free(count))
    servers = []

    def start(port: int) -> int:
        log = tmp_path / f"server-{port}.log"
        with open(log, "wb") as output:
            server = http_server(port, output)
        servers.append(server)
        ports.wait_until_ours(
            port, lambda: server.pid, 30, alive=lambda: server.poll() is None, log=log.read_text
        )
        return port

    try:
        port = ports.start_on_free_ports(start)
        assert port != taken.getsockname()[1]
        assert ports.holders(port) == {servers[-1].pid}
    finally:
        taken.close()
        for server in servers:
            server.kill()
            server.wait()


def test_two_runs_seeded_alike_do_not_pick_the_same_ports():
    """A test may seed the random module (the bench's statements do); two runs side by side
    then draw alike, and must still not reach for the same ports at once."""
    state = random.getstate()
    try:
        random.seed(0)
        first = [ports.free_ports() for _ in range(5)]
        random.seed(0)
        second = [ports.free_ports() for _ in range(5)]
    finally:
        random.setstate(state)
    assert first != second
