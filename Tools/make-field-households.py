#!/usr/bin/python3
"""Renders households in a second style, for measuring the identify matchers and vote only.

Nothing is fitted on this style: calibrations and the vote are fitted on Tools/make-households.py.
It is separate code on purpose, drawn as a user's photos look rather than as ours do: round water
meters with dials, electricity meters with an LCD and a label plate, gas meter boxes, in Liberation
and FreeFont faces, on tiles, wood, brick or plaster; the reference photo is taken head-on, the
later ones at up to 45 degrees, some with a hand or a pipe in front, a flash's glare, night noise
or motion blur.

    Tools/make-field-households.py OUT --set varied|lookalike --meters 100 --queries 3 --unknown 100 --seed 1

Writes the same files as Tools/make-households.py (meters.csv, queries.csv, references/, queries/),
so `photometer-benchmark-identify OUT` and `photometer identify` read it as they read ours. In a
look-alike set every meter is one body of one maker; they differ in colour shade, labels, serials
and stickers. Needs python3-pil, python3-numpy, fonts-liberation2 and fonts-freefont-ttf.
"""
import argparse
import csv
import io
import math
import os
import random
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

WIDTH, HEIGHT = 800, 600
FACES = [
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeMonoBold.ttf",
]
WORDS = ["Qn 2,5 m3/h", "Qmax 5 m3/h", "PN 16", "T30", "Class B", "MID", "M21 0102", "R160-H", "DN 20", "50 Hz",
         "230 V", "5(60) A", "1000 imp/kWh", "kWh", "m3", "Pmax 0,5 bar", "G4", "Vmin 0,04", "IP54", "EN 1359",
         "Made in EU", "CE", "Typ", "Nr.", "Baujahr", "Seriennr.", "Art.", "Tmax 50 C"]
MAKERS = ["AQUARIS", "Helvion", "METRA", "Norden", "ZENTRO", "Volta", "GasTec", "Itron-X", "Sensa", "KAMSTO",
          "Elmeco", "Flowa", "Duomet", "Pramet", "Sontex", "Watterra", "Lumo", "Calyx", "Orbis", "Tecna"]


def face(rng, size, mono=False):
    path = FACES[7 if mono else rng.randrange(len(FACES))]
    return ImageFont.truetype(path, size)


def shade(rgb, factor):
    return tuple(int(min(255, max(0, c * factor))) for c in rgb)


def hsv(h, s, v):
    i, f = int(h * 6) % 6, h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    rgb = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
    return tuple(int(255 * c) for c in rgb)


class Meter:
    """One meter of the field style, everything drawn from its seed; `kind` fixes the body of a
    look-alike household."""

    def __init__(self, seed, lookalike_of=None):
        rng = random.Random(seed)
        self.name = f"field-{seed:06d}"
        if lookalike_of is None:
            self.body = rng.choice(["water", "power", "gas"])
            self.colour = hsv(rng.random(), rng.uniform(0.2, 0.9), rng.uniform(0.35, 0.95))
            self.maker = rng.choice(MAKERS)
            self.size = rng.uniform(0.75, 1.0)
        else:
            base = random.Random(lookalike_of)
            self.body = base.choice(["water", "power", "gas"])
            hue = base.random()
            self.colour = hsv((hue + rng.uniform(-0.04, 0.04)) % 1, base.uniform(0.2, 0.6) + rng.uniform(-0.1, 0.1),
                              base.uniform(0.5, 0.85) + rng.uniform(-0.12, 0.12))
            self.maker = base.choice(MAKERS)
            self.size = base.uniform(0.8, 0.95)
        self.digits = rng.randint(5, 8) if lookalike_of is None else random.Random(lookalike_of).randint(5, 8)
        self.labels = [rng.choice(WORDS) + f" {rng.randint(1, 999)}" for _ in range(rng.randint(3, 6))]
        self.serial = f"{rng.randint(1, 99):02d}{rng.randint(0, 9999999):07d}"
        self.face_seed = rng.randint(0, 2**31)
        self.sticker = (rng.random() < 0.5, hsv(rng.random(), 0.8, 0.9), rng.uniform(0.1, 0.7), rng.randint(0, 3))
        self.matrix = np.array([[rng.random() < 0.5 for _ in range(12)] for _ in range(12)])
        self.wall = rng.choice(["tiles", "wood", "brick", "plaster"])
        self.wall_colour = hsv(rng.random(), rng.uniform(0.05, 0.4), rng.uniform(0.5, 0.9))
        self.wall_seed = rng.randint(0, 2**31)

    def draw(self, rng):
        """The meter head-on on its wall, a random reading shown, and the digit window's rectangle."""
        image = wall(self.wall, self.wall_colour, self.wall_seed)
        draw = ImageDraw.Draw(image)
        value = "".join(str(rng.randint(0, 9)) for _ in range(self.digits))
        fonts = random.Random(self.face_seed)
        body = {"water": self._water, "power": self._power, "gas": self._gas}[self.body]
        roi = body(draw, fonts, value, rng)
        sticker, colour, place, corner = self.sticker
        if sticker:
            x, y = (WIDTH // 2 - 150 + int(300 * place), HEIGHT // 2 + 120 - 40 * corner)
            draw.rectangle([x, y, x + 70, y + 30], fill=colour)
            draw.text((x + 6, y + 6), self.serial[-4:], fill=(20, 20, 20), font=face(fonts, 16))
        return image, roi

    def _counter(self, draw, fonts, value, left, top, cell, light):
        height = int(cell * 1.5)
        digit_face = face(fonts, int(cell * 1.15))
        draw.rectangle([left - 4, top - 4, left + cell * len(value) + 4, top + height + 4], fill=(15, 15, 15))
        for index, digit in enumerate(value):
            x = left + index * cell
            red = light and index >= len(value) - 3
            back = (180, 30, 30) if red else ((240, 240, 235) if light else (30, 30, 30))
            ink = (250, 250, 250) if red or not light else (10, 10, 10)
            draw.rectangle([x + 1, top, x + cell - 2, top + height], fill=back)
            draw.text((x + cell // 2, top + height // 2), digit, fill=ink, font=digit_face, anchor="mm")
        return (left - 4, top - 4, cell * len(value) + 8, height + 8)

    def _water(self, draw, fonts, value, rng):
        cx, cy, radius = WIDTH // 2, HEIGHT // 2, int(230 * self.size)
        draw.ellipse([cx - radius - 30, cy - radius - 30, cx + radius + 30, cy + radius + 30], fill=shade(self.colour, 0.7))
        draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=self.colour, outline=(40, 40, 40), width=4)
        inner = int(radius * 0.85)
        draw.ellipse([cx - inner, cy - inner, cx + inner, cy + inner], fill=(245, 245, 240))
        draw.text((cx, cy - inner + 40), self.maker, fill=(20, 40, 120), font=face(fonts, 30), anchor="mm")
        cell = int(inner * 1.2 / self.digits)
        roi = self._counter(draw, fonts, value, cx - cell * self.digits // 2, cy - inner // 2, cell, light=True)
        for index in range(4):  # litre dials, their pointers at random
            dx, dy, r = cx - inner * 0.55 + index * inner * 0.37, cy + inner * 0.3, int(inner * 0.14)
            draw.ellipse([dx - r, dy - r, dx + r, dy + r], outline=(30, 30, 30), width=2)
            angle = rng.uniform(0, 2 * math.pi)
            draw.line([dx, dy, dx + 0.9 * r * math.sin(angle), dy - 0.9 * r * math.cos(angle)], fill=(200, 20, 20), width=3)
        small = face(fonts, 15)
        for index, label in enumerate(self.labels[:3]):
            draw.text((cx, cy + inner * 0.55 + index * 18), label, fill=(40, 40, 40), font=small, anchor="mm")
        draw.text((cx + cell * self.digits // 2 + 8, cy - inner // 2), "m³", fill=(20, 20, 20), font=small)
        return roi

    def _power(self, draw, fonts, value, rng):
        w, h = int(300 * self.size), int(460 * self.size)
        left, top = (WIDTH - w) // 2, (HEIGHT - h) // 2
        draw.rectangle([left, top, left + w, top + h], fill=self.colour, outline=shade(self.colour, 0.5), width=5)
        draw.rectangle([left + 20, top + 20, left + w - 20, top + h // 2], fill=shade(self.colour, 1.15))
        lcd = [left + 35, top + 60, left + w - 35, top + 140]
        draw.rectangle(lcd, fill=(150, 165, 140), outline=(50, 50, 50), width=3)
        digit_face = face(fonts, 48, mono=True)
        draw.text(((lcd[0] + lcd[2]) // 2, (lcd[1] + lcd[3]) // 2), value, fill=(25, 30, 25), font=digit_face, anchor="mm")
        draw.text((left + 30, top + 28), self.maker, fill=(240, 240, 240), font=face(fonts, 24))
        draw.ellipse([left + w - 60, top + 160, left + w - 48, top + 172], fill=(220, 20, 20))
        draw.text((left + w - 100, top + 150), "kWh", fill=(20, 20, 20), font=face(fonts, 18))
        plate = [left + 25, top + h // 2 + 20, left + w - 25, top + h - 25]
        draw.rectangle(plate, fill=(235, 235, 225), outline=(60, 60, 60), width=2)
        small = face(fonts, 14)
        for index, label in enumerate(self.labels):
            draw.text((plate[0] + 10, plate[1] + 10 + index * 18), label, fill=(30, 30, 30), font=small)
        cell = 6
        qx, qy = plate[2] - 12 * cell - 10, plate[3] - 12 * cell - 10
        for (row, column), dark in np.ndenumerate(self.matrix):
            if dark:
                draw.rectangle([qx + column * cell, qy + row * cell, qx + column * cell + cell - 1, qy + row * cell + cell - 1],
                               fill=(10, 10, 10))
        draw.text((plate[0] + 10, plate[3] - 24), self.serial, fill=(10, 10, 10), font=small)
        return (lcd[0], lcd[1], lcd[2] - lcd[0], lcd[3] - lcd[1])

    def _gas(self, draw, fonts, value, rng):
        w, h = int(520 * self.size), int(380 * self.size)
        left, top = (WIDTH - w) // 2, (HEIGHT - h) // 2
        draw.rounded_rectangle([left, top, left + w, top + h], 18, fill=self.colour, outline=shade(self.colour, 0.6), width=4)
        draw.rectangle([left - 40, top + 30, left, top + 70], fill=(150, 150, 150))  # pipe stubs
        draw.rectangle([left + w, top + 30, left + w + 40, top + 70], fill=(150, 150, 150))
        cell = int(w * 0.55 / self.digits)
        roi = self._counter(draw, fonts, value, left + 40, top + 40, cell, light=False)
        draw.text((left + w - 40, top + 45), self.maker, fill=(20, 20, 20), font=face(fonts, 26), anchor="ra")
        plate = [left + 30, top + h // 2, left + w - 30, top + h - 30]
        draw.rectangle(plate, fill=(225, 225, 230), outline=(40, 40, 40), width=2)
        rows = 4
        for row in range(1, rows):
            y = plate[1] + row * (plate[3] - plate[1]) // rows
            draw.line([plate[0], y, plate[2], y], fill=(60, 60, 60), width=1)
        draw.line([(plate[0] + plate[2]) // 2, plate[1], (plate[0] + plate[2]) // 2, plate[3]], fill=(60, 60, 60))
        small = face(fonts, 15)
        for index, label in enumerate(self.labels[:2 * rows]):
            column, row = index % 2, index // 2
            x = plate[0] + 8 + column * (plate[2] - plate[0]) // 2
            y = plate[1] + 6 + row * (plate[3] - plate[1]) // rows
            draw.text((x, y), label, fill=(20, 20, 20), font=small)
        draw.text((plate[2] - 8, plate[3] - 8), self.serial, fill=(10, 10, 10), font=small, anchor="rd")
        return roi


def wall(kind, colour, seed):
    """A textured background: tiles, wood grain, brick or plaster."""
    rng = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    base = np.array(colour, np.float32)[None, None, :]
    if kind == "tiles":
        size = rng.integers(60, 140)
        grout = ((xs % size) < 4) | ((ys % size) < 4)
        light = np.where(grout, 0.6, 1.0)[..., None]
    elif kind == "wood":
        light = (0.92 + 0.08 * np.sin(xs / rng.uniform(6, 14) + 3 * np.sin(ys / rng.uniform(40, 90))))[..., None]
    elif kind == "brick":
        height = rng.integers(30, 50)
        row = (ys // height).astype(int)
        offset = np.where(row % 2 == 0, 0, height)
        mortar = ((ys % height) < 4) | (((xs + offset) % (2 * height)) < 4)
        light = np.where(mortar, 1.25, 0.9 + 0.1 * np.sin(row * 1.7))[..., None]
    else:
        light = 1.0 + rng.normal(0, 0.05, (HEIGHT, WIDTH, 1))
    pixels = np.clip(base * light + rng.normal(0, 4, (HEIGHT, WIDTH, 3)), 0, 255)
    return Image.fromarray(pixels.astype(np.uint8))


def homography(source, target):
    """The 3 x 3 matrix that maps four source points onto four target points."""
    rows, values = [], []
    for (x, y), (u, v) in zip(source, target):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); values.append(u)
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y]); values.append(v)
    solution = np.linalg.solve(np.array(rows, float), np.array(values, float))
    return np.append(solution, 1).reshape(3, 3)


def tilted(rng, max_degrees, scale):
    """Where the photo's corners land when the camera turns by up to `max_degrees` out of the wall's
    plane (yaw and pitch), rolls, moves and zooms."""
    yaw, pitch = np.radians(rng.uniform(-max_degrees, max_degrees)), np.radians(rng.uniform(-max_degrees, max_degrees))
    while math.degrees(math.acos(math.cos(yaw) * math.cos(pitch))) > max_degrees:
        yaw, pitch = yaw * 0.9, pitch * 0.9
    roll = np.radians(rng.uniform(-20, 20))
    ry = np.array([[math.cos(yaw), 0, math.sin(yaw)], [0, 1, 0], [-math.sin(yaw), 0, math.cos(yaw)]])
    rx = np.array([[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)], [0, math.sin(pitch), math.cos(pitch)]])
    rz = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0], [0, 0, 1]])
    rotation = rz @ rx @ ry
    focal = 900.0
    shift = (rng.uniform(-60, 60), rng.uniform(-60, 60))
    corners = []
    for x, y in [(0, 0), (WIDTH, 0), (WIDTH, HEIGHT), (0, HEIGHT)]:
        point = rotation @ np.array([x - WIDTH / 2, y - HEIGHT / 2, 0.0]) + np.array([0, 0, focal / scale])
        corners.append((WIDTH / 2 + focal * point[0] / point[2] + shift[0], HEIGHT / 2 + focal * point[1] / point[2] + shift[1]))
    return corners


def photograph(image, rng, reference):
    """The photo as taken: head-on for a reference; otherwise tilted and in worse light."""
    if reference:
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=92)
        return buffer.getvalue()
    picture = image.copy()
    draw = ImageDraw.Draw(picture)
    if rng.random() < 0.3:  # something in front: a hand or a pipe
        if rng.random() < 0.5:
            skin = hsv(rng.uniform(0.02, 0.08), rng.uniform(0.3, 0.6), rng.uniform(0.45, 0.95))
            x, y = rng.uniform(0, WIDTH), rng.choice([HEIGHT * 0.85, HEIGHT * 1.0])
            draw.ellipse([x - 90, y - 70, x + 90, y + 90], fill=skin)
            for finger in range(4):
                fx = x - 70 + finger * 40
                draw.rounded_rectangle([fx, y - 170 + abs(finger - 1.5) * 20, fx + 32, y], 14, fill=shade(skin, 0.95))
        else:
            copper = rng.random() < 0.5
            colour = (184, 115, 51) if copper else (160, 160, 165)
            thick = rng.uniform(30, 60)
            if rng.random() < 0.5:
                x = rng.uniform(0, WIDTH)
                for step in range(int(thick)):
                    draw.line([x + step, 0, x + step, HEIGHT], fill=shade(colour, 0.6 + 0.7 * math.sin(math.pi * step / thick)))
            else:
                y = rng.uniform(HEIGHT * 0.6, HEIGHT)
                for step in range(int(thick)):
                    draw.line([0, y + step, WIDTH, y + step], fill=shade(colour, 0.6 + 0.7 * math.sin(math.pi * step / thick)))
    corners = tilted(rng, rng.uniform(0, 45), rng.uniform(0.75, 1.25))
    matrix = homography(corners, [(0, 0), (WIDTH, 0), (WIDTH, HEIGHT), (0, HEIGHT)])  # output -> input
    coefficients = (matrix / matrix[2, 2]).flatten()[:8]
    picture = picture.transform((WIDTH, HEIGHT), Image.PERSPECTIVE, tuple(coefficients), Image.BILINEAR,
                                fillcolor=image.getpixel((1, 1)))
    pixels = np.asarray(picture).astype(np.float32)
    if rng.random() < 0.25:  # motion blur along a direction
        length, angle = rng.randint(5, 15), rng.uniform(0, math.pi)
        total = np.zeros_like(pixels)
        for step in range(length):
            offset = step - length // 2
            total += np.roll(pixels, (int(round(offset * math.sin(angle))), int(round(offset * math.cos(angle)))), (0, 1))
        pixels = total / length
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    if rng.random() < 0.3:  # the flash's glare
        gx, gy, radius = rng.uniform(0.2, 0.8) * WIDTH, rng.uniform(0.2, 0.8) * HEIGHT, rng.uniform(30, 110)
        pixels += 255 * np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * radius ** 2))[..., None] * rng.uniform(0.6, 1.2)
    night = rng.random() < 0.2
    gains = np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)
    exposure = rng.uniform(0.2, 0.4) if night else rng.uniform(0.7, 1.3)
    pixels = pixels * gains * exposure
    noise = rng.uniform(10, 20) if night else rng.uniform(1, 5)
    pixels += np.random.default_rng(rng.randint(0, 2**31)).normal(0, noise, pixels.shape)
    picture = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    if rng.random() < 0.3:
        picture = picture.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 1.5)))
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG", quality=rng.randint(45, 90))
    return buffer.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--set", choices=["varied", "lookalike"], default="varied")
    parser.add_argument("--meters", type=int, default=20)
    parser.add_argument("--queries", type=int, default=3, help="later photos of each registered meter")
    parser.add_argument("--unknown", type=int, default=20, help="photos of meters never registered")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    missing = [path for path in FACES if not os.path.exists(path)]
    if missing:
        sys.exit(f"make-field-households: missing {missing[0]}; apt-get install fonts-liberation2 fonts-freefont-ttf")

    for folder in ("references", "queries"):
        os.makedirs(os.path.join(arguments.out, folder), exist_ok=True)
    rng = random.Random(arguments.seed)
    base = arguments.seed * 1_000_003 % 900_000
    body = base if arguments.set == "lookalike" else None
    with open(os.path.join(arguments.out, "meters.csv"), "w", newline="") as meters_file, \
            open(os.path.join(arguments.out, "queries.csv"), "w", newline="") as queries_file:
        meters, queries = csv.writer(meters_file, lineterminator="\n"), csv.writer(queries_file, lineterminator="\n")
        meters.writerow(["name", "reference", "roi_x", "roi_y", "roi_width", "roi_height", "digits"])
        queries.writerow(["file", "meter"])
        for index in range(arguments.meters + arguments.unknown):
            meter = Meter(base + index + 1, lookalike_of=body)
            known = index < arguments.meters
            if known:
                image, roi = meter.draw(rng)
                path = os.path.join("references", meter.name + ".jpg")
                with open(os.path.join(arguments.out, path), "wb") as output:
                    output.write(photograph(image, rng, reference=True))
                meters.writerow([meter.name, path, *roi, meter.digits])
            for shot in range(arguments.queries if known else 1):
                image, _ = meter.draw(rng)
                path = os.path.join("queries", f"{meter.name}-{shot}.jpg")
                with open(os.path.join(arguments.out, path), "wb") as output:
                    output.write(photograph(image, rng, reference=False))
                queries.writerow([path, meter.name if known else ""])


if __name__ == "__main__":
    main()
