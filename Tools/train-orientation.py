#!/usr/bin/env python3
"""Trains the orientation finder: a small fully convolutional network that marks, in a whole photo,
the cores of rows of digits and which way each row's digits stand, so that the host can turn a
photo that lost its EXIF orientation upright before looking for rows in it.

    /tmp/venv/bin/python Tools/train-orientation.py [--scenes 6000] [--share 0.33] [--epochs 20] [--seed 1]

(The venv and fonts as for Tools/train-digit-reader.py; 29 minutes on 2 cores.) Trains only on
scenes drawn by Tools/rowfinder/scenes.py, each epoch turned a random quarter turn: a third of
them of devices from a quarter of the photo's size up and from wide to three times as tall as
wide (a thermometer's stick far off), the rest the row finder's own;
Tools/make-device-photos.py's photos are never trained on. The photo goes in as the row finder
takes it (320 pixels on its longer side, BGR, 0-1); the network answers, at an eighth of that,
5 scores a cell: background, or a row's core whose digits are turned 0, 90, 180 or 270 degrees
clockwise. The host sums each turn's chance over the map and turns the photo back by the largest
when it holds more than half of the turns' sum (`OrientationFinder`, digit_reader.cpp
`pm_turns_find`). `--measure DIR ...` counts the turns decided on device-photo sets. Seeded: the
same seed, the same scenes, turns and order. Writes Sources/Plugins/DigitReader/orientation.onnx.
"""
import argparse
import csv
import math
import os
import random
import sys
import time

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digitreader import render  # noqa: E402
from rowfinder import maps, scenes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LONG_SIDE = 320
STRIDE = 8
CORE_WEIGHT = 4.0  # a core cell weighs this many background cells in the loss: cores are few
TRUSTED_SHARE = 0.5  # the turn decided must hold more than this share of the turns' summed chance
LEAST_MASS = 1.0  # and the turns' summed chance be at least one cell's worth: a row is there


class OrientationFinder(nn.Module):
    """Three stride-2 convolutions, then dilated ones for context (a row's digits judged
    together, with the labels and frame around them), 5 scores per cell at stride 8."""

    def __init__(self, width=48):
        super().__init__()

        def block(inputs, outputs, stride=1, dilation=1):
            return [nn.Conv2d(inputs, outputs, 3, stride, padding=dilation, dilation=dilation, bias=False),
                    nn.BatchNorm2d(outputs), nn.ReLU(inplace=True)]

        self.layers = nn.Sequential(
            *block(3, 16, stride=2), *block(16, 32, stride=2), *block(32, width, stride=2), *block(width, width),
            *block(width, width, dilation=2), *block(width, width, dilation=4), nn.Conv2d(width, 5, 1))

    def forward(self, image):
        return self.layers(image)


def quarter_turn(quad):
    """How many quarter turns clockwise a row's digits stand: its top edge's direction, rounded."""
    dx, dy = quad[1] - quad[0]
    return int(round(math.degrees(math.atan2(dy, dx)) / 90)) % 4


def make_scenes(seed, count, faces, aspects, scales, share):
    """`count` upright scenes as (input, label map: 0 background, 1 + the row's turn on its
    digits: the whole row, not the row finder's core, which at stride 8 is often no cell): a
    `share` of them of devices `aspects` times as tall as wide at `scales` of the photo, the rest
    the row finder's (`scenes.scene`)."""
    rng = np.random.default_rng(seed)
    # Its own draws, so that a share of 0 gives the row finder's scenes, draw for draw.
    which = np.random.default_rng(seed + 104729)
    items = []
    for _ in range(count):
        if which.random() < share:
            photo, quads = scenes.scene(rng, faces, aspects, scales)
        else:
            photo, quads = scenes.scene(rng, faces)
        image, sx, sy = maps.prepare(photo, LONG_SIDE)
        labels = maps.core_mask(quads, image.shape[2], image.shape[1], sx, sy, STRIDE,
                                values=[1 + quarter_turn(quad) for quad in quads], core=(0, 1), inset=0)
        items.append((image, labels.astype(np.int64)))
    return items


def turned(item, k):
    """A scene turned k quarter turns anticlockwise: its digits stand k quarter turns further
    anticlockwise, i.e. their clockwise turn drops by k."""
    image, labels = item
    image = np.ascontiguousarray(np.rot90(image, k, axes=(1, 2)))
    labels = np.ascontiguousarray(np.rot90(labels, k))
    labels = np.where(labels > 0, (labels - 1 - k) % 4 + 1, 0)
    return image, labels


def turn_masses(model, image):
    """Each turn's chance summed over the map."""
    with torch.no_grad():
        chances = torch.softmax(model(torch.from_numpy(image)[None]), 1)[0]
    return chances[1:].sum((1, 2)).numpy()


def decided(masses):
    """The clockwise quarter turn the photo's digits stand at, or None when the turns' summed
    chance is under LEAST_MASS or no turn holds more than TRUSTED_SHARE of it (the host then
    leaves the photo as it is)."""
    best, total = int(np.argmax(masses)), float(masses.sum())
    return best if total >= LEAST_MASS and masses[best] > TRUSTED_SHARE * total else None


def batches(shapes, size, rng):
    """Batches of one input size, shuffled."""
    groups = {}
    for index, shape in enumerate(shapes):
        groups.setdefault(shape, []).append(index)
    chunks = []
    for indices in groups.values():
        rng.shuffle(indices)
        chunks += [indices[start:start + size] for start in range(0, len(indices), size)]
    rng.shuffle(chunks)
    return chunks


def evaluate(model, development):
    """The share of development scenes, each at all four turns, whose turn is decided right,
    and the share left undecided."""
    model.eval()
    right = undecided = 0
    for item in development:
        for k in range(4):
            image, _ = turned(item, k)
            turn = decided(turn_masses(model, image))
            right += turn == (-k) % 4
            undecided += turn is None
    model.train()
    return right / (4 * len(development)), undecided / (4 * len(development))


def measure(model, folder):
    """How many photos of a device-photo set are decided at each turn (None: left as they are)."""
    model.eval()
    counts = {}
    with open(os.path.join(folder, "labels.csv")) as file:
        for row in csv.DictReader(file):
            image, _, _ = maps.prepare(cv2.imread(os.path.join(folder, row["file"])), LONG_SIDE)
            turn = decided(turn_masses(model, image))
            counts[turn] = counts.get(turn, 0) + 1
    model.train()
    return counts


def export(model, path):
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 3, 192, 256), path, opset_version=11, input_names=["photo"],
                      output_names=["turns"], dynamo=False,
                      dynamic_axes={"photo": {2: "height", 3: "width"}, "turns": {2: "h", 3: "w"}})


def span(text):
    """A range LOW,HIGH."""
    low, high = (float(part) for part in text.split(","))
    if not 0 < low <= high:
        raise argparse.ArgumentTypeError(f"{text}: want LOW,HIGH with 0 < LOW <= HIGH")
    return low, high


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=6000)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--share", type=float, default=0.33,
                        help="the share of scenes drawn with --aspects and --scales; the rest are the row finder's")
    parser.add_argument("--aspects", type=span, default=(0.35, 3.0), metavar="LOW,HIGH",
                        help="their devices' height over width (the row finder's scenes: 0.6,1.6)")
    parser.add_argument("--scales", type=span, default=(0.25, 1.1), metavar="LOW,HIGH",
                        help="their devices' size, a share of the largest the photo holds (the row finder's: 0.45,1.1)")
    parser.add_argument("--output", default=os.path.join(ROOT, "Sources/Plugins/DigitReader"))
    parser.add_argument("--measure", nargs="*", default=[], metavar="DIR",
                        help="device-photo sets to count the decided turns of (never trained on)")
    arguments = parser.parse_args()
    torch.set_num_threads(arguments.threads)
    torch.manual_seed(arguments.seed)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(arguments.seed)
    faces = render.available_faces()
    started = time.time()
    shape = (arguments.aspects, arguments.scales, arguments.share)
    items = make_scenes(arguments.seed, arguments.scenes, faces, *shape)
    development = make_scenes(arguments.seed + 7919, 300, faces, *shape)
    print(f"{len(items)} training scenes, {len(development)} development ({time.time() - started:.0f} s)", flush=True)
    model = OrientationFinder()
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = len(items) // 16 + 4
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps * arguments.epochs + 1,
                                                   pct_start=0.15)
    weights = torch.tensor([1.0] + [CORE_WEIGHT] * 4)
    for epoch in range(arguments.epochs):
        started = time.time()
        turns = [rng.randrange(4) for _ in items]
        shapes = [np.rot90(image[0], turn).shape for (image, _), turn in zip(items, turns)]
        total, count = 0.0, 0
        for batch in batches(shapes, 16, rng):
            group = [turned(items[index], turns[index]) for index in batch]
            images = torch.from_numpy(np.stack([image for image, _ in group]))
            labels = torch.from_numpy(np.stack([label for _, label in group]))
            loss = nn.functional.cross_entropy(model(images), labels, weight=weights)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
            count += 1
        right, undecided = evaluate(model, development)
        print(f"epoch {epoch}: loss {total / count:.4f}, development turns right {right:.3f}, "
              f"undecided {undecided:.3f} ({time.time() - started:.0f} s)", flush=True)
    os.makedirs(arguments.output, exist_ok=True)
    path = os.path.join(arguments.output, "orientation.onnx")
    export(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    for folder in arguments.measure:
        print(f"{folder}: turns decided {measure(model, folder)}", flush=True)


if __name__ == "__main__":
    main()
