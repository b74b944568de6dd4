"""The balancer of `make cluster` (cluster/balancer.py): a node that refuses connections is
passed over; a node that takes a request and closes without answering has it sent on only when
it changes nothing."""

import asyncio
import os
import socket
import threading
from http.client import HTTPConnection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from cluster import ports
from cluster.balancer import BODY_LIMIT, serve


class Answering(BaseHTTPRequestHandler):
    def do_GET(self):
        self.answer()

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.answer()

    def answer(self):
        body = f"{self.command} from {self.headers['X-Forwarded-For']}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def answering_node() -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Answering)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def refusing_node() -> int:
    """A port that refuses connections and stays so: bound, never listening (a port merely found
    free could be taken meanwhile by another run's server, which would answer)."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    _HELD.append(holder)
    return holder.getsockname()[1]


_HELD: list[socket.socket] = []


def silent_node() -> int:
    """A node that takes each request and closes the connection without a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def hang_up():
        while True:
            connection, _ = listener.accept()
            connection.recv(65536)
            connection.close()

    threading.Thread(target=hang_up, daemon=True).start()
    return listener.getsockname()[1]


def balancer(nodes: list[int]) -> int:
    """The balancer in a thread of this process, on a free port below the ephemeral range,
    checked to be the one answering there."""

    def start(port: int) -> int:
        serving = threading.Thread(target=asyncio.run, args=(serve(port, nodes),), daemon=True)
        serving.start()
        ports.wait_until_ours(port, os.getpid, 10, alive=serving.is_alive)
        return port

    return ports.start_on_free_ports(start)


def call(port: int, method: str) -> tuple[int, bytes]:
    connection = HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, "/", body=b"{}" if method == "POST" else None)
    response = connection.getresponse()
    return response.status, response.read()


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_node_that_refuses_connections_is_passed_over(method):
    port = balancer([refusing_node(), answering_node()])

    answers = [call(port, method) for _ in range(4)]

    assert answers == [(200, f"{method} from 127.0.0.1".encode())] * 4


@pytest.mark.parametrize(
    ("method", "answer"), [("GET", (200, b"GET from 127.0.0.1")), ("POST", (502, None))]
)
def test_a_request_a_node_took_without_answering_goes_on_only_when_it_changes_nothing(
    method, answer
):
    port = balancer([silent_node(), answering_node()])  # (the first request goes to the first)

    status, body = call(port, method)

    assert status == answer[0]
    if status == 200:
        assert body == answer[1]
    else:  # (the write may have been done: the caller looks before trying again)
        assert b'"name": "node"' in body
    # (the silent node is left out a while: the next two go to the answering node, though one
    # of them was the silent node's turn)
    assert [call(port, method)[0] for _ in range(2)] == [200, 200]


def test_a_caller_that_sends_nothing_is_let_go(monkeypatch):
    monkeypatch.setattr("cluster.balancer.HEAD_SECONDS", 0.2)
    port = balancer([answering_node()])

    with socket.create_connection(("127.0.0.1", port), timeout=5) as idle:
        answer = idle.recv(65536)

    assert answer.startswith(b"HTTP/1.1 408 ")


@pytest.mark.parametrize(
    ("lengths", "status"),
    [(["2", "2"], 400), (["\u00b2"], 400), (["-1"], 400), ([str(BODY_LIMIT + 1)], 413)],
)
def test_a_body_s_length_is_one_number_within_the_bound(lengths, status):
    port = balancer([answering_node()])
    head = "".join(f"Content-Length: {length}\r\n" for length in lengths)

    with socket.create_connection(("127.0.0.1", port), timeout=5) as caller:
        caller.sendall(f"POST / HTTP/1.1\r\nHost: x\r\n{head}\r\n{{}}".encode("latin-1"))
        answer = caller.recv(65536)

    assert answer.startswith(f"HTTP/1.1 {status} ".encode())
