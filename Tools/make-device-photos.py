#!/usr/bin/python3
"""Renders whole photos of medical devices with a seven-segment display, labelled, for finding the
digits in a photo (no window given).

    Tools/make-device-photos.py OUT --count 100 --seed 1 [--style ours|field] [--kind blood-pressure]
        [--turn 90] [--longer-side 4000]

Each photo shows a glucose meter ("112" mg/dL) or a thermometer ("36.7" C) lying on a table:
body, display (DSEG7 digits with ghost segments), unit, brand label, buttons, clutter around it,
a tilt, glare, blur, noise and JPEG. With --kind blood-pressure, blood-pressure monitors instead:
systolic, diastolic and pulse on three lines of a display ("128/84/72"), each labelled (SYS,
DIA, PUL), the pulse smaller, START and MEM buttons.

ours:  the style the finder was designed on: rounded light bodies, one row of digits, the unit
       beside them, up to 10 degrees of tilt.
field: a style nothing is tuned on, for measuring only: dark or coloured bodies, thermometer
       sticks, a clock ("10:42") or a memory number in a second, smaller row, printed text near the
       display, stronger perspective and glare, busier backgrounds.

OUT/labels.csv: file, kind (glucose or thermometer), value (as the display shows it, "36.7"),
box (x y w h of the value's digits in the photo, the window a finder should return; a monitor's
three lines together).
Needs python3-pil, python3-numpy, fonts-dseg, fonts-dejavu-core.
"""
import argparse
import csv
import math
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenes import enlarged, perspective, scaled, spoil  # noqa: E402

DSEG = "/usr/share/fonts/truetype/dseg"
DEJAVU = "/usr/share/fonts/truetype/dejavu"
DIGIT_FACES = {"ours": ["DSEG7Classic-Bold.ttf", "DSEG7Classic-Regular.ttf"],
               "field": ["DSEG7Modern-Bold.ttf", "DSEG7Classic-Italic.ttf", "DSEG7Modern-Regular.ttf"]}
TEXT_FACES = {"ours": ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"], "field": ["DejaVuSerif.ttf", "DejaVuSansMono.ttf"]}
BRANDS = ["GlucoCheck", "ThermoPro", "Accu", "MediTemp", "OneTouch", "Clinica"]


def font(folder, name, size):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        raise SystemExit(f"{path} is missing: apt-get install fonts-dseg fonts-dejavu-core")
    return ImageFont.truetype(path, size)


def reading(rng, kind):
    if kind == "glucose":
        return str(rng.randint(40, 400)), "mg/dL"
    return f"{rng.uniform(35.0, 41.5):.1f}", "°C"


def clutter(draw, rng, size, style):
    """Things on the table: papers, a pen, a cup seen from above."""
    width, height = size
    for _ in range(rng.randint(2, 5 if style == "field" else 3)):
        x, y = rng.randint(-50, width), rng.randint(-50, height)
        w, h = rng.randint(40, 220), rng.randint(20, 160)
        colour = tuple(rng.randint(60, 250) for _ in range(3))
        if rng.random() < 0.5:
            draw.rectangle([x, y, x + w, y + h], fill=colour)
        else:
            draw.ellipse([x, y, x + w, y + h], fill=colour, outline=tuple(c // 2 for c in colour), width=3)
        if style == "field" and rng.random() < 0.5:  # printed text: a label, a leaflet
            face = font(DEJAVU, rng.choice(TEXT_FACES["field"]), rng.randint(12, 22))
            draw.text((x + 5, y + 5), rng.choice(["Lot 2231", "Exp 04/27", "Take 2 daily", "Ref 118"]),
                      fill=(20, 20, 20), font=face)


def monitor(rng, style):
    """A blood-pressure monitor alone, upright, on a transparent canvas; its value and the box
    around its three lines' digits."""
    systolic = rng.randint(90, 185)
    diastolic = rng.randint(50, min(115, systolic - 25))
    pulse = rng.randint(45, 125)
    width, height = rng.randint(250, 320), rng.randint(330, 420)
    body = tuple(rng.randint(200, 250) for _ in range(3)) if style == "ours" else \
        rng.choice([(30, 30, 35), (40, 70, 140), (230, 230, 235), (120, 125, 130), (60, 120, 90)])
    canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    draw.rounded_rectangle([0, 0, width - 1, height - 1], radius=rng.randint(16, 40), fill=body + (255,),
                           outline=tuple(c // 2 for c in body) + (255,), width=3)
    text_ink = (20, 20, 20) if sum(body) > 380 else (235, 235, 235)
    draw.text((width // 2, 24), rng.choice(BRANDS), fill=text_ink,
              font=font(DEJAVU, rng.choice(TEXT_FACES[style]), rng.randint(15, 22)), anchor="mm")
    margin = rng.randint(14, 24)
    display = [margin, 45, width - margin, 45 + int((width - 2 * margin) * rng.uniform(0.95, 1.1))]
    lcd = (rng.randint(160, 200), rng.randint(175, 210), rng.randint(150, 185))
    draw.rounded_rectangle(display, radius=8, fill=lcd + (255,), outline=(40, 40, 40, 255), width=4)
    ink = tuple(rng.randint(10, 50) for _ in range(3)) + (255,)
    ghost = tuple(int(l * 0.88 + i * 0.12) for l, i in zip(lcd, ink[:3])) + (255,)
    label_face = font(DEJAVU, TEXT_FACES[style][0], rng.randint(11, 14))
    inner = display[2] - display[0]
    big = int(inner / 4.0)
    face_name = rng.choice(DIGIT_FACES[style])
    top = display[1] + int(inner * (0.16 if style == "field" else 0.08))
    if style == "field" and rng.random() < 0.7:  # a clock or a memory slot above the values
        second = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}" if rng.random() < 0.6 else f"M{rng.randint(1, 60)}"
        draw.text((display[0] + 10, display[1] + 8), second, fill=ink,
                  font=font(DSEG, face_name, max(10, big // 4)))
    boxes = []
    for value, label, unit, share in [(systolic, "SYS", "mmHg", 1.0), (diastolic, "DIA", "mmHg", 0.9),
                                      (pulse, "PUL", "/min", 0.55)]:
        size = int(big * share)
        face = font(DSEG, face_name, size)
        right = display[2] - int(big * 0.2)
        left_edge = right - draw.textlength("888", font=face)
        draw.text((left_edge, top), "888", fill=ghost, font=face)
        text = str(value)
        start = right - draw.textlength(text, font=face)
        draw.text((start, top), text, fill=ink, font=face)
        box = draw.textbbox((start, top), text, font=face)
        boxes.append(box)
        draw.text((display[0] + 10, box[1] + 2), label, fill=ink, font=label_face)
        draw.text((display[0] + 10, box[1] + 18), unit, fill=ink, font=label_face)
        top = box[3] + int(big * rng.uniform(0.12, 0.25))
    # START and MEM buttons below the display.
    cy = display[3] + (height - display[3]) // 2
    r = rng.randint(18, 26)
    draw.ellipse([width // 2 - r, cy - r, width // 2 + r, cy + r], fill=(40, 90, 170, 255) if style == "ours"
                 else (200, 60, 50, 255), outline=(30, 30, 30, 255))
    draw.text((width // 2, cy), "START", fill=(240, 240, 240), font=label_face, anchor="mm")
    small = r * 2 // 3
    cx = width // 2 + r + small + 16
    draw.ellipse([cx - small, cy - small, cx + small, cy + small], fill=tuple(int(c * 0.75) for c in body) + (255,),
                 outline=(30, 30, 30, 255))
    draw.text((cx, cy + small + 8), "MEM", fill=text_ink, font=label_face, anchor="mm")
    box = (min(b[0] for b in boxes), boxes[0][1], max(b[2] for b in boxes), boxes[-1][3])
    return canvas, "blood-pressure", f"{systolic}/{diastolic}/{pulse}", box


def device(rng, style, kinds=("glucose", "thermometer")):
    """The device alone, upright, on a transparent canvas; and the digits' box in it."""
    kind = rng.choice(kinds)
    if kind == "blood-pressure":
        return monitor(rng, style)
    value, unit = reading(rng, kind)
    stick = style == "field" and kind == "thermometer" and rng.random() < 0.6
    width, height = (rng.randint(150, 190), rng.randint(380, 460)) if stick else \
        (rng.randint(220, 300), rng.randint(300, 400))
    body = tuple(rng.randint(200, 250) for _ in range(3)) if style == "ours" else \
        rng.choice([(30, 30, 35), (40, 70, 140), (230, 230, 235), (170, 30, 40), (60, 120, 90)])
    canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    draw.rounded_rectangle([0, 0, width - 1, height - 1], radius=rng.randint(20, 60), fill=body + (255,),
                           outline=tuple(c // 2 for c in body) + (255,), width=3)
    text_ink = (20, 20, 20) if sum(body) > 380 else (235, 235, 235)
    brand_face = font(DEJAVU, rng.choice(TEXT_FACES[style]), rng.randint(16, 24))
    draw.text((width // 2, 28), rng.choice(BRANDS), fill=text_ink, font=brand_face, anchor="mm")
    # The display.
    margin = rng.randint(16, 28)
    display = [margin, 55, width - margin, 55 + int((width - 2 * margin) * (0.75 if not stick else 0.6))]
    lcd = (rng.randint(160, 200), rng.randint(175, 210), rng.randint(150, 185))
    draw.rounded_rectangle(display, radius=8, fill=lcd + (255,), outline=(40, 40, 40, 255), width=4)
    digits = len(value.replace(".", ""))
    size = int((display[2] - display[0]) / (digits + 1.6) * 1.35)
    face = font(DSEG, rng.choice(DIGIT_FACES[style]), size)
    ghosts = "".join("." if c == "." else "8" for c in value)
    ink = tuple(rng.randint(10, 50) for _ in range(3)) + (255,)
    ghost = tuple(int(l * 0.88 + i * 0.12) for l, i in zip(lcd, ink[:3])) + (255,)
    right = display[2] - int(size * 0.25)
    top = display[1] + int((display[3] - display[1]) * (0.18 if style == "field" else 0.25))
    left_edge = right - draw.textlength(ghosts, font=face)
    draw.text((left_edge, top), ghosts, fill=ghost, font=face)
    draw.text((left_edge, top), value, fill=ink, font=face)
    box = draw.textbbox((left_edge, top), value, font=face)
    unit_face = font(DEJAVU, TEXT_FACES[style][0], max(10, size // 3))
    draw.text((display[2] - 8, display[3] - 6), unit, fill=ink, font=unit_face, anchor="rd")
    if style == "field" and rng.random() < 0.7:  # a second, smaller row: a clock or a memory slot
        second = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}" if rng.random() < 0.6 else f"{rng.randint(1, 99)}"
        small = font(DSEG, rng.choice(DIGIT_FACES[style]), max(10, size // 3))
        draw.text((display[0] + 10, display[1] + 8), second, fill=ink, font=small)
    # Buttons.
    for index in range(rng.randint(1, 3)):
        cx = width * (index + 1) // 4 if not stick else width // 2
        cy = display[3] + 40 + (index * 50 if stick else 0)
        r = rng.randint(12, 20)
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=tuple(int(c * 0.75) for c in body) + (255,),
                     outline=(30, 30, 30, 255))
    return canvas, kind, value, box


def photo(rng, style, kinds):
    canvas, kind, value, box = device(rng, style, kinds)
    angle = rng.uniform(-10, 10) if style == "ours" else rng.uniform(-25, 25)
    rotated = canvas.rotate(angle, resample=Image.BICUBIC, expand=True)
    # Where the box's corners went: rotate them about the canvas centre the way PIL did.
    cx, cy = canvas.width / 2, canvas.height / 2
    rx, ry = rotated.width / 2, rotated.height / 2
    radians = math.radians(-angle)
    corners = []
    for x, y in [(box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3])]:
        dx, dy = x - cx, y - cy
        corners.append((rx + dx * math.cos(radians) - dy * math.sin(radians),
                        ry + dx * math.sin(radians) + dy * math.cos(radians)))
    width, height = 640, 480
    scale = rng.uniform(0.65, 0.95) * min(width / rotated.width, height / rotated.height)
    rotated = rotated.resize((int(rotated.width * scale), int(rotated.height * scale)), Image.BICUBIC)
    background = tuple(rng.randint(90, 220) for _ in range(3)) if style == "ours" else \
        tuple(rng.randint(30, 240) for _ in range(3))
    scene = Image.new("RGB", (width, height), background)
    clutter(ImageDraw.Draw(scene), rng, (width, height), style)
    x0 = rng.randint(0, width - rotated.width)
    y0 = rng.randint(0, height - rotated.height)
    scene.paste(rotated, (x0, y0), rotated)
    moved = [(x0 + x * scale, y0 + y * scale) for x, y in corners]
    # The digits' own corners go through the warp: a box around the turned digits' box, warped
    # and boxed again, grew by both turns (up to twice the digits' height on the field style).
    scene, (found,) = perspective(scene, rng, 0.02 if style == "ours" else 0.07, [moved])
    scene = spoil(scene, rng, style)
    return scene, kind, value, found


def turned(image, box, angle):
    """The photo turned `angle` degrees anticlockwise (0, 90, 180 or 270) and its display's box
    (x y w h) where the turn puts it."""
    width, height = image.size
    x, y, w, h = box
    boxes = {0: box, 90: (y, width - x - w, h, w), 180: (width - x - w, height - y - h, w, h),
             270: (height - y - h, x, h, w)}
    return (image.rotate(angle, expand=True) if angle else image), boxes[angle]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--style", choices=["ours", "field"], default="ours")
    parser.add_argument("--kind", choices=["blood-pressure"],
                        help="draw this kind only (default: glucose meters and thermometers)")
    parser.add_argument("--turn", type=int, choices=[0, 90, 180, 270], default=0,
                        help="turn every photo this many degrees anticlockwise after drawing it, as a photo "
                             "that lost its EXIF orientation comes (the same photos as without)")
    parser.add_argument("--longer-side", type=int, default=0,
                        help="enlarge every photo to this many pixels on its longer side, its box with it, as "
                             "a phone's photo of the same scene (4000: 12 megapixels; the same draws)")
    arguments = parser.parse_args()
    kinds = (arguments.kind,) if arguments.kind else ("glucose", "thermometer")
    rng = random.Random(f"device-{arguments.style}-{arguments.seed}")
    os.makedirs(arguments.output, exist_ok=True)
    with open(os.path.join(arguments.output, "labels.csv"), "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["file", "kind", "value", "box"])
        for index in range(arguments.count):
            image, kind, value, box = photo(rng, arguments.style, kinds)
            image, box = turned(image, box, arguments.turn)
            image, factor = enlarged(image, arguments.longer_side)
            box = scaled(box, factor)
            name = f"device-{index:04d}.jpg"
            image.save(os.path.join(arguments.output, name), quality=92)
            writer.writerow([name, kind, value, " ".join(map(str, box))])


if __name__ == "__main__":
    main()
