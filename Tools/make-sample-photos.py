#!/usr/bin/env python3
"""Writes small synthetic meter photos (PNG) for the demo: a meter body of its own colour on a wall,
with a dark digit window. Standard library only.

    python3 Tools/make-sample-photos.py OUTPUT_FOLDER
"""
import os
import random
import struct
import sys
import zlib

WIDTH, HEIGHT = 320, 240

METERS = {
    "gas": (222, 190, 60),
    "water": (40, 90, 200),
    "electricity": (150, 150, 150),
    "unknown": (60, 160, 80),
}


def png(pixels):
    rows = b"".join(b"\x00" + bytes(row) for row in pixels)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def photo(colour, seed):
    noise = random.Random(seed)
    pixels = []
    for y in range(HEIGHT):
        row = []
        for x in range(WIDTH):
            if 60 <= x < 260 and 40 <= y < 200:
                base = colour
                if 90 <= x < 230 and 90 <= y < 130:
                    base = (25, 25, 25) if (x - 90) % 20 < 16 else (200, 200, 200)
            else:
                base = (235, 232, 225)
            row.extend(max(0, min(255, value + noise.randint(-6, 6))) for value in base)
        pixels.append(row)
    return png(pixels)


def main(folder):
    os.makedirs(folder, exist_ok=True)
    for index, (name, colour) in enumerate(METERS.items()):
        with open(os.path.join(folder, f"{name}.png"), "wb") as file:
            file.write(photo(colour, index))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(1)
    sys.exit(main(sys.argv[1]))
