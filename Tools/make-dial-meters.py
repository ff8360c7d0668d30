#!/usr/bin/python3
"""Renders water-meter faces with counter wheels and pointer dials, labelled, for the dials reader.

    Tools/make-dial-meters.py OUT --count 200 --seed 1 [--style ours|field] [--dials 4] [--longer-side 4000]

A meter shows a value such as 00123.4567 m3: whole cubic metres on five wheels, and one pointer
dial per further decimal (x0.1, x0.01, ...). Everything moves as in a real meter: each dial's
pointer stands at the continuous value of its digit (4.73 on x0.1 points 73% of the way from 4 to
5), the last wheel turns continuously with the x0.1 dial, and a higher wheel turns only while the
wheel below it goes from 9 to 0.

ours:  the style the dials reader was designed and tuned on: cream faces, red tapered pointers,
       DejaVu Sans numbers inside the ticks, every dial clockwise, up to 8 degrees of rotation.
field: a style nothing is tuned on, for measuring only: grey, white, yellowish or black faces;
       red, black or blue needles with a counterweight tail; numbers outside the ring or none;
       DejaVu Serif and Mono; dials that alternate direction; perspective, glare, motion blur, noise.

OUT/labels.csv holds one row per photo: file, value (the reading to the finest dial's digit, e.g.
"00123.4567"), wheels (x y w h of the wheels' window), dials (per dial "x y w h:factor:cw|ccw",
';'-separated: the box around the dial as a user would draw it), positions (per dial the pointer's
true position in [0, 10), '|'-separated), wheel_roll (how far the last wheel has turned past its
digit, 0 to 1); with --references, reference_wheels and reference_dials, the same in
reference-NNNN.jpg. Needs python3-pil, python3-numpy, fonts-dejavu-core.
"""
import argparse
import csv
import math
import os
import random
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenes import enlarged, perspective, scaled, spoil  # noqa: E402

DEJAVU = "/usr/share/fonts/truetype/dejavu"
FACES = {"ours": ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"],
         "field": ["DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSansMono-Bold.ttf"]}
WHEELS = 5


def font(name, size):
    path = os.path.join(DEJAVU, name)
    if not os.path.exists(path):
        raise SystemExit(f"{path} is missing: apt-get install fonts-dejavu-core")
    return ImageFont.truetype(path, size)


def wheel_positions(value, count):
    """Each wheel's continuous position, highest first: the last turns with the value, a higher one
    only while the one below goes from 9 to 0."""
    positions = []
    below = value % 10
    positions.append(below)
    whole = math.floor(value)
    for place in range(1, count):
        digit = (whole // 10 ** place) % 10
        positions.append(digit + max(0.0, below - 9.0))
        below = positions[-1]
    return positions[::-1]


def draw_wheels(image, rng, box, positions, style):
    """The counter's wheels in `box`. A meter's drum spaces its digits a pitch of 0.95-1.1 window
    heights apart, each glyph 0.45-0.72 of the height (DejaVu's digits are 0.73 of their size): half-way
    through a roll a wheel shows from about half of each digit, as most of meterdigits' rolling
    wheels do, down to slivers of each with a gap between, as some meters do. The drum's shape comes
    from the stream's state without advancing it, so every other draw stays as it was."""
    x0, y0, x1, y1 = box
    draw = ImageDraw.Draw(image)
    cell = (x1 - x0) / len(positions)
    height = y1 - y0
    drum = random.Random(sum(rng.getstate()[1]))
    glyph, pitch = drum.uniform(0.45, 0.72), drum.uniform(0.95, 1.1)
    face = font(rng.choice(FACES[style]), int(height * glyph / 0.73))
    draw.rectangle(box, fill=(20, 20, 20))
    for index, position in enumerate(positions):
        left = x0 + index * cell
        wheel = Image.new("RGB", (int(cell) - 2, height), (30, 30, 30) if index < len(positions) - 1 else (25, 25, 25))
        wheel_draw = ImageDraw.Draw(wheel)
        ink = (235, 235, 235)
        digit, roll = int(position) % 10, position - math.floor(position)
        for offset, shown in ((0, digit), (1, (digit + 1) % 10), (-1, (digit - 1) % 10)):
            top = (offset - roll) * height * pitch
            wheel_draw.text((wheel.width / 2, height / 2 + top), str(shown), fill=ink, font=face, anchor="mm")
        pixels = np.asarray(wheel).astype(np.float32)
        # The wheel's curve: darker towards its top and bottom edges.
        profile = (0.55 + 0.45 * np.sin(np.linspace(0.15, math.pi - 0.15, height))).astype(np.float32)[:, None, None]
        image.paste(Image.fromarray(np.clip(pixels * profile, 0, 255).astype(np.uint8)), (int(left) + 1, y0))


def draw_dial(image, rng, centre, radius, position, clockwise, style, label):
    draw = ImageDraw.Draw(image)
    cx, cy = centre
    if style == "ours":
        face_colour = (rng.randint(235, 250), rng.randint(230, 245), rng.randint(205, 225))
        ink = (20, 20, 20)
        pointer = (rng.randint(170, 215), rng.randint(10, 40), rng.randint(10, 40))
        hub = pointer
        tail = False
        numbers_at = 0.66
    else:
        dark = rng.random() < 0.2
        face_colour = (25, 25, 28) if dark else rng.choice([(245, 245, 245), (205, 208, 210), (238, 230, 180)])
        ink = (230, 230, 230) if dark else (15, 15, 15)
        pointer = rng.choice([(200, 25, 25), (200, 25, 25)] + ([(240, 240, 240)] if dark else [(15, 15, 15), (20, 40, 150)]))
        hub = rng.choice([pointer, (60, 60, 60), (180, 180, 180)])
        tail = rng.random() < 0.7
        numbers_at = rng.choice([0.62, 1.18, None])
    draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=face_colour, outline=ink,
                 width=max(1, radius // 25))
    face = font(rng.choice(FACES[style]), max(8, int(radius * (0.26 if numbers_at and numbers_at > 1 else 0.3))))

    def point(angle_degrees, r):
        angle = math.radians(angle_degrees)
        return cx + r * math.sin(angle), cy - r * math.cos(angle)

    for tick in range(50):
        angle = tick * 7.2
        inner = 0.78 if tick % 5 == 0 else 0.86
        draw.line([point(angle, radius * inner), point(angle, radius * 0.95)], fill=ink,
                  width=max(1, radius // (18 if tick % 5 == 0 else 30)))
    if numbers_at:
        for number in range(10):
            angle = number * 36 if clockwise else -number * 36
            draw.text(point(angle, radius * numbers_at), str(number), fill=ink, font=face, anchor="mm")
    draw.text((cx, cy + radius * (1.42 if numbers_at and numbers_at > 1 else 1.22)), label, fill=ink, font=face,
              anchor="mm")
    angle = position * 36 if clockwise else -position * 36
    length = radius * rng.uniform(0.72, 0.82)
    width = radius * rng.uniform(0.1, 0.16)
    back = radius * (rng.uniform(0.25, 0.35) if tail else 0.12)
    hub_radius = radius * rng.uniform(0.1, 0.16)
    needle = [point(angle, length), point(angle - 90, width / 2), point(angle + 180, back), point(angle + 90, width / 2)]
    area = (int(cx - radius) - 1, int(cy - radius) - 1, int(cx + radius) + 2, int(cy + radius) + 2)
    smooth_shape(image, area, lambda canvas, at: canvas.polygon([at(x, y) for x, y in needle], fill=255), pointer)
    smooth_shape(image, area, lambda canvas, at: canvas.ellipse(
        [*at(cx - hub_radius, cy - hub_radius), *at(cx + hub_radius, cy + hub_radius)], fill=255), hub)


# Shapes whose angle is the truth are drawn this many times larger and box-filtered down: drawn at
# the photo's scale, PIL rounds a needle's corners and turns it 0.6 degrees on average off its
# position (up to 1.9), enough to flip a finest dial's digit.
SUPERSAMPLE = 8


def smooth_shape(image, area, draw_shape, colour):
    """Paints `colour` onto `area` (left, top, right, bottom) of `image` through the mask
    `draw_shape(canvas, at)` draws on a canvas SUPERSAMPLE times larger (`at(x, y)` maps the
    photo's coordinates onto it)."""
    left, top, right, bottom = area
    size = (right - left, bottom - top)
    mask = Image.new("L", (size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE), 0)
    draw_shape(ImageDraw.Draw(mask), lambda x, y: ((x - left) * SUPERSAMPLE, (y - top) * SUPERSAMPLE))
    image.paste(Image.new("RGB", size, colour), (left, top), mask.resize(size, Image.BOX))


def meter(rng, style, dials, shown=None, straight=False, tilt=None):
    """One meter's photo. With `shown`, that value instead of the drawn one (the same draws, so
    the same meter from the same state of `rng`); with `straight`, no perspective and the light
    of the design style: the reference photo a user takes square on; `tilt`, the perspective's
    strength instead of the style's."""
    value = rng.uniform(0, 10 ** WHEELS)
    if rng.random() < 0.25:  # the last wheel (and maybe more) mid-roll from 9 to 0
        value = math.floor(value / 10) * 10 + rng.uniform(9.0, 9.999)
    if shown is not None:
        value = shown
    scale = rng.uniform(0.8, 1.25)
    radius = int(rng.randint(30, 44) * scale)
    spacing = int(radius * (3.0 if style == "field" else 2.7))
    width = max(int(spacing * dials + radius), int(330 * scale))
    height = int(radius * 4.6 + 110 * scale)
    background = (rng.randint(225, 250), rng.randint(225, 250), rng.randint(215, 245)) if style == "ours" else \
        rng.choice([(240, 240, 240), (30, 60, 110), (200, 200, 195), (15, 15, 15)])
    image = Image.new("RGB", (width, height), background)
    wheel_height = int(48 * scale)
    wheel_width = int(wheel_height * 0.72) * WHEELS
    wheels = ((width - wheel_width) // 2, int(24 * scale), (width + wheel_width) // 2, int(24 * scale) + wheel_height)
    positions = wheel_positions(value, WHEELS)
    draw_wheels(image, rng, wheels, positions, style)
    alternate = style == "field" and rng.random() < 0.4
    entries, boxes = [], [wheels]
    top = wheels[3] + int(radius * 1.8)
    for index in range(dials):
        factor = 10.0 ** -(index + 1)
        position = (value / factor) % 10  # x0.1 turns once per whole unit: value * 10 mod 10
        clockwise = not (alternate and index % 2 == 1)
        cx = int((width - spacing * (dials - 1)) / 2 + index * spacing)
        cy = top + (int(radius * 0.5) if index % 2 else 0) if style == "field" else top
        label = f"x{factor:g}".replace("x1e-05", "x0.00001")
        if style == "field":
            label = label.replace(".", ",")
        draw_dial(image, rng, (cx, cy), radius, position, clockwise, style, label)
        margin = 1.32 if style == "field" else 1.08
        boxes.append((cx - radius * margin, cy - radius * margin, cx + radius * margin, cy + radius * margin))
        entries.append((factor, clockwise, position))
    if straight:
        boxes = [(int(x0), int(y0), int(math.ceil(x1 - x0)), int(math.ceil(y1 - y0))) for x0, y0, x1, y1 in boxes]
        image = spoil(image, rng, "ours")
    else:
        strength = tilt if tilt is not None else 0.02 if style == "ours" else 0.07
        image, boxes = perspective(image, rng, strength, boxes)
        image = spoil(image, rng, style)
    whole = math.floor(value)
    fraction = "".join(str(int(position) % 10) for _, _, position in entries)
    text = f"{whole:0{WHEELS}d}" + ("." + fraction if fraction else "")
    return image, text, boxes[0], list(zip(boxes[1:], entries)), positions[-1] % 1.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--style", choices=["ours", "field"], default="ours")
    parser.add_argument("--dials", type=int, default=4)
    parser.add_argument("--perspective", type=float,
                        help="how far the photo's corners move, as a share of its size (default: 0.02 for "
                             "ours, 0.07 for field): ours at 0.07 measures tilt without the field style")
    parser.add_argument("--references", action="store_true",
                        help="also write each meter square on at another reading, reference-NNNN.jpg, and its "
                             "wheels and dials there (columns reference_wheels, reference_dials): a meter as a "
                             "user sets it up, for reading the photos through the host")
    parser.add_argument("--longer-side", type=int, default=0,
                        help="enlarge every photo (and reference) to this many pixels on its longer side, its "
                             "regions with it, as a phone's photo of the same meter (the same draws)")
    arguments = parser.parse_args()
    rng = random.Random(f"{arguments.style}-{arguments.seed}")
    os.makedirs(arguments.output, exist_ok=True)

    def regions(dials):
        return ";".join(f"{x} {y} {w} {h}:{factor:g}:{'cw' if clockwise else 'ccw'}"
                        for (x, y, w, h), (factor, clockwise, _) in dials)

    with open(os.path.join(arguments.output, "labels.csv"), "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["file", "value", "wheels", "dials", "positions", "wheel_roll"]
                        + (["reference_wheels", "reference_dials"] if arguments.references else []))
        for index in range(arguments.count):
            state = rng.getstate()
            image, text, wheels, dials, roll = meter(rng, arguments.style, arguments.dials, tilt=arguments.perspective)
            image, factor = enlarged(image, arguments.longer_side)
            wheels, dials = scaled(wheels, factor), [(scaled(box, factor), dial) for box, dial in dials]
            name = f"meter-{index:04d}.jpg"
            image.save(os.path.join(arguments.output, name), quality=95)
            positions = "|".join(f"{position:.4f}" for _, (_, _, position) in dials)
            row = [name, text, " ".join(map(str, wheels)), regions(dials), positions, f"{roll:.4f}"]
            if arguments.references:
                # The same meter (the same draws) at another reading, from a copy of the stream.
                again = random.Random()
                again.setstate(state)
                shown = random.Random(f"reference-{arguments.style}-{arguments.seed}-{index}").uniform(0, 10 ** WHEELS)
                reference, _, reference_wheels, reference_dials, _ = meter(
                    again, arguments.style, arguments.dials, shown=shown, straight=True)
                reference, factor = enlarged(reference, arguments.longer_side)
                reference_wheels = scaled(reference_wheels, factor)
                reference_dials = [(scaled(box, factor), dial) for box, dial in reference_dials]
                reference.save(os.path.join(arguments.output, f"reference-{index:04d}.jpg"), quality=95)
                row += [" ".join(map(str, reference_wheels)), regions(reference_dials)]
            writer.writerow(row)


if __name__ == "__main__":
    main()
