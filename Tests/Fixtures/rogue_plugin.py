#!/usr/bin/env python3
"""A read plugin that breaks the protocol on purpose, for the host's fault tests.

    rogue_plugin.py twice|wrong-id|wrong-kind

Each read is answered with a counter as its text ("00001", "00002", ...), and:
  twice       the answer is sent twice
  wrong-id    the answer carries a request id the host never used (and the real one never comes)
  wrong-kind  a read is answered with an identify answer (PluginCandidates)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../clients/python"))

from photometer import frames, pb  # noqa: E402


def main(mode):
    output = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    reads = 0

    def send(envelope):
        output.write(frames.encode(envelope))
        output.flush()

    while True:
        payload = frames.read_frame(sys.stdin.buffer)
        if payload is None:
            return 0
        envelope = pb.Envelope()
        envelope.ParseFromString(payload)
        kind = envelope.WhichOneof("body")
        reply = pb.Envelope(request_id=envelope.request_id)
        if kind == "hello":
            reply.hello.protocol_major = 1
            reply.hello.name = "rogue"
            reply.hello.version = "1.0"
            reply.hello.roles.append(pb.ROLE_READ)
        elif kind == "read":
            reads += 1
            if mode == "wrong-kind":
                reply.plugin_candidates.candidates.add(meter="not a reading", score=1, confidence=1)
            else:
                reply.engine_reading.text = f"{reads:05d}"
                reply.engine_reading.confidence = 0.5
            if mode == "wrong-id":
                reply.request_id = envelope.request_id + 1_000_000
            if mode == "twice":
                send(reply)
        elif kind == "ping":
            reply.pong.payload = envelope.ping.payload
        elif kind == "shutdown":
            reply.shutdown_complete.SetInParent()
            send(reply)
            return 0
        elif kind == "cancel":
            continue
        else:
            reply.error.code = pb.ERROR_CODE_UNKNOWN_MESSAGE
            reply.error.message = f"rogue does not take {kind}"
        send(reply)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
