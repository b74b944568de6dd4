"""The small balancer in front of the cluster's application nodes: each request goes to the next
node in turn, on a connection of its own (`Connection: close` both ways), with the caller's
address appended to `X-Forwarded-For` (the nodes run with PROXY_COUNT=1).

A node that refuses the connection is left out for a few seconds and the request goes to the
next one; a node that closes the connection without answering had the request, so only a
request that changes nothing (GET, HEAD, OPTIONS) is sent again, and any other is answered 502
(it may or may not have been done: the caller looks before trying again), as nginx does by
default. Bodies are read whole first (Content-Length; a chunked one is refused with 411).

    python -m cluster.balancer --port PORT --nodes PORT,PORT...
"""

import argparse
import asyncio
import itertools
import json
import re
import time

HEAD_LIMIT = 64 * 1024
BODY_LIMIT = 256 * 1024 * 1024
LEFT_OUT_SECONDS = 3.0
CONNECT_SECONDS = 2.0
HEAD_SECONDS = 30.0
ANSWER_SECONDS = 60.0
SAFE = {"GET", "HEAD", "OPTIONS"}
LENGTH = re.compile(r"[0-9]{1,12}", re.ASCII)


class Refused(Exception):
    def __init__(self, status: int, reason: str):
        self.status, self.reason = status, reason


class Balancer:
    def __init__(self, nodes: list[int]):
        self.nodes = nodes
        self.turns = itertools.cycle(range(len(nodes)))
        self.left_out_until = dict.fromkeys(nodes, 0.0)

    def order(self) -> list[int]:
        """Every node once, starting with the next in turn; those left out last."""
        start = next(self.turns)
        ordered = self.nodes[start:] + self.nodes[:start]
        now = time.monotonic()
        return sorted(ordered, key=lambda node: self.left_out_until[node] > now)

    async def session(self, reader, writer) -> None:
        try:
            method, request = await read_request(reader, writer)
            await self.forward(method, request, writer)
        except Refused as refusal:
            writer.write(envelope(refusal.status, refusal.reason))
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            try:
                await writer.drain()
                writer.close()
            except ConnectionError:
                pass

    async def forward(self, method: str, request: bytes, writer) -> None:
        for node in self.order():
            try:
                node_reader, node_writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", node), CONNECT_SECONDS
                )
            except (OSError, TimeoutError):
                self.left_out_until[node] = time.monotonic() + LEFT_OUT_SECONDS
                continue
            try:
                node_writer.write(request)
                await node_writer.drain()
                first = await asyncio.wait_for(node_reader.read(65536), ANSWER_SECONDS)
            except TimeoutError:
                node_writer.close()
                raise Refused(504, "Gateway Timeout") from None
            except ConnectionError:
                first = b""
            if not first:
                node_writer.close()
                self.left_out_until[node] = time.monotonic() + LEFT_OUT_SECONDS
                if method in SAFE:
                    continue
                raise Refused(502, "Bad Gateway")
            try:
                writer.write(first)
                while chunk := await asyncio.wait_for(node_reader.read(65536), ANSWER_SECONDS):
                    writer.write(chunk)
                    await writer.drain()
            finally:  # (the caller gone, or the node stalled: the node's connection goes too)
                node_writer.close()
            return
        raise Refused(502, "Bad Gateway")


async def read_request(reader, writer) -> tuple[str, bytes]:
    """The request's method, and the request as the node gets it."""
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_SECONDS)
    except asyncio.LimitOverrunError:
        raise Refused(431, "Request Header Fields Too Large") from None
    except TimeoutError:  # (a caller that opens a connection and sends nothing holds no node)
        raise Refused(408, "Request Timeout") from None
    request_line, *lines = head.decode("latin-1").split("\r\n")[:-2]
    method = request_line.split(" ", 1)[0]
    headers, length, seen_length, forwarded = [], 0, False, []
    for line in lines:
        name, _, value = line.partition(":")
        lowered = name.strip().lower()
        if lowered == "transfer-encoding":
            raise Refused(411, "Length Required")
        if lowered == "content-length":
            # (one length, in ASCII digits: two that disagree would split the body differently
            # here and on the node)
            if seen_length or not LENGTH.fullmatch(value.strip()):
                raise Refused(400, "Bad Request")
            seen_length, length = True, int(value)
            if length > BODY_LIMIT:
                raise Refused(413, "Content Too Large")
        if lowered == "x-forwarded-for":
            forwarded.append(value.strip())
            continue
        if lowered not in ("connection", "keep-alive", "proxy-connection"):
            headers.append(line)
    peer = writer.get_extra_info("peername")
    forwarded.append(peer[0] if peer else "unknown")
    headers += [f"X-Forwarded-For: {', '.join(forwarded)}", "Connection: close"]
    try:
        body = await asyncio.wait_for(reader.readexactly(length), HEAD_SECONDS) if length else b""
    except TimeoutError:
        raise Refused(408, "Request Timeout") from None
    head = "\r\n".join([request_line, *headers, "", ""]).encode("latin-1")
    return method, head + body


def envelope(status: int, reason: str) -> bytes:
    body = json.dumps(
        {"status": "error", "errors": [{"location": "url", "name": "node", "description": reason}]}
    ).encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


async def serve(port: int, nodes: list[int]) -> None:
    balancer = Balancer(nodes)
    server = await asyncio.start_server(balancer.session, "127.0.0.1", port, limit=HEAD_LIMIT)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--nodes", required=True, help="the nodes' ports, comma-separated")
    arguments = parser.parse_args()
    asyncio.run(serve(arguments.port, [int(port) for port in arguments.nodes.split(",")]))
