#!/usr/bin/python3
"""Trains the digits plugin's network on the cell images `photometer-digits train --cells` wrote.

    Tools/train-digit-network.py CELLS OUT [--networks 2] [--epochs 32] [--conv1 16] [--conv2 32] [--hidden 128] [--seed 1]

A small convolutional network (see pm_network_create in photometer_vision.h): 3 x 3 convolution,
ReLU, 2 x 2 max pooling, twice; a dense ReLU layer; one score per digit. Trained with softmax
cross-entropy and Adam on mini-batches, each batch shifted by up to a pixel, the learning rate
falling from 1e-3 to 0 along a half cosine. Half the images have their polarity inverted: a cell's
polarity comes from its border, which a wheel window's frame can fool (4% of held-out real photos
read clearly better inverted), so the network learns digits of both polarities and the engine reads
every cell both ways (TemplateEngine.probabilities). A wheel's label in tenths becomes a
share of two digits (4.3: 0.7 of a 4 and 0.3 of a 5). `--networks N` (default 2) trains N networks alike
from the seeds SEED to SEED + N - 1, one process and one core each, which the engine reads
together (their scores averaged). numpy only (python3-numpy); the same cells and seeds give the
same networks. Writes OUT as digit-network.bin (see Sources/Plugins/DigitTemplates/DigitNetworkFile.swift).
"""
import os

# One core per network: the networks train side by side, and numpy's sums do not depend on how
# many threads its BLAS would otherwise take.
for variable in ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"]:
    os.environ[variable] = "1"

import argparse
import multiprocessing
import struct
import time

import numpy as np


def read_cells(path):
    data = open(path, "rb").read()
    magic, version, count, width, height = struct.unpack_from("<4sIIII", data)
    if magic != b"PMDC" or version != 1:
        raise SystemExit(f"{path} is not a version 1 cell file (photometer-digits train --cells)")
    labels = np.frombuffer(data, np.uint16, count, 20).astype(np.int64)
    images = np.frombuffer(data, np.float32, count * width * height, 20 + 2 * count)
    return labels, images.reshape(count, 1, height, width)


def shares(labels):
    """Target probabilities: a label in tenths split between its digit and the next."""
    digit, rolled = labels // 10, (labels % 10) / 10
    targets = np.zeros((len(labels), 10), np.float32)
    targets[np.arange(len(labels)), digit] += 1 - rolled
    targets[np.arange(len(labels)), (digit + 1) % 10] += rolled
    return targets


def patches(x):
    """N,C,H,W -> N,H,W,C*9: each pixel's 3 x 3 neighbourhood (zero padded), channel first."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    stacked = np.stack([padded[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)], axis=2)
    return stacked.reshape(n, c * 9, h, w).transpose(0, 2, 3, 1)


def unpatch(gradient, c, h, w):
    """The adjoint of patches: N,H,W,C*9 -> N,C,H,W."""
    n = gradient.shape[0]
    gradient = gradient.transpose(0, 3, 1, 2).reshape(n, c, 9, h, w)
    padded = np.zeros((n, c, h + 2, w + 2), np.float32)
    for k in range(9):
        i, j = divmod(k, 3)
        padded[:, :, i:i + h, j:j + w] += gradient[:, :, k]
    return padded[:, :, 1:-1, 1:-1]


def pool(a):
    n, h, w, c = a.shape
    blocks = a.reshape(n, h // 2, 2, w // 2, 2, c)
    return blocks.max((2, 4)), blocks


def unpool(gradient, blocks, pooled):
    mask = blocks == pooled[:, :, None, :, None, :]
    n, h, _, w, _, c = blocks.shape
    return (mask * gradient[:, :, None, :, None, :]).reshape(n, h * 2, w * 2, c)


class Network:
    def __init__(self, rng, conv1, conv2, hidden, height, width):
        def he(rows, columns):
            return rng.normal(0, np.sqrt(2 / rows), (rows, columns)).astype(np.float32)
        flat = (height // 4) * (width // 4) * conv2
        self.conv1, self.conv2, self.hidden = conv1, conv2, hidden
        self.p = {"k1": he(9, conv1), "b1": np.zeros(conv1, np.float32),
                  "k2": he(9 * conv1, conv2), "b2": np.zeros(conv2, np.float32),
                  "k3": he(flat, hidden), "b3": np.zeros(hidden, np.float32),
                  "k4": he(hidden, 10) * 0.5, "b4": np.zeros(10, np.float32)}
        self.m = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.steps = 0

    def forward(self, x):
        p = self.p
        c1 = patches(x)
        a1 = np.maximum(c1 @ p["k1"] + p["b1"], 0)
        p1, r1 = pool(a1)
        c2 = patches(p1.transpose(0, 3, 1, 2))
        a2 = np.maximum(c2 @ p["k2"] + p["b2"], 0)
        p2, r2 = pool(a2)
        flat = p2.reshape(len(x), -1)
        h = np.maximum(flat @ p["k3"] + p["b3"], 0)
        return h @ p["k4"] + p["b4"], (c1, a1, p1, r1, c2, a2, p2, r2, flat, h)

    def step(self, x, targets, rate):
        p = self.p
        z, (c1, a1, p1, r1, c2, a2, p2, r2, flat, h) = self.forward(x)
        z = np.exp(z - z.max(1, keepdims=True))
        dz = (z / z.sum(1, keepdims=True) - targets) / len(x)
        g = {"k4": h.T @ dz, "b4": dz.sum(0)}
        dh = dz @ p["k4"].T
        dh[h <= 0] = 0
        g["k3"], g["b3"] = flat.T @ dh, dh.sum(0)
        da2 = unpool((dh @ p["k3"].T).reshape(p2.shape), r2, p2)
        da2[a2 <= 0] = 0
        g["k2"] = c2.reshape(-1, c2.shape[-1]).T @ da2.reshape(-1, self.conv2)
        g["b2"] = da2.sum((0, 1, 2))
        h1, w1 = p1.shape[1], p1.shape[2]
        dp1 = unpatch(da2 @ p["k2"].T, self.conv1, h1, w1).transpose(0, 2, 3, 1)
        da1 = unpool(dp1, r1, p1)
        da1[a1 <= 0] = 0
        g["k1"], g["b1"] = c1.reshape(-1, 9).T @ da1.reshape(-1, self.conv1), da1.sum((0, 1, 2))
        self.steps += 1
        for k in p:  # Adam
            self.m[k] = 0.9 * self.m[k] + 0.1 * g[k]
            self.v[k] = 0.999 * self.v[k] + 0.001 * g[k] ** 2
            p[k] -= rate * (self.m[k] / (1 - 0.9 ** self.steps)) / (np.sqrt(self.v[k] / (1 - 0.999 ** self.steps)) + 1e-8)

    def serialised(self):
        """The network as the file holds it: its sizes, then its weights."""
        weights = np.concatenate([self.p[k].ravel() for k in ["k1", "b1", "k2", "b2", "k3", "b3", "k4", "b4"]])
        sizes = struct.pack("<IIIII", self.conv1, self.conv2, self.hidden, 10, len(weights))
        return sizes + weights.astype("<f4").tobytes()


def train(arguments, seed):
    """One network trained from `seed`, serialised."""
    labels, images = read_cells(arguments.cells)
    rng = np.random.default_rng(seed)
    network = Network(rng, arguments.conv1, arguments.conv2, arguments.hidden, images.shape[2], images.shape[3])
    targets = shares(labels)
    # A fixed twentieth is kept out of training to show how it goes (the read evaluation is the measure).
    watched = rng.random(len(labels)) < 0.05
    train = np.flatnonzero(~watched)
    batches = (len(train) + arguments.batch - 1) // arguments.batch
    start = time.time()
    for epoch in range(arguments.epochs):
        order = rng.permutation(train)
        for index, first in enumerate(range(0, len(order), arguments.batch)):
            rate = 5e-4 * (1 + np.cos(np.pi * (epoch * batches + index) / (arguments.epochs * batches)))
            batch = order[first:first + arguments.batch]
            dy, dx = rng.integers(-1, 2, 2)
            polarity = np.where(rng.random(len(batch)) < 0.5, -1, 1).astype(np.float32)[:, None, None, None]
            network.step(np.roll(images[batch], (dy, dx), axis=(2, 3)) * polarity, targets[batch], rate)
        # Read both ways, as the engine reads: the softmax of the mean scores.
        scores = network.forward(images[watched])[0] + network.forward(-images[watched])[0]
        right = np.mean(scores.argmax(1) == targets[watched].argmax(1))
        print(f"seed {seed}, epoch {epoch + 1}: {right:.2%} of the watched twentieth, {time.time() - start:.0f} s",
              flush=True)
    return network.serialised()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cells")
    parser.add_argument("out")
    parser.add_argument("--epochs", type=int, default=32)
    # The engine's forward pass takes layers of a power of two up to 256 (vision_network.cpp).
    widths = [1 << power for power in range(9)]
    parser.add_argument("--conv1", type=int, default=16, choices=widths)
    parser.add_argument("--conv2", type=int, default=32, choices=widths)
    parser.add_argument("--hidden", type=int, default=128, choices=widths)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--networks", type=int, default=2)
    arguments = parser.parse_args()
    seeds = range(arguments.seed, arguments.seed + arguments.networks)
    with multiprocessing.Pool(min(len(seeds), os.cpu_count() or 1)) as pool:
        networks = pool.starmap(train, [(arguments, seed) for seed in seeds])
    with open(arguments.out, "wb") as out:
        out.write(struct.pack("<4sII", b"PMDN", 2, len(networks)) + b"".join(networks))
    print(f"wrote {arguments.out}: {len(networks)} networks")


if __name__ == "__main__":
    main()
