"""Photo degradations the renderers share (Tools/make-dial-meters.py, Tools/make-device-photos.py):
a random homography with the boxes it carries, and light, glare, blur, noise and JPEG.
Needs python3-pil, python3-numpy.
"""
import io
import math

import numpy as np
from PIL import Image, ImageFilter


def perspective(image, rng, strength, boxes):
    """Warps the photo by a random homography; returns it and the axis-aligned boxes around each
    warped box: an (x0, y0, x1, y1) box, or a polygon given as its corners [(x, y), ...] (a turned
    box's own corners, so that the box returned is not one around a box already around it)."""
    width, height = image.size
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    moved = corners + np.array([[rng.uniform(-1, 1) * strength * width, rng.uniform(-1, 1) * strength * height]
                                for _ in range(4)])
    angle = math.radians(rng.uniform(-1, 1) * (8 if strength < 0.05 else 15))
    centre = np.array([width / 2, height / 2])
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    moved = (moved - centre) @ rotation.T + centre
    moved -= moved.min(axis=0)
    size = np.ceil(moved.max(axis=0)).astype(int)
    forward = homography(corners, moved)
    inverse = np.linalg.inv(forward)
    coefficients = (inverse / inverse[2, 2]).flatten()[:8]
    warped = image.transform((int(size[0]), int(size[1])), Image.PERSPECTIVE, coefficients, Image.BICUBIC,
                             fillcolor=tuple(rng.randint(40, 200) for _ in range(3)))

    def carry(box):
        if len(box) == 4 and not isinstance(box[0], (tuple, list)):
            x0, y0, x1, y1 = box
            box = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        points = np.array([[x, y, 1] for x, y in box], dtype=np.float64) @ forward.T
        points = points[:, :2] / points[:, 2:]
        low, high = points.min(axis=0), points.max(axis=0)
        return int(low[0]), int(low[1]), int(math.ceil(high[0] - low[0])), int(math.ceil(high[1] - low[1]))

    return warped, [carry(box) for box in boxes]


def homography(source, target):
    rows = []
    for (x, y), (u, v) in zip(source, target):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.array(rows))
    return vt[-1].reshape(3, 3) / vt[-1][-1]


def spoil(image, rng, style):
    """Light, glare, blur, noise and JPEG, stronger in the field style."""
    pixels = np.asarray(image).astype(np.float32)
    height, width = pixels.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width]
    light = 1.0 + rng.uniform(-0.25, 0.25) * (xs / width - 0.5) + rng.uniform(-0.25, 0.25) * (ys / height - 0.5)
    pixels *= rng.uniform(0.7, 1.1) * light[:, :, None]
    if rng.random() < (0.5 if style == "field" else 0.3):  # glare on the glass
        gx, gy = rng.uniform(0, width), rng.uniform(0, height)
        sx, sy = rng.uniform(0.05, 0.2) * width, rng.uniform(0.03, 0.12) * height
        glare = np.exp(-(((xs - gx) / sx) ** 2 + ((ys - gy) / sy) ** 2))
        pixels += rng.uniform(60, 140) * glare[:, :, None]
    pixels += np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(2, 9 if style == "field" else 5),
                                                                    pixels.shape)
    if style == "field" and rng.random() < 0.3:  # motion blur: the mean of copies along a line
        length, angle = rng.randint(3, 6), rng.uniform(0, math.pi)
        steps = [(round(step * math.cos(angle)), round(step * math.sin(angle))) for step in range(length)]
        pixels = sum(np.roll(pixels, (dy, dx), axis=(0, 1)) for dx, dy in steps) / length
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 1.2)))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=rng.randint(45, 92))
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def enlarged(image, longer):
    """`image` resized (bicubic) so that its longer side is `longer` pixels, as a phone's photo of
    the same scene, and the factor its boxes scale by (`scaled`); as it is when `longer` is 0."""
    if not longer:
        return image, 1.0
    factor = longer / max(image.size)
    return image.resize((round(image.width * factor), round(image.height * factor)), Image.BICUBIC), factor


def scaled(box, factor):
    """An (x, y, w, h) box in an image scaled by `factor`."""
    return tuple(round(value * factor) for value in box)
