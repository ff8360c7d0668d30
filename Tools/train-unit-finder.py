#!/usr/bin/env python3
"""Trains a unit finder: a small convolutional network that looks at the print around a row of
digits and says which unit a display shows there, so that a photo read with no kind told could be
read as a thermometer's (a temperature unit, °C or °F) or a glucose meter's (mg/dL or mmol/L).
Tried as R195 and not shipped (docs/recognizers.md, *The kind named by the unit beside the
digits*): nothing in the project loads its file yet.

    /tmp/venv/bin/python Tools/train-unit-finder.py --output /tmp/unit/unit-finder.onnx [--samples 60000] [--epochs 9] [--seed 1]

(The venv and fonts as for Tools/train-digit-classifier.py: the faces of render.available_faces
with more=True, and `PRINT_FACES`; about 35 minutes on 2 cores.) Trains only on crops drawn here:
a row of digits in the reader's training style (Tools/rowfinder/scenes.py `digit_row`:
seven-segment, dot-matrix, counters and print), a display's ground and a bezel around it, and in
each crop a temperature unit (3 in 10), a glucose unit (3 in 10), or nothing, with print that is
neither (kWh, mmHg, SYS, a clock, a brand) in half of all crops; units in the training faces,
never in DejaVu, which Tools/make-device-photos.py draws with. The crop is what a host would cut
around a row's digit box: `REGION` digit heights to each side, turned, blurred, compressed,
scaled to WIDTH x HEIGHT grey (area down, linear up) with zero mean and unit spread, as
digit_reader.cpp `prepareCell` does (`pm_cells_run` with one cell the crop's width runs it). The
network answers 3 scores: no unit, a temperature unit, a glucose unit. Seeded: the same seed, the
same crops and order.
"""
import argparse
import multiprocessing
import os
import sys
import time

import cv2
import numpy as np
import torch
from PIL import Image, ImageDraw, ImageFont
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digitreader import cells, render  # noqa: E402
from rowfinder import scenes  # noqa: E402

HEIGHT, WIDTH = 96, 240
CLASSES = ["none", "temperature", "glucose"]
# The crop around a row's digit box, in digit heights: left, above, right, below (the unit sits
# beside the last digit or under the row, seldom before it).
REGION = (0.3, 0.6, 1.8, 0.8)
UNITS = {
    "temperature": ["°C", "°C", "°C", "°F", "° C", "°c"],
    "glucose": ["mg/dL", "mg/dL", "mg/dl", "mmol/L", "mmol/l", "MG/DL"],
}
OTHER_PRINT = ["kWh", "m³", "mmHg", "bpm", "%", "kPa", "V", "SYS", "DIA", "PUL", "MEM", "AM", "PM", "AVG",
               "Hi", "Lo", "SET", "No.", "L", "h", "min", "/min", "x0.1", "Memo", "Auto", "CE", "Pulse", "ml"]
# Print faces of every weight and slant beside the training faces (which are mostly bold): small
# print on a device is as often regular, serif or monospaced.
PRINT_FACES = [f"/usr/share/fonts/truetype/{folder}/{name}.ttf" for folder, names in [
    ("liberation2", ["LiberationSerif-Regular", "LiberationSerif-Italic", "LiberationSans-Regular",
                     "LiberationSans-Italic", "LiberationMono-Regular"]),
    ("freefont", ["FreeSerif", "FreeSerifItalic", "FreeSans", "FreeMono", "FreeMonoBold"]),
    ("croscore", ["Tinos-Regular", "Tinos-Italic", "Arimo-Regular", "Cousine-Regular", "Cousine-Bold"]),
] for name in names]
WORDS = ["Clinica", "Medi", "Accu", "Digital", "Thermo", "Gluco", "Check", "Pro", "Care", "Model 3"]


def ink_of(image):
    """The display's ground (its median colour) and ink (the colour farthest from it)."""
    pixels = image.reshape(-1, 3).astype(np.float32)
    ground = np.median(pixels, axis=0)
    ink = pixels[np.abs(pixels - ground).sum(axis=1).argmax()]
    return ground, ink


def text_image(label, face, size, ink, ground):
    """`label` printed in `face` at `size` pixels on `ground`, 2 pixels of ground around its ink:
    an RGB array."""
    font = ImageFont.truetype(face, max(6, int(size)))
    left, top, right, bottom = font.getbbox(label)
    canvas = Image.new("RGB", (right - left + 4, bottom - top + 4), tuple(int(v) for v in ground))
    ImageDraw.Draw(canvas).text((2 - left, 2 - top), label, fill=tuple(int(v) for v in ink), font=font)
    return np.asarray(canvas)


def region(x0, y0, x1, y1, digit_height):
    """The crop's bounds (left, top, right, bottom) around a digit box: `REGION` digit heights to
    each side."""
    return (x0 - REGION[0] * digit_height, y0 - REGION[1] * digit_height,
            x1 + REGION[2] * digit_height, y1 + REGION[3] * digit_height)


def place_print(canvas, box, rng, faces, label, ink, ground, digit_height, taken):
    """Prints `label` near the digit `box` (x0, y0, x1, y1) at a random spot inside the crop's
    region and clear of the boxes `taken` (the digits' and earlier print's, to which its own is
    added); False when it does not fit."""
    size = digit_height * rng.uniform(0.2, 0.75)
    image = text_image(label, faces[int(rng.integers(len(faces)))], size, ink, ground)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = box
    spot = rng.choice(["right-low", "right-high", "under-right", "under", "above-right"],
                      p=[0.35, 0.15, 0.3, 0.1, 0.1])
    if spot == "right-low":
        x, y = x1 + rng.uniform(0.05, 0.5) * digit_height, y1 - h - rng.uniform(-0.1, 0.25) * digit_height
    elif spot == "right-high":
        x, y = x1 + rng.uniform(0.05, 0.5) * digit_height, y0 + rng.uniform(-0.1, 0.2) * digit_height
    elif spot == "under-right":
        x, y = x1 - w + rng.uniform(-0.3, 0.9) * digit_height, y1 + rng.uniform(0.03, 0.3) * digit_height
    elif spot == "under":
        x, y = x0 + rng.uniform(0, 0.8) * max(1, x1 - x0 - w), y1 + rng.uniform(0.03, 0.3) * digit_height
    else:
        x, y = x1 - w + rng.uniform(-0.3, 0.6) * digit_height, y0 - h - rng.uniform(0.03, 0.3) * digit_height
    left, top, right, bottom = region(x0, y0, x1, y1, digit_height)
    if x < left or y < top or x + w > right or y + h > bottom:
        return False
    if any(x < tx1 + 2 and tx0 < x + w + 2 and y < ty1 + 2 and ty0 < y + h + 2 for tx0, ty0, tx1, ty1 in taken):
        return False
    taken.append((x, y, x + w, y + h))
    return scenes.paste(canvas, image, int(x), int(y))


def sample(rng, faces):
    """One crop as the host cuts it around a row (HEIGHT x WIDTH, prepared) and its class index;
    None when the draw does not fit."""
    made = scenes.digit_row(rng, faces, int(rng.integers(40, 110)))
    if made is None:
        return None
    row, x0, x1, top, bottom = made
    digit_height = bottom - top
    if digit_height < 8:
        return None
    ground, ink = ink_of(row)
    if rng.random() < 0.3:  # print in another colour than the digits' (a bezel's label)
        ink = np.array(scenes.colour(rng, 0, 256), np.float32)
    pad = int(3 * digit_height)
    canvas = np.zeros((row.shape[0] + 2 * pad, row.shape[1] + 2 * pad, 3), np.uint8)
    canvas[:] = ground.astype(np.uint8)
    # The display's edge and the bezel beyond it, on some sides.
    bezel = np.array(scenes.colour(rng), np.uint8)
    edges = [rng.uniform(0.1, 2.5) * digit_height if rng.random() < 0.5 else 10 * digit_height for _ in range(4)]
    cx0, cy0 = pad + x0 - edges[0], pad + top - edges[1]
    cx1, cy1 = pad + x1 + edges[2], pad + bottom + edges[3]
    outside = np.ones(canvas.shape[:2], bool)
    outside[max(0, int(cy0)):max(0, int(cy1)), max(0, int(cx0)):max(0, int(cx1))] = False
    canvas[outside] = bezel
    scenes.paste(canvas, row, pad, pad)
    box = (pad + x0, pad + top, pad + x1, pad + bottom)
    label = int(rng.choice(3, p=[0.4, 0.3, 0.3]))
    taken = [box]
    if label:
        unit = str(rng.choice(UNITS[CLASSES[label]]))
        if not place_print(canvas, box, rng, faces, unit, ink, ground, digit_height, taken):
            return None
    for _ in range(int(rng.choice(3, p=[0.5, 0.35, 0.15]))):  # print that is no unit of these
        kind = rng.random()
        other = str(rng.choice(OTHER_PRINT)) if kind < 0.6 else str(rng.choice(WORDS)) if kind < 0.8 else \
            f"{rng.integers(0, 24):02d}:{rng.integers(0, 60):02d}"
        place_print(canvas, box, rng, faces, other, ink, ground, digit_height, taken)
    return cut(canvas, box, rng), label


def cut(canvas, box, rng):
    """The crop the host would cut around `box` from `canvas` turned a little, seen at a slant,
    blurred, lit and compressed as a photo is, prepared as the network takes it."""
    h, w = canvas.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = np.float32(rng.uniform(-0.06, 0.06, (4, 2)) * [w, h])
    matrix = cv2.getPerspectiveTransform(corners, corners + jitter)
    angle = rng.uniform(-8, 8)
    turn = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0), [0, 0, 1]])
    matrix = turn @ matrix
    photo = cv2.warpPerspective(canvas, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE)
    x0, y0, x1, y1 = box
    points = cv2.perspectiveTransform(np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]), matrix)[0]
    bx0, by0 = points.min(axis=0)
    bx1, by1 = points.max(axis=0)
    height = by1 - by0
    # The row finder's box is not the ink's: a little off on every side.
    bx0 += rng.uniform(-0.1, 0.1) * height
    bx1 += rng.uniform(-0.15, 0.1) * height
    by0 += rng.uniform(-0.1, 0.1) * height
    by1 += rng.uniform(-0.1, 0.1) * height
    left, top, right, bottom = region(bx0, by0, bx1, by1, by1 - by0)
    crop = photo[int(max(0, top)):int(min(h, bottom)), int(max(0, left)):int(min(w, right))]
    if rng.random() < 0.5:
        crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 1.6))
    crop = crop.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    if rng.random() < 0.3:  # glare: a bright patch
        gh, gw = crop.shape[:2]
        mask = np.zeros((gh, gw), np.float32)
        cv2.ellipse(mask, (int(rng.uniform(0, gw)), int(rng.uniform(0, gh))),
                    (int(rng.uniform(0.1, 0.5) * gw), int(rng.uniform(0.1, 0.5) * gh)), rng.uniform(0, 180), 0, 360, 1, -1)
        crop += cv2.GaussianBlur(mask, (0, 0), max(1.0, 0.1 * gw))[..., None] * rng.uniform(40, 140)
    crop += rng.normal(0, rng.uniform(0, 8), crop.shape)
    crop = np.clip(crop, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        quality = int(rng.integers(30, 95))
        crop = cv2.imdecode(cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    if rng.random() < 0.1:
        grey = 255 - grey
    return prepare(grey)


def prepare(grey):
    """As digit_reader.cpp `prepareCell` does at WIDTH x HEIGHT (`cells.prepare_cell`)."""
    return cells.prepare_cell(grey, (WIDTH, HEIGHT))


class UnitFinder(nn.Module):
    """Four strided blocks and one more (16 to 64 channels), a max pooling over what is left (6 x
    15: the unit may be anywhere in the crop), and a dense layer to the 3 scores."""

    def __init__(self):
        super().__init__()

        def block(inputs, outputs, stride=1):
            return [nn.Conv2d(inputs, outputs, 3, stride, padding=1, bias=False), nn.BatchNorm2d(outputs),
                    nn.ReLU(inplace=True)]

        self.features = nn.Sequential(
            *block(1, 16, 2), *block(16, 32, 2), *block(32, 48), *block(48, 64, 2), *block(64, 64, 2),
            *block(64, 64), nn.MaxPool2d((HEIGHT // 16, WIDTH // 16)))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64, len(CLASSES)))

    def forward(self, image):
        return self.head(self.features(image))


CHUNK = 2000  # crops drawn from one seed of their own, so that chunks drawn in parallel are the same


def chunk(job):
    seed, index, count = job
    rng = np.random.default_rng([seed, index])
    faces = render.available_faces(more=True) + [face for face in PRINT_FACES if os.path.exists(face)]
    images, labels = [], []
    while len(images) < count:
        made = sample(rng, faces)
        if made is not None:
            images.append(made[0])
            labels.append(made[1])
    return np.stack(images).astype(np.float16), labels


def crops(count, seed, threads):
    """`count` crops and their classes, in chunks of CHUNK drawn on `threads` processes."""
    jobs = [(seed, index, min(CHUNK, count - start)) for index, start in enumerate(range(0, count, CHUNK))]
    with multiprocessing.Pool(threads) as pool:
        made = pool.map(chunk, jobs)
    images = np.concatenate([images for images, _ in made]).astype(np.float32)
    labels = [label for _, chunk_labels in made for label in chunk_labels]
    return torch.from_numpy(images[:, None]), torch.tensor(labels)


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        scores = torch.cat([model(images[start:start + 512]) for start in range(0, len(images), 512)])
    model.train()
    chances = scores.softmax(1)
    best = chances.argmax(1)
    sure = chances.max(1).values >= 0.9
    named = sure & (best > 0)
    return ((best == labels).float().mean().item(), named.sum().item(),
            (named & (best != labels)).sum().item(), ((labels > 0) & ~(named & (best == labels))).sum().item())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=60000)
    parser.add_argument("--epochs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", required=True)
    arguments = parser.parse_args()
    torch.set_num_threads(arguments.threads)
    torch.manual_seed(arguments.seed)
    render.available_faces(more=True)  # says what to install before any process starts
    started = time.time()
    images, labels = crops(arguments.samples, arguments.seed, arguments.threads)
    development = crops(3000, 1000 + arguments.seed, arguments.threads)
    print(f"{len(images)} training crops, {len(development[0])} development crops at {time.time() - started:.0f} s",
          flush=True)
    model = UnitFinder()
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = arguments.epochs * (len(images) // 64)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=2e-3, total_steps=steps)
    generator = torch.Generator().manual_seed(arguments.seed)
    loss_of = nn.CrossEntropyLoss()
    for epoch in range(arguments.epochs):
        order = torch.randperm(len(images), generator=generator)
        total = 0.0
        for start in range(0, len(order) - 63, 64):
            batch = order[start:start + 64]
            loss = loss_of(model(images[batch]), labels[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        right, named, wrong, missed = accuracy(model, *development)
        print(f"epoch {epoch}: loss {total / (len(order) // 64):.4f}, development {right:.4f} right, "
              f"{named} units named at 0.9 or more, {wrong} of them wrong, {missed} of "
              f"{int((development[1] > 0).sum())} units not named; {time.time() - started:.0f} s", flush=True)
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, HEIGHT, WIDTH), arguments.output, input_names=["crop"],
                      output_names=["scores"], opset_version=11, dynamo=False)
    print(f"wrote {arguments.output} ({os.path.getsize(arguments.output)} bytes)")


if __name__ == "__main__":
    main()
