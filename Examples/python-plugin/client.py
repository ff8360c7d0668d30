#!/usr/bin/env python3
"""A tiny Photometer client in Python: starts the host, sends Hello and Ping, prints the replies.

    python3 client.py PATH/TO/photometer-host [--plugins PLUGINS.json]
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import photometer_frames as frames  # noqa: E402
import photometer_pb2 as pb  # noqa: E402


def call(host, envelope):
    host.stdin.write(frames.encode(envelope))
    host.stdin.flush()
    reply = pb.Envelope()
    reply.ParseFromString(frames.read_frame(host.stdout))
    return reply


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    host = subprocess.Popen(argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    hello = pb.Hello(protocol_major=1, protocol_minor=0, name="python-client", version="1.0.0")
    reply = call(host, pb.Envelope(request_id=1, hello=hello))
    print(f"hello: {reply.hello.name} {reply.hello.version}, protocol "
          f"{reply.hello.protocol_major}.{reply.hello.protocol_minor}")
    started = time.perf_counter()
    reply = call(host, pb.Envelope(request_id=2, ping=pb.Ping(payload=b"python")))
    elapsed = (time.perf_counter() - started) * 1000
    print(f"pong: request {reply.request_id}, payload {reply.pong.payload.decode()}, {elapsed:.2f} ms")
    host.stdin.close()
    return host.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
