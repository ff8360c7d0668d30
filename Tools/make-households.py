#!/usr/bin/python3
"""Renders a synthetic household of meters for the identify benchmark and the demo.

Each meter is a body with a counter window, a brand name, small print, a barcode and a serial
number on a wall. Its reference photo is taken head-on in good light; its query photos later, with
another reading on the counter and another white balance, exposure, scale, rotation, crop, blur,
noise and JPEG quality. Unknown meters are rendered the same way but never registered.

With `--rough` the walls are textured from a small shared pool (so unknown meters share walls
with known ones, as in a real home) and later photos may be taken from the side (up to 40
degrees out of the wall's plane), across a cable, with a lamp's glare. `--hard` adds to that what
the issue lists of real photos: up to 45 degrees from the side, a hand in front, motion blur and
night noise. Both are fitting households for Tools/calibrate-identify.py, so that its fit has
seen right meters photographed as badly as users do.

    Tools/make-households.py OUT --set varied|lookalike --meters 100 --queries 2 --unknown 50 --seed 1 [--rough [--hard]]

OUT/meters.csv     name,reference,roi_x,roi_y,roi_width,roi_height,digits
OUT/queries.csv    file,meter           (meter empty for an unknown meter)
OUT/references/*.jpg, OUT/queries/*.jpg

Needs Debian's python3-pil and python3-numpy and fonts-dejavu-core (Tools/setup installs them).
"""
import argparse
import colorsys
import csv
import functools
import io
import math
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = "/usr/share/fonts/truetype/dejavu"
WIDTH, HEIGHT = 640, 480
SYLLABLES = ["ka", "ro", "mi", "ten", "sa", "vo", "lux", "ga", "zen", "tri", "ma", "qu", "ex", "on", "dia", "hel",
             "nor", "pi", "stro", "wat", "el", "co", "fer", "io", "bra", "den", "ix", "ul"]


def font(name, size):
    return ImageFont.truetype(os.path.join(FONTS, name), size)


def brand(rng):
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).upper()


def body_colour(rng, kind):
    if kind == "lookalike":
        # Greys and beiges: low saturation, warm or neutral, light.
        hue = rng.uniform(0.08, 0.16)
        saturation = rng.uniform(0.0, 0.18)
        value = rng.uniform(0.62, 0.88)
    else:
        hue = rng.random()
        saturation = rng.uniform(0.35, 0.9)
        value = rng.uniform(0.45, 0.95)
    return tuple(int(255 * c) for c in colorsys.hsv_to_rgb(hue, saturation, value))


class Meter:
    """Everything that makes one meter itself, drawn from its seed."""

    def __init__(self, seed, kind, rough=False):
        rng = random.Random(seed)
        self.name = f"{kind}-{seed:05d}"
        self.colour = body_colour(rng, kind)
        self.wall = tuple(int(c) for c in np.clip(np.array(body_colour(rng, "lookalike")) * rng.uniform(0.8, 1.1), 0, 255))
        self.width = rng.randint(300, 380)
        self.height = rng.randint(340, 420)
        self.radius = rng.randint(6, 40)
        self.brand = brand(rng)
        self.brand_size = rng.randint(26, 40)
        self.digits = rng.randint(5, 8)
        self.red_digits = rng.randint(0, 3)
        self.window_y = rng.randint(90, 150)
        self.print_lines = [" ".join(brand(rng).lower() for _ in range(rng.randint(3, 6))) for _ in range(rng.randint(3, 5))]
        self.serial = f"{rng.randint(10, 99)}-{rng.randint(100000, 999999)}"
        self.bars = [rng.randint(1, 4) for _ in range(rng.randint(28, 40))]
        self.sticker = rng.random() < 0.5
        self.sticker_colour = body_colour(rng, "varied")
        self.screws = rng.random() < 0.6
        # Layout: meters of one colour still differ in where things are.
        self.window_x = rng.uniform(0.1, 0.9)
        self.brand_at_bottom = rng.random() < 0.3
        self.barcode_right = rng.random() < 0.5
        self.print_indent = rng.randint(12, 60)
        self.dial = rng.random() < 0.5
        self.dial_place = (rng.uniform(0.2, 0.8), rng.uniform(0.55, 0.75), rng.randint(18, 34))
        self.texture = rng.randrange(len(TEXTURES)) if rough else None

    def draw(self, reading):
        """The meter head-on, centred on its wall, and the counter window's rectangle."""
        image = Image.new("RGB", (WIDTH, HEIGHT), self.wall)
        if self.texture is not None:
            pattern = texture(self.texture)[:, :, None]
            image = Image.fromarray(np.clip(np.array(self.wall)[None, None, :] * pattern, 0, 255).astype(np.uint8))
        draw = ImageDraw.Draw(image)
        left, top = (WIDTH - self.width) // 2, (HEIGHT - self.height) // 2
        draw.rounded_rectangle([left, top, left + self.width, top + self.height], self.radius, fill=self.colour,
                               outline=tuple(int(c * 0.6) for c in self.colour), width=3)
        brand_y = top + self.height - self.brand_size - 22 if self.brand_at_bottom else top + 18
        draw.text((left + 20, brand_y), self.brand, fill=(20, 20, 30), font=font("DejaVuSans-Bold.ttf", self.brand_size))
        # The counter: dark wheels with light digits, the last ones red.
        digit_font = font("DejaVuSansMono-Bold.ttf", 34)
        cell = 30
        window_left = left + 10 + int((self.width - cell * self.digits - 32) * self.window_x)
        window = [window_left, top + self.window_y, window_left + cell * self.digits + 12, top + self.window_y + 52]
        draw.rectangle(window, fill=(235, 235, 235), outline=(40, 40, 40), width=2)
        for index, digit in enumerate(reading):
            x = window[0] + 6 + index * cell
            red = index >= self.digits - self.red_digits
            draw.rectangle([x + 1, window[1] + 5, x + cell - 2, window[3] - 5], fill=(150, 20, 20) if red else (25, 25, 25))
            draw.text((x + 6, window[1] + 6), digit, fill=(245, 245, 245), font=digit_font)
        small = font("DejaVuSans.ttf", 13)
        y = window[3] + 18
        for line in self.print_lines:
            draw.text((left + self.print_indent, y), line, fill=(40, 40, 40), font=small)
            y += 18
        # Barcode and serial.
        bar_width = sum(self.bars) + len(self.bars)
        x = left + self.width - bar_width - 20 if self.barcode_right else left + 20
        bar_left, bar_top = x, top + self.height - 80 - (self.brand_size + 10 if self.brand_at_bottom else 0)
        for index, bar in enumerate(self.bars):
            if index % 2 == 0:
                draw.rectangle([x, bar_top, x + bar, bar_top + 40], fill=(10, 10, 10))
            x += bar + 1
        draw.text((bar_left, bar_top + 44), self.serial, fill=(10, 10, 10), font=small)
        if self.dial:
            px, py, radius = self.dial_place
            cx, cy = left + int(self.width * px), top + int(self.height * py)
            draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=(250, 250, 245), outline=(30, 30, 30), width=2)
            for tick in range(10):
                angle = tick * math.pi / 5
                draw.line([cx + 0.7 * radius * math.cos(angle), cy + 0.7 * radius * math.sin(angle),
                           cx + 0.95 * radius * math.cos(angle), cy + 0.95 * radius * math.sin(angle)], fill=(30, 30, 30))
        if self.sticker:
            sx = left + 20 if self.barcode_right else left + self.width - 110
            draw.rectangle([sx, top + self.height - 80, sx + 90, top + self.height - 30], fill=self.sticker_colour)
        if self.screws:
            for cx, cy in [(left + 12, top + 12), (left + self.width - 12, top + self.height - 12)]:
                draw.ellipse([cx - 5, cy - 5, cx + 5, cy + 5], fill=(120, 120, 120), outline=(60, 60, 60))
        return image, (window[0], window[1], window[2] - window[0], window[3] - window[1])


TEXTURES = ("stucco", "planks", "tiles", "wallpaper")


@functools.lru_cache(maxsize=None)
def texture(index):
    """A wall pattern as brightness factors around 1, the same for the same index (drawn once:
    every photo of every meter on that wall uses it; callers must not change it)."""
    rng = np.random.default_rng(1000 + index)
    kind = TEXTURES[index]
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    if kind == "stucco":
        coarse = Image.fromarray((rng.random((HEIGHT // 8, WIDTH // 8)) * 255).astype(np.uint8))
        pattern = np.asarray(coarse.resize((WIDTH, HEIGHT), Image.BICUBIC), np.float32) / 255 - 0.5
        pattern = 1 + 0.3 * pattern + rng.normal(0, 0.05, (HEIGHT, WIDTH))
    elif kind == "planks":
        pattern = np.ones((HEIGHT, WIDTH), np.float32)
        y = 0
        while y < HEIGHT:
            height = int(rng.integers(40, 70))
            pattern[y:y + height] *= rng.uniform(0.85, 1.1)
            pattern[y:y + 3] *= 0.55
            for _ in range(12):
                gy, gx, length = int(rng.integers(y, y + height)), int(rng.integers(0, WIDTH)), int(rng.integers(40, 200))
                pattern[min(gy, HEIGHT - 1), gx:gx + length] *= 0.8
            y += height
    elif kind == "tiles":
        size = 72
        shade = rng.uniform(0.9, 1.08, (HEIGHT // size + 1, WIDTH // size + 1))
        pattern = shade[yy // size, xx // size]
        pattern = np.where((yy % size < 3) | (xx % size < 3), 0.6, pattern)
    else:
        pattern = 1 + 0.08 * np.sign(np.sin(xx / 9.0))
        motif = ((yy % 48 - 24) ** 2 + (xx % 36 - 18) ** 2) < 25
        pattern = np.where(motif, 0.7, pattern)
    return pattern.astype(np.float32)


def tilt(image, rng, wall, most=(40, 25)):
    """The photo of a flat meter taken from the side: turned about a vertical axis by up to
    most[0] degrees and a horizontal one by up to most[1], seen through a pinhole at the frame's
    width."""
    yaw, pitch = (math.radians(rng.uniform(-limit, limit)) for limit in most)
    focal = WIDTH * 1.1
    corners = [(0, 0), (WIDTH, 0), (WIDTH, HEIGHT), (0, HEIGHT)]
    seen = []
    for x, y in corners:
        px, py = x - WIDTH / 2, y - HEIGHT / 2
        # Yaw about the vertical axis, then pitch about the horizontal one.
        x1, z1 = px * math.cos(yaw), px * math.sin(yaw)
        y2, z2 = py * math.cos(pitch) - z1 * math.sin(pitch), py * math.sin(pitch) + z1 * math.cos(pitch)
        seen.append((focal * x1 / (focal + z2) + WIDTH / 2, focal * y2 / (focal + z2) + HEIGHT / 2))
    # PIL maps each output pixel to an input pixel: solve for the photo -> wall homography.
    rows, values = [], []
    for (x, y), (u, v) in zip(seen, corners):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        values += [u, v]
    coefficients = np.linalg.solve(np.array(rows, np.float64), np.array(values, np.float64))
    return image.transform((WIDTH, HEIGHT), Image.PERSPECTIVE, tuple(coefficients), resample=Image.BILINEAR,
                           fillcolor=wall)


def hand(image, rng):
    """A hand reaching in from an edge: a skin-toned palm and four fingers over the meter."""
    draw = ImageDraw.Draw(image)
    shade = rng.uniform(0.35, 1.0)
    tone = tuple(int(c * shade) for c in (rng.randint(215, 245), rng.randint(165, 200), rng.randint(130, 165)))
    edge = rng.choice(["left", "right", "bottom"])
    reach = rng.uniform(0.2, 0.45)
    if edge == "left":
        wrist, inward = (0, rng.uniform(0.3, 0.8) * HEIGHT), (1, 0)
    elif edge == "right":
        wrist, inward = (WIDTH, rng.uniform(0.3, 0.8) * HEIGHT), (-1, 0)
    else:
        wrist, inward = (rng.uniform(0.3, 0.7) * WIDTH, HEIGHT), (0, -1)
    across = (-inward[1], inward[0])
    palm = (wrist[0] + inward[0] * reach * WIDTH * 0.5, wrist[1] + inward[1] * reach * HEIGHT * 0.5)
    radius = rng.uniform(60, 90)
    draw.ellipse([palm[0] - radius, palm[1] - radius, palm[0] + radius, palm[1] + radius], fill=tone)
    draw.line([wrist, palm], fill=tone, width=int(radius * 1.6))
    for finger in range(4):
        offset = (finger - 1.5) * radius * 0.5
        base = (palm[0] + across[0] * offset, palm[1] + across[1] * offset)
        length = radius * rng.uniform(1.1, 1.7) * (0.8 if finger in (0, 3) else 1.0)
        tip = (base[0] + inward[0] * length, base[1] + inward[1] * length)
        width = int(radius * 0.42)
        draw.line([base, tip], fill=tone, width=width)
        draw.ellipse([tip[0] - width / 2, tip[1] - width / 2, tip[0] + width / 2, tip[1] + width / 2], fill=tone)


def smear(pixels, rng):
    """Motion blur: the frame averaged along a straight shake of 5-15 pixels."""
    length, angle = rng.randint(5, 15), rng.uniform(0, math.pi)
    total = np.zeros_like(pixels)
    for step in range(length):
        along = step - (length - 1) / 2
        total += np.roll(pixels, (round(along * math.sin(angle)), round(along * math.cos(angle))), axis=(0, 1))
    return total / length


def reading(rng, digits):
    return "".join(str(rng.randint(0, 9)) for _ in range(digits))


def photograph(image, rng, harsh, rough=False, hard=False):
    """A later photo: another framing and another light (and, rough, from the side, across a
    cable, with glare; hard, further from the side, behind a hand, shaken, at night)."""
    if harsh:
        scale = rng.uniform(0.75, 1.2)
        angle = rng.uniform(-15, 15)
        shift = (rng.uniform(-40, 40), rng.uniform(-30, 30))
        gains = np.array([rng.uniform(0.75, 1.25) for _ in range(3)])
        exposure = rng.uniform(0.6, 1.4)
        blur = rng.uniform(0, 1.4)
        noise = rng.uniform(0, 8)
        quality = rng.randint(50, 90)
    else:
        scale, angle, shift = 1.0, 0.0, (0.0, 0.0)
        gains, exposure, blur, noise, quality = np.ones(3), 1.0, 0.0, 1.0, 92
    # Rotate and scale about the centre, then shift: PIL's affine maps output to input.
    cos, sin = math.cos(math.radians(angle)) / scale, math.sin(math.radians(angle)) / scale
    cx, cy = WIDTH / 2, HEIGHT / 2
    matrix = (cos, sin, cx - cos * (cx + shift[0]) - sin * (cy + shift[1]),
              -sin, cos, cy + sin * (cx + shift[0]) - cos * (cy + shift[1]))
    wall = image.getpixel((2, 2))
    image = image.transform((WIDTH, HEIGHT), Image.AFFINE, matrix, resample=Image.BILINEAR, fillcolor=wall)
    if rough and rng.random() < 0.6:
        image = tilt(image, rng, wall, (45, 30) if hard else (40, 25))
    if rough and rng.random() < 0.25:
        draw = ImageDraw.Draw(image)
        y0, y1 = rng.uniform(0, HEIGHT), rng.uniform(0, HEIGHT)
        draw.line([(0, y0), (WIDTH, y1)], fill=tuple(rng.randint(20, 90) for _ in range(3)), width=rng.randint(10, 24))
    if hard and rng.random() < 0.3:
        hand(image, rng)
    if blur > 0.2:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    pixels = np.asarray(image).astype(np.float32) / 255.0
    # Uneven light: a soft gradient across the frame.
    if harsh:
        ramp = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(1.0, 1.2), WIDTH)[None, :, None]
        pixels = pixels * ramp
    pixels = np.clip(pixels * gains[None, None, :] * exposure, 0, 1) ** rng.uniform(0.85, 1.15) if harsh else pixels
    if rough and rng.random() < 0.25:
        yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
        cy, cx, radius = rng.uniform(0, HEIGHT), rng.uniform(0, WIDTH), rng.uniform(30, 90)
        pixels = np.clip(pixels + 0.8 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * radius ** 2))[:, :, None], 0, 1)
    if hard and rng.random() < 0.25:
        pixels = smear(pixels, rng)
    if hard and rng.random() < 0.2:  # night: a dark frame, the sensor's noise turned up
        pixels, noise = pixels * rng.uniform(0.2, 0.4), rng.uniform(10, 20)
    pixels = pixels * 255.0 + np.random.default_rng(rng.randint(0, 2**31)).normal(0, noise, pixels.shape)
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--set", choices=["varied", "lookalike"], default="varied")
    parser.add_argument("--meters", type=int, default=20)
    parser.add_argument("--queries", type=int, default=2, help="query photos per registered meter")
    parser.add_argument("--unknown", type=int, default=10, help="photos of meters never registered")
    parser.add_argument("--queried", type=int, help="only the first QUERIED meters get query photos (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rough", action="store_true",
                        help="textured shared walls; later photos from the side, across a cable, with glare")
    parser.add_argument("--hard", action="store_true",
                        help="with --rough: up to 45 degrees from the side, a hand in front, motion blur, night")
    arguments = parser.parse_args()
    if arguments.hard and not arguments.rough:
        parser.error("--hard adds to --rough: give both")

    os.makedirs(os.path.join(arguments.out, "references"), exist_ok=True)
    os.makedirs(os.path.join(arguments.out, "queries"), exist_ok=True)
    rng = random.Random(arguments.seed)
    base = arguments.seed * 100000
    with open(os.path.join(arguments.out, "meters.csv"), "w", newline="") as meters_file, \
            open(os.path.join(arguments.out, "queries.csv"), "w", newline="") as queries_file:
        meters = csv.writer(meters_file, lineterminator="\n")
        queries = csv.writer(queries_file, lineterminator="\n")
        meters.writerow(["name", "reference", "roi_x", "roi_y", "roi_width", "roi_height", "digits"])
        queries.writerow(["file", "meter"])
        for index in range(arguments.meters + arguments.unknown):
            meter = Meter(base + index, arguments.set, arguments.rough)
            known = index < arguments.meters
            if known:
                image, roi = meter.draw(reading(rng, meter.digits))
                path = os.path.join("references", meter.name + ".jpg")
                with open(os.path.join(arguments.out, path), "wb") as output:
                    output.write(photograph(image, rng, harsh=False))
                meters.writerow([meter.name, path, *roi, meter.digits])
            shots = arguments.queries if index < (arguments.queried or arguments.meters) else 0
            for shot in range(shots if known else 1):
                image, _ = meter.draw(reading(rng, meter.digits))
                path = os.path.join("queries", f"{meter.name}-{shot}.jpg")
                with open(os.path.join(arguments.out, path), "wb") as output:
                    output.write(photograph(image, rng, harsh=True, rough=arguments.rough, hard=arguments.hard))
                queries.writerow([path, meter.name if known else ""])


if __name__ == "__main__":
    main()
