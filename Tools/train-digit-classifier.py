#!/usr/bin/env python3
"""Trains the digit cell classifier that gives the sequence reader a second opinion per digit.

    /tmp/venv/bin/python Tools/train-digit-classifier.py [--rounds 8] [--seed 1]

(The venv and fonts as for Tools/train-digit-reader.py.) Trains on cells cut from the same windows
the sequence reader trains on (digitreader/cells.py): meterdigits' training set-ups composed into
strips, and displays and counters of the training style, all through the random camera; a wheel
caught between two digits is a share of each. Keeps the round that reads the development cells
best (cut the same way from meterdigits' development set-ups and rendered windows) together with
the development set-ups' settled photos as taken, and writes
Sources/Plugins/DigitReader/digit-cells.onnx. Seeded: the same seed, the same cells and order.
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--meterdigits", default=os.path.join(ROOT, "../shared/data/meterdigits"))
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--windows", type=int, default=20000, help="fresh windows a round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", default=os.path.join(ROOT, "Sources/Plugins/DigitReader"))
    arguments = parser.parse_args()
    torch.manual_seed(arguments.seed)
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(arguments.seed)

    faces = render.available_faces()
    photos = compose.load(arguments.meterdigits)
    train = [photo for photo in photos if photo[2] == "train"]
    dev_photos = [photo for photo in photos if photo[2] == "dev"]
    dev = cells.generate(arguments.seed + 7919, 1500, dev_photos, faces)
    dev_settled = settled_photos(dev_photos)
    print(f"meterdigits: {len(train)} training photos; development: {len(dev)} cells, "
          f"{len(dev_settled)} settled photos", flush=True)

    model = CellClassifier()
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps_per_round = None
    best = (-1.0, None)
    os.makedirs(arguments.output, exist_ok=True)
    for round_index in range(arguments.rounds):
        started = time.time()
        items = cells.generate(arguments.seed * 1000 + round_index, arguments.windows, train, faces)
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
        if score > best[0]:
            best = (score, {key: value.clone() for key, value in model.state_dict().items()})
            export(model, os.path.join(arguments.output, "digit-cells.onnx"))
            print(f"  kept (development {score:.4f})", flush=True)
            model.train()
    print(f"best development {best[0]:.4f}; wrote {os.path.join(arguments.output, 'digit-cells.onnx')}")


if __name__ == "__main__":
    main()
