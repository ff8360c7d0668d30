"""The training style of pointer dials: one dial a sample, cut from its photo as a user's box cuts it.

Broader than Tools/make-dial-meters.py's `ours` and apart from its `field` (never trained on: it
measures): any face and pointer colour, light or dark faces; kite, needle and arrow pointers with
or without a counterweight tail; 10 to 100 ticks or none; numbers inside the ticks, outside the
ring or none, in the sequence reader's training faces (never DejaVu, which both make-dial-meters.py
styles use); clockwise and anticlockwise numbers; a rim or none; a factor label, neighbouring
dials and a counter window around; turned up to 30 degrees, seen at a slant, blurred, shaken,
glared, noisy, JPEG. The box around the dial is loose or tight and off-centre by a little, as
drawn by hand.

`sample(rng)` returns (crop as SIDE x SIDE x 3 BGR uint8, value in [0, 10)): an anticlockwise dial
comes mirrored, as the plugin mirrors it before the network, so its value reads clockwise.
"""
import io
import math

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from digitreader.render import WHEEL_FACES

SIDE = 64
CANVAS = 256  # the photo around one dial
RADIUS = (46, 60)  # the dial's radius on the canvas


def _colour(rng, light):
    if light:
        base = rng.choice([(245, 245, 240), (238, 232, 200), (225, 228, 230), (250, 250, 250), (215, 210, 190)])
    else:
        base = rng.choice([(25, 25, 28), (40, 40, 45), (20, 30, 50), (50, 35, 30)])
    return tuple(int(np.clip(c + rng.integers(-15, 16), 0, 255)) for c in base)


def _point(cx, cy, degrees, r):
    angle = math.radians(degrees)
    return cx + r * math.sin(angle), cy - r * math.cos(angle)


def _dial(draw, rng, cx, cy, radius, value, clockwise, face_colour, ink, label=True):
    """One dial on `draw`: face, rim, ticks, numbers, label and pointer at `value`; whether it has
    numbers (without them, ten marks cannot tell a turn of 20 degrees from one of -16)."""
    rim = rng.random() < 0.75
    draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=face_colour,
                 outline=ink if rim else face_colour, width=int(rng.integers(2, 7)) if rim else 1)
    ticks = rng.choice([0, 10, 20, 50, 50, 100])
    inner_major, inner_minor = rng.uniform(0.7, 0.82), rng.uniform(0.84, 0.9)
    outer = rng.uniform(0.9, 0.97)
    for tick in range(ticks):
        major = tick % (ticks // 10) == 0
        angle = tick * 360 / ticks
        width = int(radius * (rng.uniform(0.04, 0.07) if major else rng.uniform(0.015, 0.03))) + 1
        draw.line([_point(cx, cy, angle, radius * (inner_major if major else inner_minor)),
                   _point(cx, cy, angle, radius * outer)], fill=ink, width=width)
    placement = rng.choice(["inside", "inside", "outside", "none"] if ticks else ["inside", "outside"])
    face = ImageFont.truetype(str(rng.choice(WHEEL_FACES)), int(radius * rng.uniform(0.2, 0.32)))
    at = rng.uniform(0.52, 0.66) if placement == "inside" else rng.uniform(1.12, 1.25)
    if placement != "none":
        for number in range(10):
            angle = number * 36 if clockwise else -number * 36
            draw.text(_point(cx, cy, angle, radius * at), str(number), fill=ink, font=face, anchor="mm")
    if label and rng.random() < 0.7:
        text = rng.choice(["x0.1", "x0.01", "x0,001", "x0.0001", "X 0,1", "0.1", "x10", "x1"])
        low = radius * (at + 0.25 if placement == "outside" else rng.uniform(1.12, 1.35))
        draw.text((cx, cy + low), text, fill=ink, font=face, anchor="mm")
    # The pointer.
    angle = value * 36 if clockwise else -value * 36
    pointer = tuple(int(c) for c in rng.choice(
        [(200, 25, 25), (220, 40, 20), (15, 15, 15), (20, 40, 150), (240, 240, 240), (230, 120, 20), (30, 120, 40)]))
    if sum(abs(a - b) for a, b in zip(pointer, face_colour)) < 150:
        pointer = (200, 25, 25)
    length = radius * rng.uniform(0.6, 0.92)
    back = radius * (rng.uniform(0.2, 0.4) if rng.random() < 0.5 else rng.uniform(0.05, 0.15))
    shape = rng.choice(["kite", "kite", "needle", "arrow"])
    tip, end = _point(cx, cy, angle, length), _point(cx, cy, angle + 180, back)
    if shape == "kite":
        width = radius * rng.uniform(0.08, 0.18)
        left, right = _point(cx, cy, angle - 90, width / 2), _point(cx, cy, angle + 90, width / 2)
        draw.polygon([tip, left, end, right], fill=pointer)
    else:
        draw.line([end, tip], fill=pointer, width=max(2, int(radius * rng.uniform(0.03, 0.07))))
        if shape == "arrow":
            head = radius * rng.uniform(0.12, 0.2)
            base = _point(cx, cy, angle, length - head)
            wing = head * 0.5
            left = (base[0] + wing * math.cos(math.radians(angle)), base[1] + wing * math.sin(math.radians(angle)))
            right = (base[0] - wing * math.cos(math.radians(angle)), base[1] - wing * math.sin(math.radians(angle)))
            draw.polygon([tip, left, right], fill=pointer)
    hub = radius * rng.uniform(0.05, 0.16)
    hub_colour = pointer if rng.random() < 0.6 else tuple(int(c) for c in rng.choice([(60, 60, 60), (180, 180, 180)]))
    draw.ellipse([cx - hub, cy - hub, cx + hub, cy + hub], fill=hub_colour)
    return placement != "none"


def _homography(rng, centre, numbers):
    """A random turn (up to 30 degrees with numbers, 16 without), scale and slant about `centre`."""
    limit = 30 if numbers else 16
    turn = math.radians(rng.uniform(-limit, limit) if rng.random() < 0.8 else rng.uniform(-8, 8))
    scale = rng.uniform(0.9, 1.1)
    cx, cy = centre
    rotate = np.array([[scale * math.cos(turn), -scale * math.sin(turn), 0],
                       [scale * math.sin(turn), scale * math.cos(turn), 0], [0, 0, 1]])
    to_origin = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    back = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]])
    slant = np.eye(3)
    strength = rng.uniform(0, 0.0012)
    slant[2, 0], slant[2, 1] = rng.uniform(-1, 1) * strength, rng.uniform(-1, 1) * strength
    squash = np.diag([rng.uniform(0.85, 1.15), rng.uniform(0.85, 1.15), 1])
    return back @ slant @ squash @ rotate @ to_origin


def sample(rng):
    """(crop, value): one dial as the plugin sees it."""
    value = rng.uniform(0, 10)
    clockwise = rng.random() < 0.7
    light = rng.random() < 0.75
    face_colour = _colour(rng, light)
    ink = (20, 20, 20) if light else (230, 230, 230)
    body = _colour(rng, rng.random() < 0.6)
    image = Image.new("RGB", (CANVAS, CANVAS), body)
    draw = ImageDraw.Draw(image)
    radius = rng.uniform(*RADIUS)
    cx, cy = CANVAS / 2 + rng.uniform(-6, 6), CANVAS / 2 + rng.uniform(-6, 6)
    # Neighbours: dials left and right, a counter window above.
    spacing = radius * rng.uniform(2.3, 3.2)
    for side in (-1, 1):
        if rng.random() < 0.6:
            _dial(draw, rng, cx + side * spacing, cy + rng.uniform(-0.5, 0.5) * radius, radius,
                  rng.uniform(0, 10), clockwise, face_colour, ink, label=False)
    if rng.random() < 0.3:
        top = cy - radius * rng.uniform(1.6, 2.2)
        draw.rectangle([cx - radius * 2, top - radius * 0.7, cx + radius * 2, top], fill=(20, 20, 20))
    numbers = _dial(draw, rng, cx, cy, radius, value, clockwise, face_colour, ink)
    pixels = np.asarray(image).astype(np.float32)
    # Light across the photo, glare on the glass.
    ys, xs = np.mgrid[0:CANVAS, 0:CANVAS]
    light_map = 1 + rng.uniform(-0.3, 0.3) * (xs / CANVAS - 0.5) + rng.uniform(-0.3, 0.3) * (ys / CANVAS - 0.5)
    pixels *= rng.uniform(0.65, 1.15) * light_map[:, :, None]
    if rng.random() < 0.4:
        gx, gy = rng.uniform(0, CANVAS), rng.uniform(0, CANVAS)
        sx, sy = rng.uniform(15, 90), rng.uniform(8, 36)
        pixels += rng.uniform(40, 150) * np.exp(-(((xs - gx) / sx) ** 2 + ((ys - gy) / sy) ** 2))[:, :, None]
    pixels = np.clip(pixels, 0, 255).astype(np.uint8)
    matrix = _homography(rng, (cx, cy), numbers)
    pixels = cv2.warpPerspective(pixels, matrix, (CANVAS, CANVAS), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.35:  # shaken: the mean along a line
        length = int(rng.integers(3, 10))
        kernel = np.zeros((length, length), np.float32)
        angle = rng.uniform(0, math.pi)
        for step in range(length):
            offset = step - (length - 1) / 2
            kernel[int(round((length - 1) / 2 + offset * math.sin(angle))),
                   int(round((length - 1) / 2 + offset * math.cos(angle)))] = 1
        pixels = cv2.filter2D(pixels, -1, kernel / kernel.sum())
    pixels = cv2.GaussianBlur(pixels, (0, 0), rng.uniform(0.3, 2.0))
    # The box around the warped dial, loose or tight, a little off-centre.
    margin = rng.uniform(1.0, 1.45)
    ring = np.array([[cx + margin * radius * math.cos(t), cy + margin * radius * math.sin(t), 1]
                     for t in np.linspace(0, 2 * math.pi, 48, endpoint=False)]) @ matrix.T
    ring = ring[:, :2] / ring[:, 2:]
    (x0, y0), (x1, y1) = ring.min(axis=0), ring.max(axis=0)
    width, height = x1 - x0, y1 - y0
    x0 += rng.uniform(-0.05, 0.05) * width
    y0 += rng.uniform(-0.05, 0.05) * height
    width *= rng.uniform(0.95, 1.05)
    height *= rng.uniform(0.95, 1.05)
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    x1, y1 = min(CANVAS, int(x0 + width)), min(CANVAS, int(y0 + height))
    crop = pixels[y0:y1, x0:x1]
    # The photo's own size: a dial 25 to 60 pixels across its radius, noise and JPEG there.
    photo_side = int(rng.uniform(50, 130))
    crop = cv2.resize(crop, (photo_side, photo_side), interpolation=cv2.INTER_AREA)
    crop = np.clip(crop.astype(np.float32) + np.random.default_rng(int(rng.integers(1 << 31))).normal(
        0, rng.uniform(1, 9), crop.shape), 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(crop).save(buffer, "JPEG", quality=int(rng.integers(40, 95)))
    crop = np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))
    crop = cv2.cvtColor(crop, cv2.COLOR_RGB2BGR)
    crop = prepare_square(crop)
    if not clockwise:
        crop = crop[:, ::-1].copy()
    return crop, value


def prepare_square(bgr):
    """The box as the plugin gives it to the network: resized to SIDE x SIDE (area down, linear up)."""
    height, width = bgr.shape[:2]
    interpolation = cv2.INTER_AREA if width >= SIDE and height >= SIDE else cv2.INTER_LINEAR
    return cv2.resize(bgr, (SIDE, SIDE), interpolation=interpolation)


def normalised(crops):
    """N x SIDE x SIDE x 3 uint8 BGR -> N x 3 x SIDE x SIDE float32: each crop at zero mean and unit
    spread over all its pixels (at least 8 grey levels), as pm_dial_network_run computes it."""
    crops = crops.astype(np.float32)
    mean = crops.mean(axis=(1, 2, 3), keepdims=True)
    spread = np.maximum(crops.std(axis=(1, 2, 3), keepdims=True), 8.0)
    return ((crops - mean) / spread).transpose(0, 3, 1, 2).copy()
