#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A small HTTP/1.1 server for the test network: answers every GET with 200 and a short body.

  http_server.py ADDRESS PORT

Python's http.server listens with a backlog of 5 and speaks HTTP/1.0, so under a few
concurrent clients it drops connections and the clients stall for a second per retry;
this one uses asyncio, a deep backlog and keep-alive, and runs until killed.
"""
import asyncio
import sys

BODY = b"fizzbuzzfib\n"
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s"
            % (len(BODY), BODY))


async def serve_connection(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            writer.write(RESPONSE)
            await writer.drain()
            if b"connection: close" in head.lower():
                break
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    writer.close()


async def main(address, port):
    server = await asyncio.start_server(serve_connection, address, port, backlog=4096)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
