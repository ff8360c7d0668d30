#!/usr/bin/env python3
"""A read plugin that records in which format its crops came, for the host's crop tests.

    crop_format_plugin.py LOG MINOR

It says it speaks protocol 1.MINOR. Each read appends the crop's format to LOG (bmp, png, jpeg or
other, by its first bytes) and answers 42, sure.
"""
import sys

from fixture_plugin import pb, serve


def format_of(data):
    if data[:2] == b"BM":
        return "bmp"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    return "other"


def main(log, minor):
    def answer(kind, envelope, reply, send):
        if kind != "read":
            return False
        with open(log, "a") as file:
            file.write(format_of(envelope.read.image.data) + "\n")
        reply.engine_reading.text = "42"
        reply.engine_reading.confidence = 0.99
        return True

    return serve("crop-format", [pb.ROLE_READ], answer, minor=minor)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
