#!/usr/bin/python3
"""Writes images that try to break an image pipeline, for the hostile-image tests.

    Tools/make-hostile-images.py OUT

OUT/truncated.jpg, truncated.png   a real photo cut in half
OUT/empty.png                      zero bytes
OUT/text.jpg                       a text file named like a photo
OUT/bomb.png                       a valid PNG header claiming 50,000 x 50,000 pixels (7.5 GB decoded)
OUT/cmyk.jpg                       a CMYK JPEG
OUT/grey16.png                     16-bit greyscale
OUT/grey.png, grey-alpha.png, rgba.png
OUT/exif-rotated.jpg               a JPEG whose EXIF says "rotate 90 degrees"
OUT/one-pixel.png                  1 x 1

Needs Debian's python3-pil and python3-numpy (Tools/setup installs them).
"""
import io
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image


def photo():
    """A 320 x 120 picture of a digit window: dark wheels with light digits."""
    y, x = np.mgrid[0:120, 0:320]
    pixels = np.stack([(x * 7 + y) % 256, (y * 3) % 256, (x ^ y) % 256], axis=-1).astype(np.uint8)
    return Image.fromarray(pixels, "RGB")


def encoded(image, format, **options):
    buffer = io.BytesIO()
    image.save(buffer, format, **options)
    return buffer.getvalue()


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def main(out):
    os.makedirs(out, exist_ok=True)
    picture = photo()
    files = {
        "truncated.jpg": encoded(picture, "JPEG", quality=90)[:2000],
        "truncated.png": encoded(picture, "PNG")[:3000],
        "empty.png": b"",
        "text.jpg": b"This is not a photo of a meter.\n",
        "bomb.png": b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 50_000, 50_000, 8, 2, 0, 0, 0))
        + png_chunk(b"IDAT", zlib.compress(b"\x00" * 150_001))
        + png_chunk(b"IEND", b""),
        "cmyk.jpg": encoded(picture.convert("CMYK"), "JPEG"),
        "grey16.png": encoded(Image.fromarray((np.asarray(picture.convert("L"), np.uint16) * 257), "I;16"), "PNG"),
        "grey.png": encoded(picture.convert("L"), "PNG"),
        "grey-alpha.png": encoded(picture.convert("LA"), "PNG"),
        "rgba.png": encoded(picture.convert("RGBA"), "PNG"),
        "one-pixel.png": encoded(Image.new("RGB", (1, 1), (200, 30, 30)), "PNG"),
    }
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90 degrees clockwise to show.
    files["exif-rotated.jpg"] = encoded(picture, "JPEG", exif=exif.tobytes())
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as file:
            file.write(data)


if __name__ == "__main__":
    main(sys.argv[1])
