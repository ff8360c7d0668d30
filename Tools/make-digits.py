#!/usr/bin/python3
"""Renders labelled digit windows for training and evaluating the read engines.

    Tools/make-digits.py OUT --kind sevenseg|dotmatrix|wheels|real|bloodpressure --count 300 --seed 1 [--meterdigits DIR --part test]

sevenseg: LCD displays in DSEG7 faces (glucose meters, thermometers, counters) with faint ghost
          segments, glare, blur, noise, rotation and uneven light; with `--points P`, a share P of
          them shows a decimal point, which the label carries ("36.7").
dotmatrix: dot-matrix character displays whose dots are the pixels of bitmap faces (DotGothic16,
          GNU Unifont with its slashed 0), dark on a grey LCD or lit on black; `--points` as for
          sevenseg.
wheels:   mechanical counters in DejaVu faces, light digits on dark wheels, the last ones red.
bloodpressure: monitors' LCDs, systolic/diastolic/pulse on three lines (text "120/80/70").
real:     strips of 5 to 8 real digit photos from ../shared/data/meterdigits side by side; `--part`
          chooses the held-out part (test: file-name hash % 5 == 0) or the rest (train). The label
          of a digit caught between two is the nearer one (x.5 and up reads as x+1).
          With `--meter`, every strip is of one meter: one settled photo per digit (x.0), chosen by
          the seed and reused in every strip, each strip with its own light and noise (the
          learning test: a meter's own digits, read again and again).

OUT/labels.csv holds file,text,accept: text is the digits (the meter's settings place a decimal
point); accept lists, per digit and separated by |, the digits a reader may rightly give (both
neighbours for a wheel caught between two, see `accepted`). Needs python3-pil, python3-numpy, fonts-dseg, fonts-dejavu-core
(and fonts-dotgothic16 fonts-unifont for dotmatrix).
"""
import argparse
import csv
import functools
import io
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

DSEG = "/usr/share/fonts/truetype/dseg"
DEJAVU = "/usr/share/fonts/truetype/dejavu"
SEVEN_SEGMENT_FACES = ["DSEG7Classic-Regular.ttf", "DSEG7Classic-Bold.ttf", "DSEG7Classic-Italic.ttf",
                       "DSEG7Modern-Regular.ttf", "DSEG7Modern-Bold.ttf", "DSEG7Classic-Light.ttf"]
DOT_FACES = ["/usr/share/fonts/truetype/dotgothic16/DotGothic16-Regular.ttf", "/usr/share/fonts/opentype/unifont/unifont.otf"]
DOT_FACES_PACKAGES = "fonts-dotgothic16 fonts-unifont"
WHEEL_FACES = ["DejaVuSansMono-Bold.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansCondensed-Bold.ttf"]


def fnv1a(text):
    """The held-out part's rule (test: hash % 5 == 0): 32-bit FNV-1a of the file name."""
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def seven_segment(rng, points=0.0):
    digits = rng.randint(2, 6)
    text = "".join(str(rng.randint(0, 9)) for _ in range(digits))
    ghosts = "8" * digits
    if points and rng.random() < points:  # a decimal point after one of the digits but the last
        at = rng.randint(1, digits - 1)
        text, ghosts = text[:at] + "." + text[at:], ghosts[:at] + "." + ghosts[at:]
    face = ImageFont.truetype(os.path.join(DSEG, rng.choice(SEVEN_SEGMENT_FACES)), rng.randint(40, 64))
    background = tuple(rng.randint(150, 215) + d for d in (0, rng.randint(0, 20), rng.randint(-10, 10)))
    ink = tuple(rng.randint(10, 60) for _ in range(3))
    probe = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    left, top, right, bottom = probe.textbbox((0, 0), "8" * digits, font=face)
    width, height = right - left + 40, bottom - top + 30
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    ghost = tuple(int(b * 0.88 + i * 0.12) for b, i in zip(background, ink))
    draw.text((20 - left, 15 - top), ghosts, fill=ghost, font=face)
    draw.text((20 - left, 15 - top), text, fill=ink, font=face)
    return text, image


@functools.lru_cache(maxsize=None)
def dot_glyphs(path):
    """Each character of "0123456789." as the face's pixels at its own size (16), in cells of one
    height: rows x columns of booleans."""
    if not os.path.exists(path):
        raise SystemExit(f"{path} is missing: apt-get install {DOT_FACES_PACKAGES}")
    face = ImageFont.truetype(path, 16)
    glyphs = {}
    for char in "0123456789.":
        image = Image.new("L", (16, 20), 0)
        draw = ImageDraw.Draw(image)
        draw.fontmode = "1"
        draw.text((0, 0), char, fill=255, font=face)
        pixels = np.asarray(image) > 127
        columns = np.nonzero(pixels.any(axis=0))[0]
        glyphs[char] = pixels[:, columns.min():columns.max() + 1]
    rows = np.nonzero(np.any([glyph.any(axis=1) for glyph in glyphs.values()], axis=0))[0]
    return {char: glyph[rows.min():rows.max() + 1] for char, glyph in glyphs.items()}


def dot_matrix(rng, points=0.0):
    digits = rng.randint(2, 6)
    text = "".join(str(rng.randint(0, 9)) for _ in range(digits))
    if points and rng.random() < points:
        at = rng.randint(1, digits - 1)
        text = text[:at] + "." + text[at:]
    glyphs = dot_glyphs(rng.choice(DOT_FACES))
    pitch = rng.uniform(3.0, 6.0)
    dot = pitch * rng.uniform(0.7, 0.9)
    round_dots = rng.random() < 0.5
    if rng.random() < 0.3:  # a lit display (VFD, OLED)
        ground, ink, ghost = (rng.randint(0, 25),) * 3, (rng.randint(60, 120), rng.randint(220, 255), rng.randint(180, 230)), None
    else:
        ground = tuple(rng.randint(165, 210) + d for d in (0, rng.randint(0, 15), rng.randint(-15, 0)))
        ink = tuple(rng.randint(15, 60) for _ in range(3))
        ghost = tuple(int(g * 0.93 + i * 0.07) for g, i in zip(ground, ink))
    rows = glyphs["8"].shape[0]
    columns = [glyphs[char].shape[1] + 2 for char in text]
    margin = int(pitch * 3)
    image = Image.new("RGB", (int(sum(columns) * pitch) + 2 * margin, int(rows * pitch) + 2 * margin), ground)
    draw = ImageDraw.Draw(image)
    x = margin
    for char, width in zip(text, columns):
        glyph = glyphs[char]
        for row in range(rows):
            for column in range(glyph.shape[1]):
                colour = ink if glyph[row, column] else ghost
                if colour is None:
                    continue
                cx, cy = x + (column + 1.5) * pitch, margin + (row + 0.5) * pitch
                box = [cx - dot / 2, cy - dot / 2, cx + dot / 2, cy + dot / 2]
                (draw.ellipse if round_dots else draw.rectangle)(box, fill=colour)
        x += width * pitch
    return text, image


def blood_pressure(rng):
    """A blood-pressure monitor's LCD: systolic, diastolic and pulse on three lines, right-aligned
    in three digit places each, the lower lines smaller."""
    systolic = rng.randint(90, 185)
    values = [systolic, rng.randint(50, min(115, systolic - 20)), rng.randint(45, 130)]
    face = rng.choice(SEVEN_SEGMENT_FACES)
    sizes = [rng.randint(48, 64)]
    sizes += [int(sizes[0] * rng.uniform(0.8, 1.0)), int(sizes[0] * rng.uniform(0.55, 0.7))]
    background = tuple(rng.randint(150, 215) + d for d in (0, rng.randint(0, 20), rng.randint(-10, 10)))
    ink = tuple(rng.randint(10, 60) for _ in range(3))
    ghost = tuple(int(b * 0.88 + i * 0.12) for b, i in zip(background, ink))
    fonts = [ImageFont.truetype(os.path.join(DSEG, face), size) for size in sizes]
    probe = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    boxes = [probe.textbbox((0, 0), "888", font=font) for font in fonts]
    width = max(right - left for left, top, right, bottom in boxes) + 40
    gap = rng.randint(8, 20)
    height = sum(bottom - top for left, top, right, bottom in boxes) + 2 * gap + 30
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    y = 15
    for value, font, (left, top, right, bottom) in zip(values, fonts, boxes):
        x = width - 20 - (right - left)
        draw.text((x - left, y - top), "888", fill=ghost, font=font)
        draw.text((x - left, y - top), str(value).rjust(3, "!"), fill=ink, font=font)
        y += bottom - top + gap
    return "/".join(str(value) for value in values), image


def wheels(rng):
    digits = rng.randint(5, 8)
    text = "".join(str(rng.randint(0, 9)) for _ in range(digits))
    face = ImageFont.truetype(os.path.join(DEJAVU, rng.choice(WHEEL_FACES)), rng.randint(34, 48))
    cell = int(face.size * 0.8)
    height = int(face.size * 1.35)
    red = rng.randint(0, 3)
    image = Image.new("RGB", (cell * digits + 12, height + 12), (225, 225, 220))
    draw = ImageDraw.Draw(image)
    for index, digit in enumerate(text):
        x = 6 + index * cell
        wheel = (150, 25, 25) if index >= digits - red else (rng.randint(15, 40),) * 3
        draw.rectangle([x + 1, 6, x + cell - 2, height + 5], fill=wheel)
        left, top, right, bottom = draw.textbbox((0, 0), digit, font=face)
        offset = rng.randint(-3, 3)
        draw.text((x + (cell - (right - left)) / 2 - left, 6 + (height - (bottom - top)) / 2 - top + offset), digit,
                  fill=(240, 240, 235), font=face)
    return text, image


def accepted(label):
    """The readings a digit photo allows: a settled wheel (x.0, x.1) reads x, one about to settle
    (x.9) reads x+1, and one caught between (x.2 to x.8) reads either, by the meter's convention."""
    digit, tenth = int(label[0]), int(label[2])
    following = str((digit + 1) % 10)
    if tenth <= 1:
        return str(digit)
    if tenth == 9:
        return following
    return str(digit) + following


def real(rng, folders, digits):
    parts, text, accept = [], "", []
    for _ in range(digits):
        label, path = rng.choice(folders)
        value = (int(label[0]) + 1) % 10 if int(label[2]) >= 5 else int(label[0])
        parts.append(Image.open(path).convert("RGB").resize((20, 32)))
        text += str(value)
        accept.append(accepted(label))
    image = Image.new("RGB", (20 * digits, 32))
    for index, part in enumerate(parts):
        image.paste(part, (20 * index, 0))
    return text, image, "|".join(accept)


def meter_strip(rng, faces, digits):
    """A strip of one meter: its own photo of each digit, under this photo's light and noise."""
    text = "".join(str(rng.randrange(10)) for _ in range(digits))
    image = Image.new("RGB", (20 * digits, 32))
    for index, character in enumerate(text):
        image.paste(Image.open(faces[int(character)]).convert("RGB").resize((20, 32)), (20 * index, 0))
    pixels = np.asarray(image).astype(np.float32) * rng.uniform(0.8, 1.15) + rng.uniform(-12, 12)
    pixels = pixels + np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(1, 5), pixels.shape)
    return text, Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def degrade(image, rng):
    """Another camera, another light."""
    angle = rng.uniform(-4, 4)
    image = image.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=image.getpixel((1, 1)))
    if rng.random() < 0.7:
        image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 1.3)))
    pixels = np.asarray(image).astype(np.float32)
    height, width = pixels.shape[:2]
    ramp = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(1.0, 1.2), width)[None, :, None]
    pixels = pixels * ramp
    if rng.random() < 0.4:  # glare: a soft bright spot
        cy, cx = rng.uniform(0, height), rng.uniform(0, width)
        radius = rng.uniform(0.15, 0.35) * width
        yy, xx = np.mgrid[0:height, 0:width]
        spot = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * radius ** 2))[:, :, None]
        pixels = pixels + spot * rng.uniform(40, 110)
    pixels = pixels + np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(2, 9), pixels.shape)
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=rng.randint(60, 92))
    return buffer.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--kind", choices=["sevenseg", "dotmatrix", "wheels", "real", "bloodpressure"], required=True)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--meterdigits", default=os.path.join(os.path.dirname(__file__), "../../shared/data/meterdigits"))
    parser.add_argument("--part", choices=["test", "train"], default="test")
    parser.add_argument("--digits", type=int, help="digits per real strip (default: 5 to 8)")
    parser.add_argument("--meter", action="store_true", help="real strips of one meter (see above)")
    parser.add_argument("--points", type=float, default=0.0,
                        help="sevenseg, dotmatrix: the share of displays with a decimal point (\"36.7\")")
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    os.makedirs(arguments.out, exist_ok=True)
    folders = []
    if arguments.kind == "real":
        for label in sorted(os.listdir(arguments.meterdigits)):
            folder = os.path.join(arguments.meterdigits, label)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                held_out = fnv1a(name) % 5 == 0
                if held_out == (arguments.part == "test"):
                    folders.append((label, os.path.join(folder, name)))
    faces = [rng.choice([path for label, path in folders if label == f"{digit}.0"]) for digit in range(10)] \
        if arguments.meter else []
    with open(os.path.join(arguments.out, "labels.csv"), "w", newline="") as labels_file:
        labels = csv.writer(labels_file, lineterminator="\n")
        labels.writerow(["file", "text", "accept"])
        for index in range(arguments.count):
            accept = ""
            if arguments.kind == "sevenseg":
                text, image = seven_segment(rng, arguments.points)
                data = degrade(image, rng)
            elif arguments.kind == "dotmatrix":
                text, image = dot_matrix(rng, arguments.points)
                data = degrade(image, rng)
            elif arguments.kind == "wheels":
                text, image = wheels(rng)
                data = degrade(image, rng)
            elif arguments.kind == "bloodpressure":
                text, image = blood_pressure(rng)
                data = degrade(image, rng)
            else:
                if arguments.meter:
                    text, image = meter_strip(rng, faces, arguments.digits or 6)
                else:
                    text, image, accept = real(rng, folders, arguments.digits or rng.randint(5, 8))
                buffer = io.BytesIO()
                image.save(buffer, "PNG")
                data = buffer.getvalue()
            name = f"{arguments.kind}-{index:05d}.{'png' if arguments.kind == 'real' else 'jpg'}"
            with open(os.path.join(arguments.out, name), "wb") as output:
                output.write(data)
            labels.writerow([name, text, accept or "|".join(text.replace("/", ""))])


if __name__ == "__main__":
    main()
