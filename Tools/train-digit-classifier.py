#!/usr/bin/env python3
"""Trains the digit cell classifier that gives the sequence reader a second opinion per digit.

    /tmp/venv/bin/python Tools/train-digit-classifier.py [--rounds 10] [--windows 15000] [--seeds 1]

(The venv and fonts as for Tools/train-digit-reader.py, and the faces render.MORE_FACES names:
apt-get install the packages in render.MORE_FACES_PACKAGES.) Trains on cells cut from windows made
as the sequence reader's are (digitreader/cells.py): meterdigits' training meters composed into
strips, and seven-segment and dot-matrix displays and counters of the training style (counters
in 46 faces, not 16; `--stroke-share` draws some in designs made of strokes instead), all
through the random camera; and 20,000 training photos a round read alone, as another meter's
camera might take them (`cells.photo_cell`), with 8,000 close-ups of rendered wheels read the same
way (`render.wheel_photo`, a third in designs drawn from strokes); a wheel caught between two
digits is a share of
each. One classifier per seed (about 40 minutes on 2 cores of a slow machine; the one shipped is
seed 1's; with several seeds the file is their mean, `average`, and the seeds can be trained as
separate commands and `--average`d). Keeps the round that reads the development cells
best (cut the same way from meterdigits' development meters and rendered windows) together with
the development meters' settled photos as taken, and writes
Sources/Plugins/DigitReader/digit-cells.onnx. With `--all-meters` (the shipped classifier) it
trains on every meter, the development ones too, and keeps the last round: every meter-split
training so far kept its last round, and 31 meters more are worth more to a meter never seen
than a development figure (the development figures it prints are then not held out). Seeded: the same seeds, the same cells and order.
"""
import argparse
import os
import random
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digitreader import cells, compose, render  # noqa: E402
from digitreader.ensemble import average  # noqa: E402
from digitreader.features import expose_features  # noqa: E402
from digitreader.model import CellClassifier  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tensors(items):
    images = torch.from_numpy(np.stack([cell for cell, *_ in items])[:, None])
    labels = torch.from_numpy(np.stack([label for _, label, *_ in items]))
    return images, labels


def accuracy(model, items):
    """Share of cells whose likeliest digit holds the label's larger share (a wheel right at half
    way may be read as either), per kind and overall."""
    model.eval()
    with torch.no_grad():
        images, labels = tensors(items)
        scores = torch.cat([model(images[start:start + 512]) for start in range(0, len(items), 512)])
    model.train()
    best = scores.argmax(1)
    right = labels[torch.arange(len(items)), best] >= labels.max(1).values - 1e-6
    kinds = {}
    for ok, (*_, kind) in zip(right.tolist(), items):
        total, good = kinds.get(kind, (0, 0))
        kinds[kind] = (total + 1, good + ok)
    return float(right.float().mean()), {kind: round(good / total, 4) for kind, (total, good) in kinds.items()}


def warped(images, share, strength):
    """`share` of the cells bent by a smooth random field (elastic distortion, as for handwritten
    digits): each control point of a 4 x 6 grid moves up to `strength` of the half-width and
    half-height, bicubically between them, so strokes bend and bowls change shape as another
    design's would. Draws from torch's generator only when `share` > 0."""
    if share <= 0:
        return images
    import torch.nn.functional as functional
    count = images.shape[0]
    chosen = torch.rand(count) < share
    if not bool(chosen.any()):
        return images
    picked = int(chosen.sum())
    scale = torch.rand(picked, 1, 1, 1) * strength
    field = (torch.rand(picked, 2, 6, 4) * 2 - 1) * scale
    field = functional.interpolate(field, size=images.shape[2:], mode="bicubic", align_corners=True)
    identity = functional.affine_grid(torch.eye(2, 3).expand(picked, 2, 3), [picked, 1, *images.shape[2:]],
                                      align_corners=True)
    grid = identity + field.permute(0, 2, 3, 1)
    images = images.clone()
    images[chosen] = functional.grid_sample(images[chosen], grid, mode="bilinear", padding_mode="border",
                                            align_corners=True)
    return images


def settled_photos(photos):
    """Development photos of settled digits (labels x.0) as the camera took them, read whole."""
    import cv2
    return [(cells.prepare_cell(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)), cells.soft_label(value), "photo")
            for value, image, _ in photos if value == int(value)]


def export(model, path):
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, cells.CELL_HEIGHT, cells.CELL_WIDTH), path, opset_version=11,
                      input_names=["cells"], output_names=["scores"], dynamo=False,
                      dynamic_axes={"cells": {0: "n"}, "scores": {0: "n"}})
    expose_features(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--meterdigits", default=os.path.join(ROOT, "../shared/data/meterdigits"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--windows", type=int, default=15000, help="fresh windows a round")
    parser.add_argument("--single", type=int, default=20000,
                        help="meterdigits photos a round read alone, as a camera of another meter takes them")
    parser.add_argument("--width", type=float, default=1.0, help="channel width multiplier")
    parser.add_argument("--all-meters", action="store_true",
                        help="train on every meter of meterdigits, the development meters too, and keep "
                             "the last round (the development figures printed are then not held out)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1],
                        help="train one classifier per seed; more than one: ship their mean")
    parser.add_argument("--output", default=os.path.join(ROOT, "Sources/Plugins/DigitReader"))
    parser.add_argument("--average", nargs="+", metavar="ONNX",
                        help="write the mean of these trainings to OUTPUT/digit-cells.onnx and stop")
    parser.add_argument("--add-faces", type=render.parse_faces, default=[], metavar="FONT,...",
                        help="more font files for the training counters (the development cells keep the "
                             "faces of render.MORE_FACES, so that trainings stay comparable)")
    parser.add_argument("--rendered-single", type=int, default=8000,
                        help="close-ups of rendered wheels a round read alone, a third in designs drawn from "
                             "strokes (render.wheel_photo)")
    parser.add_argument("--stroke-share", type=float, default=0.0,
                        help="share of the training counters drawn from strokes in random designs "
                             "(digitreader/strokes.py; the development cells keep the font faces)")
    parser.add_argument("--wide-wheels", type=float, default=0.0,
                        help="share of the font close-ups whose digits stand 1.05-1.35 window heights apart, "
                             "55-90%% of the height (render.wheel_photo's wide_share; 0: none)")
    parser.add_argument("--elastic", type=float, default=0.0,
                        help="share of the training cells bent by a smooth random field (`warped`; 0: none)")
    parser.add_argument("--elastic-strength", type=float, default=0.15,
                        help="how far the field moves a control point at most, in half-widths and half-heights")
    parser.add_argument("--expose-features", metavar="ONNX",
                        help="add the `features` output (digitreader/features.py) to a classifier trained "
                             "before it was exported with one, and stop")
    arguments = parser.parse_args()
    os.makedirs(arguments.output, exist_ok=True)
    target = os.path.join(arguments.output, "digit-cells.onnx")
    if arguments.expose_features:
        expose_features(arguments.expose_features)
        return
    if arguments.average:
        average(arguments.average, target)
        return
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    faces = render.available_faces(more=True)
    photos = compose.load(arguments.meterdigits)
    if len(arguments.seeds) == 1:
        train(arguments, arguments.seeds[0], photos, faces, target)
        return
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        paths = [os.path.join(folder, f"seed-{seed}.onnx") for seed in arguments.seeds]
        for seed, path in zip(arguments.seeds, paths):
            train(arguments, seed, photos, faces, path)
        average(paths, target)
    print(f"wrote the mean of seeds {arguments.seeds} to {target}")


def train(arguments, seed, photos, faces, path):
    """One classifier from `seed`, the round that reads the development cells and photos best
    exported to `path`."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    dev_photos = [photo for photo in photos if photo[2] == "dev"]
    train_photos = photos if arguments.all_meters else [photo for photo in photos if photo[2] == "train"]
    dev = cells.generate(seed + 7919, 1500, dev_photos, faces)
    faces = faces + arguments.add_faces
    dev_settled = settled_photos(dev_photos)
    print(f"seed {seed}: meterdigits: {len(train_photos)} training photos; development: {len(dev)} cells, "
          f"{len(dev_settled)} settled photos", flush=True)

    model = CellClassifier(arguments.width)
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps_per_round = None
    best = -1.0
    for round_index in range(arguments.rounds):
        started = time.time()
        items = cells.generate(seed * 1000 + round_index, arguments.windows, train_photos, faces,
                               single=arguments.single, stroke_share=arguments.stroke_share,
                               rendered_single=arguments.rendered_single, wide_share=arguments.wide_wheels)
        generated = time.time() - started
        if steps_per_round is None:
            steps_per_round = (len(items) + 127) // 128
            schedule = torch.optim.lr_scheduler.OneCycleLR(
                optimiser, max_lr=2e-3, total_steps=steps_per_round * arguments.rounds + 1, pct_start=0.1)
        order = list(range(len(items)))
        rng.shuffle(order)
        total = 0.0
        for step, start in enumerate(range(0, len(order), 128)):
            if step >= steps_per_round:
                break
            images, labels = tensors([items[index] for index in order[start:start + 128]])
            images = warped(images, arguments.elastic, arguments.elastic_strength)
            loss = -(labels * torch.log_softmax(model(images), 1)).sum(1).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        cells_right, kinds = accuracy(model, dev)
        photos_right, _ = accuracy(model, dev_settled)
        score = (cells_right + photos_right) / 2
        print(f"round {round_index}: {len(items)} cells ({generated:.0f} s), loss {total / steps_per_round:.4f}, "
              f"dev cells {cells_right:.4f} {kinds}, settled photos {photos_right:.4f} "
              f"({time.time() - started:.0f} s)", flush=True)
        if arguments.all_meters and round_index < arguments.rounds - 1:
            continue
        if score > best:
            best = score
            export(model, path)
            model.train()
            print(f"  kept (development {score:.4f})", flush=True)
    print(f"seed {seed}: best development {best:.4f}; wrote {path}", flush=True)


if __name__ == "__main__":
    main()
