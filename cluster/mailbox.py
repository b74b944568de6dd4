"""The cluster's mail server: takes every message the mail workers send over SMTP and keeps it
as a file in a folder (`<n>.eml`, its envelope's recipients in an `X-Envelope-To` line first),
where `make cluster-test` counts what was sent and whether anything was sent twice.

    python -m cluster.mailbox --port PORT --folder FOLDER
"""

import argparse
import asyncio
import itertools
from pathlib import Path

LARGEST = 10 * 1024 * 1024


class Mailbox:
    def __init__(self, folder: Path):
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.numbers = itertools.count(len(list(folder.glob("*.eml"))) + 1)

    async def session(self, reader, writer) -> None:
        def answer(line: str) -> None:
            writer.write(f"{line}\r\n".encode())

        answer("220 cluster mailbox")
        recipients: list[str] = []
        try:
            while line := await reader.readline():
                verb = line.decode("latin-1").strip().split(" ", 1)[0].upper()
                if verb in ("EHLO", "HELO"):
                    answer("250-cluster mailbox" if verb == "EHLO" else "250 cluster mailbox")
                    if verb == "EHLO":
                        answer(f"250 SIZE {LARGEST}")
                elif verb == "MAIL":
                    recipients = []
                    answer("250 OK")
                elif verb == "RCPT":
                    recipients.append(line.decode("latin-1").split(":", 1)[1].strip(" <>\r\n"))
                    answer("250 OK")
                elif verb == "DATA":
                    answer("354 End data with <CR><LF>.<CR><LF>")
                    await writer.drain()
                    self.keep(recipients, await read_data(reader))
                    answer("250 OK kept")
                elif verb == "QUIT":
                    answer("221 Bye")
                    break
                else:  # RSET, NOOP and the rest
                    answer("250 OK")
                await writer.drain()
        finally:
            writer.close()

    def keep(self, recipients: list[str], message: bytes) -> None:
        path = self.folder / f"{next(self.numbers)}.eml"
        partial = path.with_suffix(".part")
        partial.write_bytes(f"X-Envelope-To: {', '.join(recipients)}\r\n".encode() + message)
        partial.rename(path)  # (a reader never sees half a message)


async def read_data(reader) -> bytes:
    lines = []
    while (line := await reader.readline()) not in (b".\r\n", b".\n", b""):
        lines.append(line[1:] if line.startswith(b"..") else line)
    return b"".join(lines)


async def serve(port: int, folder: Path) -> None:
    mailbox = Mailbox(folder)
    server = await asyncio.start_server(mailbox.session, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--folder", type=Path, required=True)
    arguments = parser.parse_args()
    asyncio.run(serve(arguments.port, arguments.folder))
