"""The frame loop the test fixtures' plugins share: the handshake, Ping, Shutdown and Cancel, and
an error for any request the fixture does not answer."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../clients/python"))

from photometer import frames, pb  # noqa: E402,F401 (pb for the fixtures)


def serve(name, roles, answer, minor=1):
    """Serves frames on standard input and output until the input ends or Shutdown comes.

    `answer(kind, envelope, reply, send)` fills `reply` to a request of `kind` and returns True,
    or returns False for one it does not take; `send` writes a frame at once."""
    output = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)

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
            reply.hello.protocol_minor = minor
            reply.hello.name = name
            reply.hello.version = "1.0"
            reply.hello.roles.extend(roles)
        elif kind == "ping":
            reply.pong.payload = envelope.ping.payload
        elif kind == "shutdown":
            reply.shutdown_complete.SetInParent()
            send(reply)
            return 0
        elif kind == "cancel":
            continue
        elif not answer(kind, envelope, reply, send):
            reply.error.code = pb.ERROR_CODE_UNKNOWN_MESSAGE
            reply.error.message = f"{name} does not take {kind}"
        send(reply)
