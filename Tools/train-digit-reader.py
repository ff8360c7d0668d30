#!/usr/bin/env python3
"""Trains the sequence digit reader and exports it for the reader plugin.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch onnx opencv-python-headless numpy pillow
    apt-get install fonts-liberation2 fonts-freefont-ttf fonts-croscore fonts-roboto-unhinted \
        fonts-open-sans fonts-urw-base35 fonts-dseg xfonts-base
    /tmp/venv/bin/python Tools/train-digit-reader.py   # the shipped network, 42-81 minutes on 2 cores
    /tmp/venv/bin/python Tools/train-digit-reader.py --bitmap-share 0.5 --name digit-reader-bitmap
    /tmp/venv/bin/python Tools/train-digit-reader.py --seed 2 --name digit-reader-seed-2   # the panel's others

(`--write-development` also draws faces no network trains on: apt-get install the packages in
render.UNSEEN_FACES_PACKAGES.)

Trains only on ../shared/data/meterdigits (its training part: see digitreader/compose.py for the
split that keeps a meter on one side) composed into windows, and on displays and counters
of the training style (digitreader/render.py). Picks the epoch that reads the development part
best, fits the softmax temperature on it (so that a digit's confidence is its chance of being
right), and writes Sources/Plugins/DigitReader/digit-reader.onnx and digit-reader.json.
Seeded: the same seed, the same data and the same order (PyTorch on CPU with deterministic
kernels, 2 threads unless --threads says otherwise; the same seed at another thread count is
another training). The temperature and the peak lead (where the network's surest column for a
digit lies, for the cell classifier's cells) are fitted on the development windows and written to
digit-reader.json with the recipe that made the network.
With --teachers, the network also learns the columns' class probabilities of exported readers
(the shipped one and the panel's others, say), averaged: one network taught what several read.
"""
import argparse
import hashlib
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cv2  # noqa: E402
from digitreader import augment, compose, data, render  # noqa: E402
from digitreader import development as development_sets  # noqa: E402
from digitreader.model import BLANK, CLASSES, HEIGHT, STRIDE, DigitReader  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def padded(images, multiple=1):
    """`images` (HEIGHT x width each) as one N x 1 x HEIGHT x W array, W the widest rounded up to
    `multiple`, padded with zeros (the prepared images' mean)."""
    width = max(image.shape[1] for image in images)
    width += (-width) % multiple
    batch = np.zeros((len(images), 1, HEIGHT, width), np.float32)
    for row, image in enumerate(images):
        batch[row, 0, :, :image.shape[1]] = image
    return batch


def width_groups(items, size):
    """The indices of `items` ((image, ...) each) in groups of `size`, narrowest first, so that
    windows of similar width go through the network together."""
    order = sorted(range(len(items)), key=lambda index: items[index][0].shape[1])
    return [order[start:start + size] for start in range(0, len(order), size)]


def batches(samples, size, rng, soft=None, either=False):
    """Batches of samples of similar width, padded with zeros (the prepared images' mean). With
    `soft` (per sample, its columns' target probabilities: `soft_targets`), the batch's targets
    too, padded columns masked (NaN). With `either`, the characters two digits read right
    (`choosable`), whose target `losses` picks."""
    order = sorted(range(len(samples)), key=lambda index: samples[index][0].shape[1] + rng.random() * 6)
    groups = [order[start:start + size] for start in range(0, len(order), size)]
    rng.shuffle(groups)
    for group in groups:
        images = padded([samples[index][0] for index in group], STRIDE)
        width = images.shape[3]
        rolls = np.full((len(group), width // STRIDE), np.nan, np.float32)
        taught = np.full((len(group), len(CLASSES), width // STRIDE), np.nan, np.float32) if soft else None
        targets, lengths, either_of = [], [], []
        for row, index in enumerate(group):
            _, text, roll, readings = samples[index][:4]
            rolls[row, :len(roll)] = roll
            if soft:
                taught[row, :, :soft[index].shape[1]] = soft[index]
            if either:
                either_of += choosable(readings, row, len(targets))
            targets += data.encode(text)
            lengths.append(len(text))
        yield (torch.from_numpy(images), torch.tensor(targets, dtype=torch.long),
               torch.tensor(lengths, dtype=torch.long), torch.from_numpy(rolls),
               torch.from_numpy(taught) if soft else None, either_of)


def choosable(readings, row, offset):
    """A window's characters that two digits read right (a wheel between x and x + 1:
    `data.choices`) as (their index in the batch's targets, the window's row, the two classes, the
    first and last output column over the character)."""
    out = []
    for index, (options, first, last) in enumerate(readings):
        if len(options) == 2 and first <= last:
            out.append((offset + index, row, CLASSES.index(options[0]), CLASSES.index(options[1]), first, last))
    return out


def soft_targets(teachers, samples, threads, group_size=64):
    """Per sample, the teachers' class probabilities over its columns (C x its width // STRIDE),
    averaged: each teacher an exported reader (cv2.dnn) with its settings' temperature. Samples
    of similar width go through together, as `evaluate` reads them."""
    cv2.setNumThreads(threads)
    soft = [None] * len(samples)
    for group in width_groups(samples, group_size):
        images = padded([samples[index][0] for index in group], STRIDE)
        mean = 0
        for net, temperature in teachers:
            net.setInput(images)
            scores = net.forward()[:, :len(CLASSES), 0, :] / temperature
            scores = np.exp(scores - scores.max(1, keepdims=True))
            mean = mean + scores / scores.sum(1, keepdims=True) / len(teachers)
        for row, index in enumerate(group):
            soft[index] = mean[row, :, :samples[index][0].shape[1] // STRIDE].copy()
    return soft


def losses(model, batch, ctc):
    """The CTC loss, the wheel-position loss and, when the batch carries the teachers' targets,
    the distillation loss: the columns' mean KL divergence from the teachers' probabilities.
    A character two digits read right (the batch's `choosable`) is asked to be the one the network
    finds likelier at its surest column over it: either is right, and the nearer one (the label) is
    a coin toss around x.5 that the network cannot learn."""
    images, targets, lengths, rolls, taught, either_of = batch
    output = model(images)[:, :, 0, :]                        # N x 14 x T
    logits = output[:, :len(CLASSES)].permute(2, 0, 1)        # T x N x C
    frames = torch.full((images.shape[0],), logits.shape[0], dtype=torch.long)
    scores = logits.log_softmax(2)
    if either_of:
        targets = targets.clone()
        with torch.no_grad():
            for at, row, lower, upper, first, last in either_of:
                over = scores[first:last + 1, row]
                targets[at] = lower if over[:, lower].max() >= over[:, upper].max() else upper
    loss_ctc = ctc(scores, targets, frames, lengths)
    angle = rolls * (2 * math.pi / 10)
    mask = ~torch.isnan(rolls)
    circle = output[:, len(CLASSES):]
    if mask.any():
        predicted = circle.permute(0, 2, 1)[mask]
        truth = torch.stack([torch.cos(angle[mask]), torch.sin(angle[mask])], 1)
        loss_roll = ((predicted - truth) ** 2).sum(1).mean()
    else:
        loss_roll = torch.zeros(())
    loss_soft = torch.zeros(())
    if taught is not None:
        columns = ~torch.isnan(taught[:, 0])                  # N x T
        log_student = output[:, :len(CLASSES)].log_softmax(1).permute(0, 2, 1)[columns]
        teacher = taught.permute(0, 2, 1)[columns].clamp_min(1e-8)
        loss_soft = (teacher * (teacher.log() - log_student)).sum(1).mean()
    return loss_ctc, loss_roll, loss_soft


def greedy(scores):
    """The best path of one image's class scores (C x T), collapsed: [class, first column, last]."""
    emissions, previous = [], BLANK
    for column, index in enumerate(scores.argmax(0).tolist()):
        if index != BLANK and index == previous:
            emissions[-1][2] = column
        elif index != BLANK:
            emissions.append([index, column, column])
        previous = index
    return emissions


def confidence(probabilities, emissions):
    """The reading's confidence as the plugin gives it (SequenceReader): the product of each
    character's probability at its surest column and of the least sure gap (gapConfidence)."""
    value = 1.0
    for index, first, last in emissions:
        value *= float(probabilities[index, first:last + 1].max())
    gap, at = 1.0, 0
    previous = BLANK
    for column in range(probabilities.shape[1]):
        while at < len(emissions) and emissions[at][2] < column:
            previous = emissions[at][0]
            at += 1
        if at < len(emissions) and emissions[at][1] <= column:
            continue
        allowed = {BLANK, previous, emissions[at][0] if at < len(emissions) else BLANK}
        other = max(float(probabilities[k, column]) for k in range(len(CLASSES)) if k not in allowed)
        gap = min(gap, 1 - other)
    return value * gap


def accepted(shown_values, text):
    """Whether `text` reads a window whose characters are (char, value) pairs: a wheel caught
    between two digits (x.2 to x.8) may be read as either (`data.choices`)."""
    return len(text) == len(shown_values) and \
        all(char in data.choices(truth, value) for char, (truth, value) in zip(text, shown_values))


def parse_mix(text):
    """`real=0.6,sevenseg=0.2,...` as ((kind, share), ...), the shares summing to one."""
    mix = []
    for part in text.split(","):
        kind, _, share = part.partition("=")
        if kind not in data.KINDS:
            raise argparse.ArgumentTypeError(f"unknown kind {kind!r}: use one of {', '.join(data.KINDS)}")
        mix.append((kind, float(share)))
    if abs(sum(share for _, share in mix) - 1) > 1e-6:
        raise argparse.ArgumentTypeError(f"the shares of {text!r} sum to {sum(s for _, s in mix)}, not 1")
    return tuple(mix)


def development(seed, photos, faces, count, raw=False, kinds=("real", "real", "sevenseg", "wheels")):
    """A fixed development set: real windows of the development meters, and rendered ones. With
    `raw`, the images as a camera gives them (for --write-development), else as prepared."""
    rng = np.random.default_rng(seed)
    out = []
    for index in range(count):
        kind = kinds[index % len(kinds)]
        image, shown = data.window(rng, kind, photos, faces)
        image, shown = augment.augment(rng, image, shown, rendered=kind != "real")
        out.append((image if raw else augment.prepare(image), [(char, value) for char, _, _, value in shown], kind,
                    [(x0, x1) for _, x0, x1, value in shown if value is not None]))
    return out


def evaluate(model, dev, temperature=1.0):
    """The share of development windows read right, per kind, and per window the reading's
    confidence (`confidence`) with whether the window was read right. Windows of similar width go
    through the network together, each decoded over its own columns."""
    model.eval()
    right, kinds, confidences = 0, {}, []
    with torch.no_grad():
        for group in width_groups(dev, 64):
            images = padded([dev[index][0] for index in group])
            output = model(torch.from_numpy(images))[:, :len(CLASSES), 0]
            for row, index in enumerate(group):
                image, truth, kind = dev[index][:3]
                scores = output[row, :, :image.shape[1] // STRIDE]
                emissions = greedy(scores)
                ok = accepted(truth, "".join(CLASSES[index] for index, _, _ in emissions))
                right += ok
                total, good = kinds.get(kind, (0, 0))
                kinds[kind] = (total + 1, good + ok)
                confidences.append((confidence(torch.softmax(scores / temperature, 0), emissions), ok))
    model.train()
    return right / len(dev), {kind: round(good / total, 4) for kind, (total, good) in kinds.items()}, confidences


def fit_peak_lead(model, dev):
    """How far right of a digit's middle the network's surest column for it lies, in pitches (the
    median step between a window's peaks), averaged over the development windows whose best path
    holds as many digits as the window: the cell classifier's cells are centred that much left of
    the peaks (SequenceReader.cellSpans). It is the training's own: another seed's peaks lie
    elsewhere (docs/recognizers.md, *Seed to seed, and the peak lead*)."""
    model.eval()
    leads = []
    with torch.no_grad():
        for image, truth, _, extents in dev:
            if len(extents) < 2:
                continue
            scores = model(torch.from_numpy(image[None, None]))[0, :len(CLASSES), 0]
            emissions = [emission for emission in greedy(scores) if CLASSES[emission[0]].isdigit()]
            if len(emissions) != len(extents):
                continue
            peaks = [(first + int(scores[index, first:last + 1].argmax()) + 0.5) * STRIDE
                     for index, first, last in emissions]
            pitch = max(2.0, float(np.median(np.diff(peaks))))
            leads += [(peak - (x0 + x1) / 2) / pitch for peak, (x0, x1) in zip(peaks, extents)]
    model.train()
    return round(float(np.mean(leads)), 3)


def fit_temperature(model, dev):
    """The softmax temperature under which the reading's confidence best predicts that the window
    is read right (least log loss over the development windows)."""
    best = (float("inf"), 1.0)
    for temperature in [0.6, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0]:
        _, _, confidences = evaluate(model, dev, temperature)
        loss = -sum(math.log(max(c if ok else 1 - c, 1e-6)) for c, ok in confidences) / len(confidences)
        best = min(best, (loss, temperature))
    return best[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--meterdigits", default=os.path.join(ROOT, "../shared/data/meterdigits"))
    parser.add_argument("--output", default=os.path.join(ROOT, "Sources/Plugins/DigitReader"))
    parser.add_argument("--name", default="digit-reader",
                        help="the stem of the files written in --output (NAME.onnx, NAME.json)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=8, help="rounds of fresh training windows")
    parser.add_argument("--samples", type=int, default=40000, help="fresh training windows per round")
    parser.add_argument("--epochs-per-round", type=int, default=2)
    parser.add_argument("--batch", type=int, default=48)
    parser.add_argument("--mix", type=parse_mix, default=data.MIX,
                        help="the training windows' kinds and shares, e.g. real=0.6,sevenseg=0.2,wheels=0.2 "
                             f"(kinds: {', '.join(data.KINDS)}; default: the shipped network's)")
    parser.add_argument("--all-faces", action="store_true",
                        help="counters in render.MORE_FACES too (apt-get install its MORE_FACES_PACKAGES)")
    parser.add_argument("--add-faces", type=render.parse_faces, default=[], metavar="FONT,...",
                        help="more font files for the training counters (never the development ones; not "
                             "render.UNSEEN_FACES, which the development sets of new designs keep unseen)")
    parser.add_argument("--stroke-share", type=float, default=0.0,
                        help="share of the training counters drawn from strokes in random designs "
                             "(digitreader/strokes.py; the development counters keep the font faces)")
    parser.add_argument("--bitmap-share", type=float, default=0.0,
                        help="share of the training character displays drawn in bitmap faces "
                             f"(render.TRAINING_BITMAP_FACES; apt-get install {render.BITMAP_FACES_PACKAGE})")
    parser.add_argument("--drum-share", type=float, default=0.0,
                        help="share of the training windows of wheels shaded as drums, darker toward "
                             "the window's top and bottom (augment.drum_shading)")
    parser.add_argument("--tight-share", type=float, default=0.0,
                        help="share of the training windows cropped close above and below their digits "
                             "(augment.camera)")
    parser.add_argument("--context-share", type=float, default=0.0,
                        help="share of the training seven-segment displays drawn as a crop of a device "
                             "shows them: a smaller row, a unit, the bezel (render.in_context)")
    parser.add_argument("--variant-share", type=float, default=0.0,
                        help="share of the training seven-segment displays drawing their 7, 6 and 9 in a "
                             "design of their own: a 7 with its upper left segment, a 6 without its top, "
                             "a 9 without its foot (render.display_glyphs)")
    parser.add_argument("--ema", type=float, default=0.0, metavar="DECAY",
                        help="judge and keep an exponential moving average of the weights (decay per "
                             "step, 0.999 spans about an epoch) instead of the weights as trained; 0, "
                             "the default, keeps the weights as trained")
    parser.add_argument("--width", type=float, default=1.0, help="channel width multiplier")
    parser.add_argument("--either", action="store_true",
                        help="a wheel caught between two digits (x.2 to x.8) is learnt as whichever of "
                             "them the network finds likelier, not as the nearer one")
    parser.add_argument("--teachers", type=lambda text: text.split(","), default=[], metavar="A.onnx,...",
                        help="distil these exported readers (their settings beside them): their columns' "
                             "averaged class probabilities are targets beside the CTC loss")
    parser.add_argument("--distil-weight", type=float, default=1.0, help="the distillation loss's weight")
    parser.add_argument("--threads", type=int, default=2,
                        help="PyTorch's threads: a seed gives the same network for the same count; two "
                             "trainings at once on 2 cores want 1 each (at 2 each, each took 3.5 times as long)")
    parser.add_argument("--refit-temperature", action="store_true",
                        help="fit the temperature and peak lead of the exported network in --output again and stop")
    parser.add_argument("--write-development", metavar="DIR",
                        help="write the development windows to DIR/dev-real, dev-sevenseg, dev-wheels, "
                             "dev-dotmatrix, the settled development photos to DIR/dev-settled, all of "
                             "them to DIR/dev-rolling, strips of "
                             "one meter's photos to DIR/dev-strips, counters in faces no network trains on "
                             "to DIR/dev-newfaces, dev-newfaces-single and dev-newfaces-rolls, "
                             "character displays in bitmap "
                             "faces no network trains on to DIR/dev-bitmapfaces, sets to learn a face no network "
                             "trains on from to DIR/dev-learn-newface-FACE, seven-segment displays as a crop of "
                             "a device shows them to DIR/dev-context, and stop")
    arguments = parser.parse_args()

    torch.manual_seed(arguments.seed)
    torch.set_num_threads(arguments.threads)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(arguments.seed)
    faces = render.available_faces()
    # The development counters are always in the reader's faces, so that development figures
    # stay comparable between trainings.
    training_faces = render.available_faces(more=arguments.all_faces) + arguments.add_faces
    photos = compose.load(arguments.meterdigits)
    train = [photo for photo in photos if photo[2] == "train"]
    dev_photos = [photo for photo in photos if photo[2] == "dev"]
    print(f"meterdigits: {len(train)} training photos, {len(dev_photos)} development photos", flush=True)
    if arguments.write_development:
        # Dot-matrix displays from a stream of their own, so the other sets stay as they were.
        windows = development(arguments.seed + 7919, dev_photos, faces, 1200, raw=True) + \
            development(arguments.seed + 7920, dev_photos, faces, 300, raw=True, kinds=("dotmatrix",))
        meters = compose.development_meters(arguments.meterdigits)
        development_sets.write_development(arguments.write_development, windows, dev_photos, meters,
                                          arguments.seed + 7921)
        development_sets.write_new_designs(arguments.write_development, arguments.seed + 7922)
        development_sets.write_displays_in_context(arguments.write_development, arguments.seed + 7922)
        return
    dev = development(arguments.seed + 7919, dev_photos, faces, 1200)
    if arguments.refit_temperature:
        refit_settings(arguments.output, arguments.name, dev)
        return

    teachers = [load_teacher(path) for path in arguments.teachers]
    model = DigitReader(arguments.width)
    print(f"parameters: {sum(p.numel() for p in model.parameters())}", flush=True)
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    ctc = nn.CTCLoss(blank=BLANK, zero_infinity=True)
    # The average's BatchNorm statistics are averaged too (use_buffers), so it runs as it is kept.
    averaged = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(arguments.ema), use_buffers=True) \
        if arguments.ema > 0 else None
    kept = averaged.module if averaged else model
    started = time.time()
    best, best_state = -1.0, None
    steps = arguments.rounds * arguments.epochs_per_round * math.ceil(arguments.samples / arguments.batch)
    step = 0
    for round_index in range(arguments.rounds):
        samples = data.generate(arguments.seed * 1000 + round_index, arguments.samples, train, training_faces,
                                mix=arguments.mix, stroke_share=arguments.stroke_share,
                                bitmap_share=arguments.bitmap_share, drum_share=arguments.drum_share,
                                tight_share=arguments.tight_share, context_share=arguments.context_share,
                                variant_share=arguments.variant_share)
        print(f"round {round_index}: {len(samples)} windows generated at {time.time() - started:.0f} s", flush=True)
        soft = soft_targets(teachers, samples, arguments.threads) if teachers else None
        if teachers:
            print(f"round {round_index}: the teachers read them by {time.time() - started:.0f} s", flush=True)
        for epoch in range(arguments.epochs_per_round):
            total_ctc = total_roll = total_soft = count = 0
            for batch in batches(samples, arguments.batch, rng, soft, arguments.either):
                # Cosine from 2e-3 down to 1e-4 over the whole run.
                for group in optimiser.param_groups:
                    group["lr"] = 2e-3 * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, step / steps))))
                loss_ctc, loss_roll, loss_soft = losses(model, batch, ctc)
                optimiser.zero_grad()
                (loss_ctc + 0.5 * loss_roll + arguments.distil_weight * loss_soft).backward()
                nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                optimiser.step()
                if averaged:
                    averaged.update_parameters(model)
                total_ctc += float(loss_ctc.detach())
                total_roll += float(loss_roll.detach())
                total_soft += float(loss_soft.detach())
                count += 1
                step += 1
            score, kinds, _ = evaluate(kept, dev)
            print(f"round {round_index} epoch {epoch}: ctc {total_ctc / count:.3f} roll {total_roll / count:.3f} "
                  f"{f'distil {total_soft / count:.3f} ' if teachers else ''}"
                  f"dev {score:.4f} {kinds} lr {optimiser.param_groups[0]['lr']:.5f} at {time.time() - started:.0f} s",
                  flush=True)
            if score > best:
                best, best_state = score, {k: v.clone() for k, v in kept.state_dict().items()}
                export(kept, arguments.output, 1.0, arguments, 0.0)  # a checkpoint to look at meanwhile
                kept.train()
    model.load_state_dict(best_state)
    temperature = fit_temperature(model, dev)
    lead = fit_peak_lead(model, dev)
    print(f"best development score {best:.4f}; temperature {temperature}; peak lead {lead}", flush=True)
    export(model, arguments.output, temperature, arguments, lead)


class ExportedReader(nn.Module):
    """The exported network run by OpenCV's dnn module, as a module `evaluate` can call."""

    def __init__(self, path):
        super().__init__()
        self.net = cv2.dnn.readNetFromONNX(path)

    def forward(self, images):
        self.net.setInput(images.numpy())
        return torch.from_numpy(self.net.forward().copy())


def refit_settings(folder, name, dev):
    """The temperature and peak lead of the exported network `name` in `folder`, fitted again."""
    settings_path = os.path.join(folder, f"{name}.json")
    model = ExportedReader(os.path.join(folder, f"{name}.onnx"))
    temperature = fit_temperature(model, dev)
    with open(settings_path) as file:
        settings = json.load(file)
    settings["temperature"] = temperature
    settings["peak_lead"] = fit_peak_lead(model, dev)
    with open(settings_path, "w") as file:
        json.dump(settings, file, indent=2)
        file.write("\n")
    print(f"development score {evaluate(model, dev)[0]:.4f}; temperature {temperature}; "
          f"peak lead {settings['peak_lead']}", flush=True)


def export(model, folder, temperature, arguments, lead):
    model.eval()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{arguments.name}.onnx")
    example = torch.zeros(1, 1, HEIGHT, 120)
    torch.onnx.export(model, example, path, opset_version=11, dynamo=False, input_names=["image"],
                      output_names=["scores"], dynamic_axes={"image": {0: "n", 3: "w"}, "scores": {0: "n", 3: "t"}})
    write_settings(folder, temperature, arguments, lead)
    print(f"wrote {path} ({os.path.getsize(path)} bytes, temperature {temperature})", flush=True)


def load_teacher(path):
    """An exported reader to distil (cv2.dnn) and the temperature its settings beside it give."""
    with open(os.path.splitext(path)[0] + ".json") as file:
        return cv2.dnn.readNetFromONNX(path), json.load(file)["temperature"]


def teacher_record(path):
    """A teacher as the recipe names it: its file's name and the start of its SHA-256."""
    with open(path, "rb") as file:
        return f"{os.path.basename(path)} sha256:{hashlib.sha256(file.read()).hexdigest()[:16]}"


def write_settings(folder, temperature, arguments, lead):
    """NAME.json beside the ONNX file, with the recipe and the libraries that made it:
    trainings compare, and reproduce, only on the same ones."""
    recipe = {"seed": arguments.seed, "rounds": arguments.rounds, "samples": arguments.samples,
              "epochs_per_round": arguments.epochs_per_round, "batch": arguments.batch,
              "mix": ",".join(f"{kind}={share:g}" for kind, share in arguments.mix),
              "all_faces": arguments.all_faces, "add_faces": arguments.add_faces,
              "stroke_share": arguments.stroke_share, "bitmap_share": arguments.bitmap_share,
              "drum_share": arguments.drum_share, "tight_share": arguments.tight_share,
              "context_share": arguments.context_share, "variant_share": arguments.variant_share,
              "width": arguments.width, "ema": arguments.ema,
              "teachers": [teacher_record(path) for path in arguments.teachers],
              "distil_weight": arguments.distil_weight, "either": arguments.either,
              "threads": arguments.threads}
    trained_with = {"torch": torch.__version__, "numpy": np.__version__, "opencv": cv2.__version__}
    with open(os.path.join(folder, f"{arguments.name}.json"), "w") as file:
        json.dump({"height": HEIGHT, "stride": STRIDE, "classes": CLASSES, "temperature": temperature,
                   "peak_lead": lead, "recipe": recipe, "trained_with": trained_with},
                  file, indent=2)
        file.write("\n")


if __name__ == "__main__":
    main()
