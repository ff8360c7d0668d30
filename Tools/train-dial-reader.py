#!/usr/bin/env python3
"""Trains a pointer dial network: an experiment, measured and not adopted (the dials plugin reads
pointers by geometry; docs/recognizers.md, *A dial network, tried*).

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch onnx opencv-python-headless numpy pillow
    apt-get install fonts-liberation2 fonts-freefont-ttf fonts-croscore fonts-roboto-unhinted fonts-open-sans
    /tmp/venv/bin/python Tools/train-dial-reader.py --output DIR --measure SET...   # about 20 minutes on 2 cores

Trains only on dials of the training style (Tools/dialnet/render.py; never on
Tools/make-dial-meters.py's styles, which measure), drawn afresh from the seed: --samples for
training, 2,000 more for development. Picks the epoch that reads the development dials best (the
share within 0.2 of a division) and writes dial-network.onnx (ONNX opset 11: Conv, BatchNorm,
ReLU, MaxPool) and dial-network.json (the box side, the recipe, the development figure) to
--output. Seeded: the same seed and thread count, the same network. `--measure SET...` then reads
sets of Tools/make-dial-meters.py with it, each box cut and prepared as a plugin would (an
anticlockwise dial mirrored), and prints the share within 0.2 and 0.5 of a division.
"""
import argparse
import csv
import json
import multiprocessing
import os
import sys
import time

import cv2
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dialnet import render  # noqa: E402
from dialnet.model import DialNetwork, value_of  # noqa: E402

CHUNK = 500


def _chunk(arguments):
    seed, index = arguments
    rng = np.random.default_rng([seed, index])
    crops, values = zip(*(render.sample(rng) for _ in range(CHUNK)))
    return np.stack(crops), np.array(values, np.float32)


def draw(seed, first_chunk, count, pool):
    chunks = pool.map(_chunk, [(seed, first_chunk + index) for index in range((count + CHUNK - 1) // CHUNK)])
    crops = np.concatenate([crops for crops, _ in chunks])[:count]
    values = np.concatenate([values for _, values in chunks])[:count]
    return crops, values


def targets(values):
    angle = torch.as_tensor(values) * (2 * torch.pi / 10)
    return torch.stack([torch.cos(angle), torch.sin(angle)], dim=1)


def apart(a, b):
    difference = torch.remainder(torch.abs(a - b), 10)
    return torch.minimum(difference, 10 - difference)


def evaluate(network, inputs, values, batch=512):
    network.eval()
    errors = []
    with torch.no_grad():
        for start in range(0, len(inputs), batch):
            read, _ = value_of(network(inputs[start:start + batch]).flatten(1))
            errors.append(apart(read, torch.as_tensor(values[start:start + batch])))
    return torch.cat(errors)


def measure(network, folder):
    """The dials of a Tools/make-dial-meters.py set: each box cut from its photo, an anticlockwise
    dial mirrored, as the plugin does."""
    crops, truths = [], []
    with open(os.path.join(folder, "labels.csv")) as file:
        for row in csv.DictReader(file):
            image = cv2.imread(os.path.join(folder, row["file"]))
            for setting, truth in zip(row["dials"].split(";"), row["positions"].split("|")):
                box, _, direction = setting.split(":")
                x, y, w, h = map(int, box.split())
                crop = render.prepare_square(image[max(0, y):y + h, max(0, x):x + w])
                crops.append(crop[:, ::-1] if direction == "ccw" else crop)
                truths.append(float(truth))
    errors = evaluate(network, torch.from_numpy(render.normalised(np.stack(crops))), np.array(truths, np.float32))
    return (errors <= 0.2).float().mean().item(), (errors <= 0.5).float().mean().item(), errors.mean().item()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=60000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--width", type=float, default=1.0, help="channel width multiplier")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", required=True)
    parser.add_argument("--measure", nargs="*", default=[], metavar="SET")
    arguments = parser.parse_args()
    torch.manual_seed(arguments.seed)
    torch.set_num_threads(arguments.threads)
    torch.use_deterministic_algorithms(True)
    started = time.time()
    with multiprocessing.Pool(arguments.threads) as pool:
        crops, values = draw(arguments.seed, 0, arguments.samples, pool)
        dev_crops, dev_values = draw(arguments.seed, 1_000_000, 2000, pool)
    inputs = torch.from_numpy(render.normalised(crops))
    dev_inputs = torch.from_numpy(render.normalised(dev_crops))
    wanted = targets(values)
    print(f"{len(inputs)} training and {len(dev_inputs)} development dials drawn at {time.time() - started:.0f} s",
          flush=True)
    network = DialNetwork(arguments.width)
    optimiser = torch.optim.AdamW(network.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = arguments.epochs * ((len(inputs) + arguments.batch - 1) // arguments.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    generator = torch.Generator().manual_seed(arguments.seed)
    best, best_state = -1.0, None
    for epoch in range(arguments.epochs):
        network.train()
        order = torch.randperm(len(inputs), generator=generator)
        total = 0.0
        for start in range(0, len(inputs), arguments.batch):
            batch = order[start:start + arguments.batch]
            output = network(inputs[batch]).flatten(1)
            loss = torch.nn.functional.mse_loss(output, wanted[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(batch)
        errors = evaluate(network, dev_inputs, dev_values)
        within = (errors <= 0.2).float().mean().item()
        print(f"epoch {epoch}: loss {total / len(inputs):.4f} dev within 0.2 {within:.4f} "
              f"mean {errors.mean().item():.3f} at {time.time() - started:.0f} s", flush=True)
        if within > best:
            best, best_state = within, {key: value.clone() for key, value in network.state_dict().items()}
    network.load_state_dict(best_state)
    network.eval()
    os.makedirs(arguments.output, exist_ok=True)
    path = os.path.join(arguments.output, "dial-network.onnx")
    torch.onnx.export(network, torch.zeros(1, 3, render.SIDE, render.SIDE), path, opset_version=11,
                      input_names=["box"], output_names=["pointer"], dynamo=False)
    recipe = {key: getattr(arguments, key) for key in ("seed", "samples", "epochs", "batch", "width", "threads")}
    with open(os.path.join(arguments.output, "dial-network.json"), "w") as file:
        json.dump({"side": render.SIDE, "recipe": recipe, "development_within_0_2": round(best, 4)}, file, indent=2)
        file.write("\n")
    print(f"best development {best:.4f}; wrote {path} ({os.path.getsize(path)} bytes) at {time.time() - started:.0f} s")
    for folder in arguments.measure:
        within, half, mean = measure(network, folder)
        print(f"{os.path.basename(folder.rstrip('/'))}: within 0.2 {within:.3f}, within 0.5 {half:.3f}, mean {mean:.3f}")


if __name__ == "__main__":
    main()
