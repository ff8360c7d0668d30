#!/usr/bin/env python3
"""A Photometer identify plugin in Python: recognises a photo that is byte-for-byte one of the
references (by SHA-256), the way a duplicate-photo check does.

It is the worked example of docs/plugins.md: the handshake, the requests, errors and the end of
the conversation, with Google's protobuf package and the module generated from photometer.proto.
"""
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../clients/python"))

from photometer import frames, pb  # noqa: E402

PROTOCOL_MAJOR = 1
# 1.2: the host names the household's references and, once this plugin has kept them, sends the
# name alone (docs/protocol.md, "Host -> plugin").
PROTOCOL_MINOR = 2
# Reference lists kept by the name the host gave them, as {image SHA-256: meter}; the last few.
kept_sets = {}
KEPT_SETS = 4


def hello_reply(host_hello):
    return pb.Hello(
        protocol_major=PROTOCOL_MAJOR,
        protocol_minor=PROTOCOL_MINOR,
        name="exact-match-python",
        version="1.0.0",
        roles=[pb.ROLE_IDENTIFY],
        details={"engine": "sha256", "python": sys.version.split()[0]},
    )


def references_of(request):
    """The request's references as {image SHA-256: meters}, or None for a set this plugin does not keep."""
    name = request.reference_set
    if name and not request.references:
        if name not in kept_sets:
            return None
        kept_sets[name] = kept_sets.pop(name)  # the most recently used goes last
        return kept_sets[name]
    meters = {}
    for reference in request.references:
        known = reference.sha256 or hashlib.sha256(reference.image.data).hexdigest()
        meters.setdefault(known, []).append(reference.meter)
    if name:
        kept_sets.pop(name, None)
        kept_sets[name] = meters
        while len(kept_sets) > KEPT_SETS:
            kept_sets.pop(next(iter(kept_sets)))
    return meters


def identify(request):
    meters = references_of(request)
    if meters is None:
        return pb.PluginCandidates(unknown_reference_set=True)
    digest = hashlib.sha256(request.image.data).hexdigest()
    return pb.PluginCandidates(
        candidates=[pb.Candidate(meter=meter, score=1.0, confidence=1.0) for meter in meters.get(digest, [])])


def error(code, message):
    return pb.Error(code=code, message=message)


def answer(envelope, handshake_done):
    """The reply to one envelope, and whether the conversation goes on."""
    reply = pb.Envelope(request_id=envelope.request_id)
    kind = envelope.WhichOneof("body")
    if not handshake_done:
        if kind != "hello":
            reply.error.CopyFrom(error(pb.ERROR_CODE_HANDSHAKE_REQUIRED, f"send Hello first, not {kind}"))
        elif envelope.hello.protocol_major != PROTOCOL_MAJOR:
            reply.error.CopyFrom(error(
                pb.ERROR_CODE_UNSUPPORTED_VERSION,
                f"the host speaks protocol {envelope.hello.protocol_major}.{envelope.hello.protocol_minor}, "
                f"exact-match-python speaks {PROTOCOL_MAJOR}.{PROTOCOL_MINOR}",
            ))
            return reply, False
        else:
            reply.hello.CopyFrom(hello_reply(envelope.hello))
        return reply, True
    if kind == "identify":
        reply.plugin_candidates.CopyFrom(identify(envelope.identify))
    elif kind == "ping":
        reply.pong.payload = envelope.ping.payload
    elif kind == "shutdown":
        reply.shutdown_complete.SetInParent()
        return reply, False
    elif kind == "cancel":
        return None, True  # Requests are answered one at a time, so there is nothing to cancel.
    else:
        reply.error.CopyFrom(error(pb.ERROR_CODE_UNKNOWN_MESSAGE, f"this plugin does not take {kind}"))
    return reply, True


def main():
    # Frames only on standard output: keep a copy of it for them and send stray prints to stderr.
    output = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    source = sys.stdin.buffer
    handshake_done = False
    while True:
        try:
            payload = frames.read_frame(source)
        except frames.FrameError as failure:
            print(f"exact-match-python: {failure}", file=sys.stderr)
            return 1
        if payload is None:
            return 0
        envelope = pb.Envelope()
        try:
            envelope.ParseFromString(payload)
        except Exception:  # noqa: BLE001 - any parse failure is the peer's bad frame
            reply = pb.Envelope(error=error(pb.ERROR_CODE_INVALID_REQUEST, "undecodable frame"))
            output.write(frames.encode(reply))
            output.flush()
            continue
        reply, going_on = answer(envelope, handshake_done)
        handshake_done = handshake_done or (reply is not None and reply.WhichOneof("body") == "hello")
        if reply is not None:
            output.write(frames.encode(reply))
            output.flush()
        if not going_on:
            return 0


if __name__ == "__main__":
    sys.exit(main())
