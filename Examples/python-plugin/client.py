#!/usr/bin/env python3
"""A tiny Photometer client in Python: starts the host, shakes hands, sends ten pings at once and
prints the replies, with the client module in clients/python.

    python3 client.py PATH/TO/photometer-host [--plugins PLUGINS.json] [--db FILE]
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../clients/python"))

from photometer import Client, pb  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    with Client.launch(argv[1], *argv[2:], name="python-client") as host:
        print(f"hello: {host.hello.name} {host.hello.version}, protocol "
              f"{host.hello.protocol_major}.{host.hello.protocol_minor}")
        started = time.perf_counter()
        futures = [host.submit(ping=pb.Ping(payload=f"python {n}".encode()))
                   for n in range(10)]
        payloads = [future.result().payload.decode() for future in futures]
        elapsed = (time.perf_counter() - started) * 1000
        print(f"pongs: {len(payloads)}, in order: {payloads == [f'python {n}' for n in range(10)]}, {elapsed:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
