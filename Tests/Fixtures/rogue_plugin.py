#!/usr/bin/env python3
"""A read plugin that breaks the protocol on purpose, for the host's fault tests.

    rogue_plugin.py twice|wrong-id|wrong-kind

Each read is answered with a counter as its text ("00001", "00002", ...), and:
  twice       the answer is sent twice
  wrong-id    the answer carries a request id the host never used (and the real one never comes)
  wrong-kind  a read is answered with an identify answer (PluginCandidates)
"""
import sys

from fixture_plugin import pb, serve


def main(mode):
    reads = 0

    def answer(kind, envelope, reply, send):
        nonlocal reads
        if kind != "read":
            return False
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
        return True

    return serve("rogue", [pb.ROLE_READ], answer)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
