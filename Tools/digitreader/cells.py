"""Single-digit cells for the cell classifier, cut the way the plugin cuts them.

The plugin cuts a digit's cell around where the sequence reader placed it, with the width of the
row's pitch (or the whole window for a window of one digit), so a training cell is cut from a
composed or rendered window after the random camera, around the digit's true extent moved and
widened at random: neighbours' edges, frames and loose margins are in the cells as they will be
at run time. `prepare_cell` must stay the same computation as `pm_cells_prepare` in
Sources/Plugins/CDigitReader/digit_reader.cpp.
"""
import math
from multiprocessing import Pool

import cv2
import numpy as np

from . import augment, data, render

CELL_HEIGHT = 32
CELL_WIDTH = 20
MIX = (("real", 0.55), ("sevenseg", 0.12), ("wheels", 0.25), ("dotmatrix", 0.08))


def prepare_cell(grey, size=(CELL_WIDTH, CELL_HEIGHT)):
    """A grey cell scaled to `size` (width, height; CELL_WIDTH x CELL_HEIGHT, the classifier's)
    (area down, linear up), zero mean and unit spread (at least 8 grey levels)."""
    method = cv2.INTER_AREA if grey.shape[0] > size[1] else cv2.INTER_LINEAR
    cell = cv2.resize(grey, size, interpolation=method).astype(np.float32)
    return (cell - float(cell.mean())) / max(float(cell.std()), 8.0)


def cut(grey, centre, width):
    """Columns [centre - width / 2, centre + width / 2) of the window, the edge repeated past it."""
    left = int(round(centre - width / 2))
    right = max(left + 1, int(round(centre + width / 2)))
    pad_left, pad_right = max(0, -left), max(0, right - grey.shape[1])
    if pad_left or pad_right:
        grey = cv2.copyMakeBorder(grey, 0, 0, pad_left, pad_right, cv2.BORDER_REPLICATE)
    return grey[:, left + pad_left:right + pad_left]


def soft_label(value):
    """A wheel at `value` as shares of the two digits it stands between (4.3: 0.7 of 4, 0.3 of 5)."""
    label = np.zeros(10, np.float32)
    lower = int(math.floor(value)) % 10
    fraction = value - math.floor(value)
    label[lower] += 1 - fraction
    label[(lower + 1) % 10] += fraction
    return label


def window_cells(rng, image, shown):
    """Every digit's cell of a window after the camera: (prepared cell, soft label)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    scale = grey.shape[0] / augment.HEIGHT
    digits = [(x0 * scale, x1 * scale, value) for char, x0, x1, value in shown if value is not None]
    out = []
    if len(digits) == 1 and rng.random() < 0.5:  # a window of one digit is read whole
        out.append((prepare_cell(grey), soft_label(digits[0][2])))
        return out
    for x0, x1, value in digits:
        extent = x1 - x0
        centre = (x0 + x1) / 2 + rng.normal(0, 0.12) * extent
        width = extent * rng.uniform(0.85, 1.45)
        cell = cut(grey, centre, width)
        if cell.shape[1] >= 2:
            out.append((prepare_cell(cell), soft_label(value)))
    return out


def photo_cell(rng, photo):
    """A meterdigits photo as a camera of another meter might take it: a little shifted, scaled,
    turned, lighter or darker, blurred, inverted, recompressed; then prepared. At run time a window
    of one digit is its own cell, and a window the user drew around one wheel looks like this."""
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY) if photo.ndim == 3 else photo
    height, width = grey.shape
    scale = rng.uniform(0.9, 1.1)
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), rng.uniform(-3, 3), scale)
    matrix[:, 2] += (rng.uniform(-0.08, 0.08) * width, rng.uniform(-0.06, 0.06) * height)
    pixels = cv2.warpAffine(grey, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    contrast = rng.uniform(0.6, 1.3)
    pixels = (pixels - pixels.mean()) * contrast + pixels.mean() + rng.uniform(-40, 40)
    if rng.random() < 0.3:
        pixels = cv2.GaussianBlur(pixels, (0, 0), rng.uniform(0.3, 0.9))
    return prepare_cell(augment.sensor(rng, pixels, noise=6, jpeg=0.5, quality=40))


# Close-ups of rendered wheels read alone (`generate`'s `rendered_single`): this share of them in
# designs drawn from strokes, the rest in the training faces.
CLOSE_UP_STROKE_SHARE = 1 / 3

_photos = None
_faces = None
_stroke_share = 0.0
_wide_share = 0.0


def _start(photos, faces, stroke_share, wide_share):
    global _photos, _faces, _stroke_share, _wide_share
    _photos, _faces, _stroke_share, _wide_share = photos, faces, stroke_share, wide_share


def _chunk(arguments):
    seed, count, augmented = arguments
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        kind = data.pick_kind(rng, MIX)
        image, shown = data.window(rng, kind, _photos, _faces, _stroke_share)
        if augmented:
            image, shown = augment.augment(rng, image, shown, rendered=kind != "real")
        else:
            scale = augment.HEIGHT / image.shape[0]
            shown = [(char, x0 * scale, x1 * scale, value) for char, x0, x1, value in shown]
        out += [(cell, label, kind) for cell, label in window_cells(rng, image, shown)]
    return out


def _photo_chunk(arguments):
    seed, count = arguments
    rng = np.random.default_rng(seed)
    return [(photo_cell(rng, photo), soft_label(value), "photo")
            for value, photo, _ in (_photos[int(rng.integers(len(_photos)))] for _ in range(count))]


def _close_up_chunk(arguments):
    seed, count = arguments
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        image, value = render.wheel_photo(rng, _faces, CLOSE_UP_STROKE_SHARE, _wide_share)
        out.append((photo_cell(rng, image), soft_label(value), "close-up"))
    return out


def generate(seed, windows, photos, faces, processes=2, chunk=250, augmented=True, single=0, stroke_share=0.0,
             rendered_single=0, wide_share=0.0):
    """The cells of `windows` windows of the training mix (counters in designs drawn from strokes
    `stroke_share` of the time), of `single` photos read alone (`photo_cell`) and of
    `rendered_single` close-ups of rendered wheels read the same way (`render.wheel_photo`, its
    `wide_share`), the same for the same seed."""
    jobs = [job + (augmented,) for job in data.jobs(seed * 1_000_003, windows, chunk)]
    photo_jobs = data.jobs(seed * 1_000_003 + 500_000, single, chunk * 4)
    close_up_jobs = data.jobs(seed * 1_000_003 + 700_000, rendered_single, chunk * 4)
    with Pool(processes, initializer=_start, initargs=(photos, faces, stroke_share, wide_share)) as pool:
        parts = pool.map(_chunk, jobs) + pool.map(_photo_chunk, photo_jobs) + pool.map(_close_up_chunk, close_up_jobs)
    return [item for part in parts for item in part]
