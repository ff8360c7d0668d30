"""The row finder's training scenes: whole photos of devices with digit displays, drawn with the
sequence reader's training style (Tools/digitreader/render.py: seven-segment displays drawn
segment by segment, dot-matrix displays, counters in its faces), never with the DSEG faces
Tools/make-device-photos.py draws with, which measure the finder.

A scene is a table or a wall with clutter and printed labels, one device on it (a handheld with a
display, a meter face with a counter, a monitor with two or three rows), turned, seen in
perspective, lit unevenly, blurred and compressed. `scene(rng, faces)` (a numpy Generator and
the reader's training faces, digitreader.render.available_faces) returns the photo (H x W x 3
BGR uint8) and the digit rows in it, each as 4 corners (clockwise from the top left of the row's
digits, in photo pixels). Units, brand names and printed numbers are not rows: a finder should
pass them by.
"""
import os
import sys

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from digitreader import render  # noqa: E402

WORDS = ["Model", "Serial", "Batch", "Made in", "CE", "Digital", "Memory", "Set", "Mode", "Start", "Power",
         "kWh", "mmHg", "mg/dL", "mmol/L", "Pulse", "SYS", "DIA", "Class B", "Type", "No.", "IP54", "AUTO"]
UNITS = ["mg/dL", "mmol/L", "°C", "°F", "kWh", "m³", "mmHg", "bpm", "%", "V", "kPa"]


def colour(rng, low=0, high=256):
    return tuple(int(v) for v in rng.integers(low, high, 3))


def text_face(rng, faces, size):
    return ImageFont.truetype(faces[int(rng.integers(len(faces)))], max(8, int(size)))


def digit_row(rng, faces, height):
    """A row of digits as the reader's training style draws it, scaled to `height` pixels of
    window: (RGB image, x0, x1, y0, y1 of the digits in it)."""
    kind = rng.choice(["seven", "seven", "dots", "wheels", "print"], p=[0.35, 0.2, 0.15, 0.15, 0.15])
    if kind == "seven":
        image, shown = render.seven_segment(rng)
        top, bottom = 0.22, 0.82
    elif kind == "dots":
        image, shown = render.dot_matrix(rng)
        top, bottom = 0.15, 0.85
    elif kind == "wheels":
        image, shown = render.wheels(rng, faces)
        top, bottom = 0.12, 0.88
    else:
        digits = int(rng.integers(2, 7))
        text = render.random_text(rng, digits, 0.4)
        face = text_face(rng, faces, 40)
        ground, ink = colour(rng, 150, 256), colour(rng, 0, 80)
        if rng.random() < 0.3:
            ground, ink = ink, ground
        left, up, right, down = face.getbbox(text)
        canvas = Image.new("RGB", (right - left + 16, down - up + 16), ground)
        ImageDraw.Draw(canvas).text((8 - left, 8 - up), text, fill=ink, font=face)
        image = np.asarray(canvas)
        shown = [(text, 8, 8 + right - left, None)]
        top, bottom = 8 / image.shape[0], 1 - 8 / image.shape[0]
    if not shown:
        return None
    x0, x1 = min(s[1] for s in shown), max(s[2] for s in shown)
    top, bottom = ink_rows(image, x0, x1, top, bottom)
    scale = height / image.shape[0]
    image = cv2.resize(image, (max(4, int(image.shape[1] * scale)), int(height)), interpolation=cv2.INTER_AREA)
    return image, x0 * scale, x1 * scale, top * height, bottom * height


def ink_rows(image, x0, x1, top, bottom):
    """The digits' top and bottom as shares of the window's height: the rows between `x0` and
    `x1` where some pixel stands out from the ground (the region's median colour) by half the
    most any does, so that ghost segments, a counter's window and a display's margin are left
    out; (`top`, `bottom`) when nothing stands out."""
    region = image[:, max(0, int(x0)):max(int(x0) + 1, int(x1))].astype(np.float32)
    ground = np.median(region.reshape(-1, 3), axis=0)
    standing = np.abs(region - ground).sum(axis=2).max(axis=1)
    rows = np.nonzero(standing > 0.5 * standing.max())[0]
    if standing.max() < 30 or len(rows) == 0:
        return top, bottom
    return rows[0] / image.shape[0], (rows[-1] + 1) / image.shape[0]


def paste(target, image, x, y):
    """Pastes `image` at (x, y) in `target`, clipped; False when it does not fit whole."""
    h, w = image.shape[:2]
    if x < 0 or y < 0 or x + w > target.shape[1] or y + h > target.shape[0]:
        return False
    target[y:y + h, x:x + w] = image
    return True


def device(rng, faces, aspects=(0.6, 1.6)):
    """A device, upright, on a transparent canvas (RGBA), with its rows as axis-aligned boxes;
    its height is `aspects` (a range) times its width."""
    shape = rng.choice(["handheld", "monitor", "meter", "panel"])
    width = int(rng.integers(220, 420))
    height = int(width * rng.uniform(*aspects))
    body = colour(rng) if rng.random() < 0.6 else tuple([int(rng.integers(0, 256))] * 3)
    canvas = np.zeros((height, width, 4), np.uint8)
    radius = int(rng.uniform(0.02, 0.3) * min(width, height))
    if shape == "meter":
        cv2.circle(canvas, (width // 2, height // 2), min(width, height) // 2 - 2, body + (255,), -1, cv2.LINE_AA)
    else:
        cv2.rectangle(canvas, (radius, 0), (width - radius, height), body + (255,), -1)
        cv2.rectangle(canvas, (0, radius), (width, height - radius), body + (255,), -1)
        for cx, cy in [(radius, radius), (width - radius, radius), (radius, height - radius),
                       (width - radius, height - radius)]:
            cv2.circle(canvas, (cx, cy), radius, body + (255,), -1, cv2.LINE_AA)
    rgb = np.ascontiguousarray(canvas[:, :, :3])
    rows = []
    # The display: one row, or two or three for a monitor, and maybe a small second one.
    display_width = int(width * rng.uniform(0.45, 0.85))
    count = int(rng.integers(2, 4)) if shape == "monitor" else 1
    heights = [int(display_width * rng.uniform(0.14, 0.3))] * count
    if count > 1:
        heights = [int(h * rng.uniform(0.55, 1.0)) if i else h for i, h in enumerate(heights)]
    pad = int(rng.integers(4, 16))
    display_height = sum(heights) + pad * (count + 1)
    if shape == "meter":
        dx, dy = (width - display_width) // 2, int(height * rng.uniform(0.25, 0.45))
    else:
        dx, dy = int(rng.integers(8, max(9, width - display_width - 8))), int(height * rng.uniform(0.08, 0.4))
    ground = colour(rng, 140, 230) if rng.random() < 0.7 else colour(rng, 0, 60)
    if dy + display_height >= height - 4:
        return None
    cv2.rectangle(rgb, (dx, dy), (dx + display_width, dy + display_height), ground, -1)
    if rng.random() < 0.7:
        cv2.rectangle(rgb, (dx, dy), (dx + display_width, dy + display_height), colour(rng, 0, 120),
                      int(rng.integers(1, 6)))
    y = dy + pad
    for row_height in heights:
        made = digit_row(rng, faces, row_height)
        if made is None:
            return None
        image, x0, x1, top, bottom = made
        if image.shape[1] > display_width - 2 * pad:
            factor = (display_width - 2 * pad) / image.shape[1]
            image = cv2.resize(image, (max(4, int(image.shape[1] * factor)), max(4, int(row_height * factor))),
                               interpolation=cv2.INTER_AREA)
            x0, x1, top, bottom = x0 * factor, x1 * factor, top * factor, bottom * factor
        x = dx + display_width - pad - image.shape[1] if rng.random() < 0.6 else \
            dx + pad + int(rng.integers(0, max(1, display_width - 2 * pad - image.shape[1])))
        if not paste(rgb, image, x, y):
            return None
        rows.append((x + x0, y + top, x + x1, y + bottom))
        y += row_height + pad
    draw_labels(rgb, rng, faces, (dx, dy, dx + display_width, dy + display_height), body)
    canvas[:, :, :3] = rgb
    return canvas, rows


def draw_labels(rgb, rng, faces, display, body):
    """A unit by the display, a brand above it, words and printed numbers below; buttons."""
    image = Image.fromarray(rgb)
    draw = ImageDraw.Draw(image)
    ink = (20, 20, 20) if sum(body) > 380 else (235, 235, 235)
    x0, y0, x1, y1 = display
    size = (y1 - y0) * rng.uniform(0.12, 0.3)
    draw.text((x1 + 4, y1 - size), str(rng.choice(UNITS)), fill=ink, font=text_face(rng, faces, size))
    draw.text((x0, max(0, y0 - 2.2 * size)), str(rng.choice(WORDS)), fill=ink, font=text_face(rng, faces, size * 1.4))
    for index in range(int(rng.integers(0, 4))):
        words = str(rng.choice(WORDS))
        if rng.random() < 0.5:
            words += " " + str(int(rng.integers(1, 99999)))
        draw.text((x0 + rng.uniform(-20, 60), y1 + size * (1.5 + 1.6 * index)), words, fill=ink,
                  font=text_face(rng, faces, size * rng.uniform(0.6, 1.0)))
    for index in range(int(rng.integers(0, 4))):
        r = int(size * rng.uniform(0.8, 1.6))
        cx, cy = int(x0 + (x1 - x0) * (index + 1) / 5), int(y1 + r * 3 + rng.uniform(0, 40))
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour(rng), outline=(30, 30, 30))
    rgb[:] = np.asarray(image)


def background(rng, faces, width, height):
    image = np.zeros((height, width, 3), np.float32) + np.array(colour(rng, 20, 250), np.float32)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    image += (rng.uniform(-40, 40) * xs / width + rng.uniform(-40, 40) * ys / height)[:, :, None]
    image = np.clip(image, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(1, 7))):
        x, y = int(rng.integers(-50, width)), int(rng.integers(-50, height))
        w, h = int(rng.integers(30, 260)), int(rng.integers(20, 200))
        if rng.random() < 0.5:
            cv2.rectangle(image, (x, y), (x + w, y + h), colour(rng), -1)
        else:
            cv2.ellipse(image, (x, y), (w // 2, h // 2), float(rng.uniform(0, 180)), 0, 360, colour(rng), -1)
    pil = Image.fromarray(image)
    draw = ImageDraw.Draw(pil)
    for _ in range(int(rng.integers(0, 5))):
        words = " ".join(str(rng.choice(WORDS)) for _ in range(int(rng.integers(1, 4))))
        if rng.random() < 0.5:
            words += f" {int(rng.integers(1, 9999))}"
        draw.text((float(rng.uniform(0, width)), float(rng.uniform(0, height))), words, fill=colour(rng, 0, 120),
                  font=text_face(rng, faces, rng.uniform(10, 26)))
    return np.asarray(pil).copy()


def scene(rng, faces, aspects=(0.6, 1.6), scales=(0.45, 1.1)):
    """A training photo (BGR) and its digit rows' corners: a device of height `aspects` times its
    width (`device`), at `scales` (a range) of the largest size the photo holds."""
    while True:
        made = device(rng, faces, aspects)
        if made is not None:
            break
    canvas, rows = made
    width, height = (640, 480) if rng.random() < 0.7 else (480, 640)
    photo = background(rng, faces, width, height)
    # Turn and scale the device about its centre, then place it: one affine map for canvas and rows.
    angle = rng.uniform(-35, 35) if rng.random() < 0.8 else rng.uniform(-90, 90)
    fit = min(width / canvas.shape[1], height / canvas.shape[0])
    scale = fit * rng.uniform(*scales)
    centre = (rng.uniform(0.3, 0.7) * width, rng.uniform(0.3, 0.7) * height)
    matrix = cv2.getRotationMatrix2D((canvas.shape[1] / 2, canvas.shape[0] / 2), angle, scale)
    matrix[:, 2] += np.array(centre) - np.array([canvas.shape[1] / 2, canvas.shape[0] / 2])
    # Perspective: the corners of the photo moved a little.
    strength = rng.uniform(0, 0.12)
    corners = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    moved = corners + rng.uniform(-1, 1, (4, 2)).astype(np.float32) * strength * np.float32([width, height])
    warp = cv2.getPerspectiveTransform(corners, moved) @ np.vstack([matrix, [0, 0, 1]])
    layer = cv2.warpPerspective(canvas, warp, (width, height), flags=cv2.INTER_LINEAR)
    alpha = layer[:, :, 3:4].astype(np.float32) / 255
    photo = (photo * (1 - alpha) + layer[:, :, :3] * alpha).astype(np.uint8)
    quads = []
    for x0, y0, x1, y1 in rows:
        points = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).reshape(-1, 1, 2)
        quads.append(cv2.perspectiveTransform(points, warp).reshape(4, 2))
    return spoil(photo, rng)[:, :, ::-1].copy(), quads


def spoil(image, rng):
    """Uneven light, glare, shadow, blur (sometimes along a line), noise and JPEG; RGB in and out."""
    pixels = image.astype(np.float32)
    height, width = pixels.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    light = 1 + rng.uniform(-0.35, 0.35) * (xs / width - 0.5) + rng.uniform(-0.35, 0.35) * (ys / height - 0.5)
    pixels *= rng.uniform(0.6, 1.15) * light[:, :, None]
    for _ in range(int(rng.integers(0, 3))):
        gx, gy = rng.uniform(0, width), rng.uniform(0, height)
        sx, sy = rng.uniform(0.03, 0.25) * width, rng.uniform(0.02, 0.15) * height
        pixels += rng.uniform(-80, 160) * np.exp(-(((xs - gx) / sx) ** 2 + ((ys - gy) / sy) ** 2))[:, :, None]
    pixels = np.clip(pixels, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        length = int(rng.integers(3, 9))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1 / length
        rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kernel = cv2.warpAffine(kernel, rotation, (length, length))
        pixels = cv2.filter2D(pixels, -1, kernel / max(kernel.sum(), 1e-6))
    sigma = rng.uniform(0.1, 1.6)
    pixels = cv2.GaussianBlur(pixels, (0, 0), sigma)
    noise = rng.normal(0, rng.uniform(1, 10), pixels.shape)
    pixels = np.clip(pixels + noise, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", pixels[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR)[:, :, ::-1]
