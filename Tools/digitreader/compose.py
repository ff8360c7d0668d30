"""Real digit windows composed from ../shared/data/meterdigits, and the split that keeps a meter
on one side.

A meterdigits file name carries, after its label, the ROI name and the date of the camera's photo
(`4.0_10_dig7_20220602-132530.jpg`); the set-up key is that stem with the time of day dropped and
the date cut to the month (`10_dig7_202206`). A key names one digit position (dig7) of a meter, and
its siblings (dig1 to dig8, with or without a leading label such as `10_`) are the same meter, its
camera, light and face: so the split goes by meter, the key with its leading label and position
dropped (`dig_202206`: a meter's digits of one month, 128 meters in all; where one contributor's
meters share a month, they stay together). Names that are a bare content hash say nothing of
their set-up: they all go to training, never to the development part.
"""
import os
import re

import cv2
import numpy as np

from .render import round_digit

# One meter in four (by FNV-1a hash) is development, but for the few of more than LARGE photos
# (three quarters of the named photos), which always train: with one of them the development part
# would be a single meter. That leaves 1,068 development photos of 31 meters.
DEVELOPMENT_SHARE = 4
LARGE = 1000


def fnv1a(text):
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def setup_key(name):
    """The camera set-up a file belongs to, or None when the name does not tell."""
    stem = re.sub(r"^-?[0-9.]+(?=[_ -])", "", os.path.splitext(name)[0]).lstrip("_ -")
    if re.fullmatch(r"[0-9a-f]{32}", stem) or not stem:
        return None
    date = re.search(r"(20[12][0-9])-?([01][0-9])-?[0-3][0-9]", stem)
    if date:
        return stem[:date.start()] + date.group(1) + date.group(2)
    return re.sub(r"[0-9]+$", "", stem) or stem


def meter_key(name):
    """The meter a file belongs to (its set-up key without leading label and digit position), or
    None when the name does not tell."""
    key = setup_key(name)
    if key is None:
        return None
    return re.sub(r"(digit|dig|ziffer|ROI|nt|ht|D)[0-9]+", "dig", re.sub(r"^((NaN|[0-9.]+)_)*", "", key))


def file_names(root):
    """(label folder, file name) of every photo."""
    for label in sorted(os.listdir(root)):
        folder = os.path.join(root, label)
        if os.path.isdir(folder) and re.fullmatch(r"[0-9]\.[0-9]", label):
            for name in sorted(os.listdir(folder)):
                yield label, name


def development_part(root):
    """The meters of the development part."""
    sizes = {}
    for _, name in file_names(root):
        meter = meter_key(name)
        if meter is not None:
            sizes[meter] = sizes.get(meter, 0) + 1
    return {meter for meter, size in sizes.items() if size <= LARGE and fnv1a(meter) % DEVELOPMENT_SHARE == 0}


def load(root):
    """Every photo as (label value in [0, 10), grey image, part) with part 'train' or 'dev'."""
    development = development_part(root)
    photos = []
    for label, name in file_names(root):
        image = cv2.imread(os.path.join(root, label, name), cv2.IMREAD_COLOR)
        if image is not None:
            photos.append((float(label), image, "dev" if meter_key(name) in development else "train"))
    return photos


def development_meters(root, least=20):
    """The development part's photo files by meter, {meter: [(path, label value)]}, for meters of
    `least` photos or more: a development strip holds photos of one meter, as a validation strip
    holds one device's."""
    development = development_part(root)
    meters = {}
    for label, name in file_names(root):
        meter = meter_key(name)
        if meter in development:
            meters.setdefault(meter, []).append((os.path.join(root, label, name), float(label)))
    return {meter: photos for meter, photos in meters.items() if len(photos) >= least}


def real_strip(rng, photos):
    """Photos of one kind side by side, as a window of a counter shows them: gaps of the frame's
    colour, a frame above and below, sometimes a sliver of a neighbour at either end."""
    digits = int(rng.choice([1, 1, 2, 3, 4, 5, 5, 6, 6, 7, 7, 8]))
    height = 32
    width = int(round(20 * rng.uniform(0.8, 1.25)))
    gap = int(rng.choice([0, 0, 0, rng.integers(1, 6)]))
    frame = rng.integers(0, 256, 3).astype(np.uint8)
    pad_y = [int(rng.choice([0, 0, rng.integers(1, 7)])) for _ in range(2)]
    sliver = [int(rng.integers(3, 9)) if rng.random() < 0.2 else 0 for _ in range(2)]
    total = sliver[0] + digits * width + (digits - 1) * gap + sliver[1]
    image = np.zeros((height + sum(pad_y), total, 3), np.uint8) + frame
    shown = []
    x = 0
    if sliver[0]:
        part = cv2.resize(photos[int(rng.integers(len(photos)))][1], (width, height))
        image[pad_y[0]:pad_y[0] + height, :sliver[0]] = part[:, -sliver[0]:]
        x = sliver[0]
    for index in range(digits):
        value, photo, _ = photos[int(rng.integers(len(photos)))]
        image[pad_y[0]:pad_y[0] + height, x:x + width] = wheel(rng, cv2.resize(photo, (width, height), interpolation=cv2.INTER_AREA))
        shown.append((str(round_digit(value)), x, x + width, value))
        x += width + (gap if index < digits - 1 else 0)
    if sliver[1]:
        part = cv2.resize(photos[int(rng.integers(len(photos)))][1], (width, height))
        image[pad_y[0]:pad_y[0] + height, x:x + sliver[1]] = part[:, :sliver[1]]
    return image, shown


def wheel(rng, cell):
    """One wheel of a counter as it sits beside the others: a little higher or lower, larger or
    smaller, lighter or darker than its neighbours (wheels are never quite in line), the gap it
    opens filled with its own edge."""
    height, width = cell.shape[:2]
    scale = rng.uniform(0.9, 1.1)
    shift = rng.uniform(-0.08, 0.08) * height
    matrix = np.float32([[scale, 0, width / 2 * (1 - scale)], [0, scale, height / 2 * (1 - scale) + shift]])
    moved = cv2.warpAffine(cell, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE)
    return np.clip(moved.astype(np.float32) * rng.uniform(0.85, 1.15), 0, 255).astype(np.uint8)
