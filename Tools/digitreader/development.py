"""The development sets `Tools/train-digit-reader.py --write-development DIR` writes, as labelled
folders (labels.csv: file,text,accept) for photometer-benchmark-read and `photometer bench`:
meterdigits' development meters' windows, photos and strips, their learning sets, and designs no
network trains on (their counters, close-ups, bitmap-face displays and learning sets). What a
reader recipe is judged on before the validation devices are read."""
import os
import random
import re

import cv2
import numpy as np

from . import augment, data, render, strips


def write_development(folder, dev, dev_photos, meters, seed):
    """The development windows as labelled sets (file,text,accept) for photometer-benchmark-read,
    the development meters' settled photos (labels x.0) as taken, in dev-settled, all of them
    (mid-roll ones too: either neighbour reads right) in dev-rolling, and 300 strips of 5 to 8
    photos of one meter as taken, side by side as the validation strips are (`strips.strip`), in
    dev-strips, and as many by a counter's rule (`strips.counter`) in dev-windows; and per
    development meter of 54 photos or more, a set to learn from (`strips.learning`) in
    dev-learn-METER."""
    write_windows(os.path.join(folder, "dev-settled"),
                  ((image, [(str(int(value)), value)]) for value, image, _ in dev_photos if value == int(value)))
    write_windows(os.path.join(folder, "dev-rolling"),
                  ((image, [(str(render.round_digit(value)), value)]) for value, image, _ in dev_photos))
    for kind in ("real", "sevenseg", "wheels", "dotmatrix"):
        write_windows(os.path.join(folder, f"dev-{kind}"),
                      ((image, truth) for image, truth, item_kind, _ in dev if item_kind == kind))
    rng = random.Random(seed)
    names = sorted(meters)

    def labelled(meter):
        return [(photo, str(render.round_digit(value)), data.choices(str(render.round_digit(value)), value))
                for photo, value in meters[meter]]

    def numbered(rows):
        return [(f"{index:05d}.png",) + row for index, row in enumerate(rows)]

    strips.write_set(os.path.join(folder, "dev-strips"),
                     numbered([strips.strip(rng, labelled(rng.choice(names))) for _ in range(300)]),
                     points_labelled=False)
    # Windows by a counter's rule (`strips.counter`), from a stream of their own.
    counting = random.Random(f"{seed}-windows")
    strips.write_set(os.path.join(folder, "dev-windows"),
                     numbered([strips.counter(counting, [row + (value,) for row, (_, value) in
                                                         zip(labelled(meter), meters[meter])])
                               for meter in (counting.choice(names) for _ in range(300))]),
                     points_labelled=False)
    # Learning sets, from a stream of their own (the sets above stay as they were): every photo of
    # a development meter of 54 or more, mid-roll ones too.
    for meter in names:
        if len(meters[meter]) >= 54:
            strips.write_set(os.path.join(folder, "dev-learn-" + re.sub(r"[^A-Za-z0-9_-]", "_", meter)),
                             numbered(strips.learning(random.Random(f"{seed}-{meter}"), labelled(meter))),
                             points_labelled=False)


def write_new_designs(folder, seed, count=300):
    """Digit designs no network trains on (`render.UNSEEN_FACES`), through the development camera:
    counters of 1 to 8 wheels drawn as dev-wheels' are, in dev-newfaces, and one wheel cut tight
    (`render.wheel_photo`) in dev-newfaces-single; and character displays in the bitmap faces kept
    out of training (`render.DEVELOPMENT_BITMAP_FACES`) in dev-bitmapfaces. What a meter of a
    design never seen asks of the engine, measured on our side of the line."""
    faces = render.unseen_faces()
    rng = np.random.default_rng(seed)

    def single():
        image, value = render.wheel_photo(rng, faces)
        return image, [(str(render.round_digit(value)), 0, image.shape[1], value)]

    def windows(draw):
        for _ in range(count):
            image, shown = augment.augment(rng, *draw(), rendered=True)
            yield image, [(char, value) for char, _, _, value in shown]

    write_windows(os.path.join(folder, "dev-newfaces"), windows(lambda: render.wheels(rng, faces)))
    write_windows(os.path.join(folder, "dev-newfaces-single"), windows(single))
    # Character displays in the bitmap faces kept out of training, from a stream of their own.
    rng = np.random.default_rng(seed + 1)
    bitmaps = render.bitmap_faces(development=True)
    write_windows(os.path.join(folder, "dev-bitmapfaces"), windows(lambda: render.dot_matrix(rng, bitmaps, 1.0)))
    write_new_design_learning(folder, seed)
    write_new_design_rolls(folder, seed, count)


def write_displays_in_context(folder, seed, count=300):
    """Seven-segment displays of the training style as a crop of a device shows them (a smaller
    row, a unit, the bezel: `render.in_context`), through the development camera, in dev-context:
    what a display found in a whole photo asks of the reader, on our side of the line. From
    streams of their own, so that the other sets stay as they were."""
    rng, context = np.random.default_rng([seed, 4]), np.random.default_rng([seed, 5])

    def windows():
        for _ in range(count):
            image, shown = augment.augment(rng, *render.seven_segment(rng, context), rendered=True)
            yield image, [(char, value) for char, _, _, value in shown]

    write_windows(os.path.join(folder, "dev-context"), windows())


def write_new_design_rolls(folder, seed, count=300):
    """One wheel caught mid-roll in a face no network trains on, in dev-newfaces-rolls: every
    digit in turn rolled 0.2 to 0.8 of the way to the next (either digit reads right), drawn by
    `render.wheel_photo`, through the development camera. The
    wheels dev-newfaces-single holds are mid-roll 30% of the time; this set asks what a rule about
    half-turned wheels of a new design changes (the validation power meters' wheels between 5 and
    6 are such). From a stream of its own: the other sets stay as they were."""
    faces = render.unseen_faces()
    rng = np.random.default_rng([seed, 5])

    def rolled(index):
        face = faces[index % len(faces)]
        image, value = render.wheel_photo(rng, [face], digit=index // len(faces) % 10, roll=(0.2, 0.8))
        char = str(render.round_digit(value))
        image, _ = augment.augment(rng, image, [(char, 0, image.shape[1], value)], rendered=True)
        return image, [(char, value)]

    write_windows(os.path.join(folder, "dev-newfaces-rolls"), (rolled(index) for index in range(count)))


def write_new_design_learning(folder, seed, photos=150):
    """Per face no network trains on, a set to learn from (`strips.learning`) in
    dev-learn-newface-FACE: one meter of that face, photographed `photos` times as
    `render.wheel_photo` draws a wheel (mid-roll 30% of the time) but with one size, wheel and ink
    colour and one camera (the development camera's draw, the same for every photo), 8 strips of
    them to confirm and 40 to read. A meter of a design never seen whose user confirms readings:
    what `photometer bench DIR --learn 8` measures of learning on our side of the line. Each face
    from a stream of its own, so the other sets stay as they were."""
    import tempfile
    for number, face in enumerate(render.unseen_faces()):
        stem = re.sub(r"[^A-Za-z0-9_-]", "_", os.path.splitext(os.path.basename(face))[0])
        rng = np.random.default_rng([seed, 3, number])
        size = int(rng.integers(28, 56))
        font = render.ImageFont.truetype(face, size)
        height = int(round(size * 0.72 / rng.uniform(0.75, 0.95)))
        cell = int(round(size * rng.uniform(0.55, 0.9)))
        wheel, ink = render.wheel_colours(rng)
        camera = int(rng.integers(2**31))
        with tempfile.TemporaryDirectory() as singles:
            labelled = []
            for index in range(photos):
                digit = int(rng.integers(10))
                fraction = float(rng.uniform(0.05, 0.95)) if rng.random() < 0.3 else float(rng.uniform(-0.08, 0.08))
                value = (digit + fraction) % 10
                image = render.wheel_strip(font, size, digit, fraction, cell, height, wheel, ink)
                char = str(render.round_digit(value))
                image, _ = augment.augment(np.random.default_rng(camera), image,
                                           [(char, 0, image.shape[1], value)], rendered=True)
                path = os.path.join(singles, f"{index:05d}.png")
                cv2.imwrite(path, image)
                labelled.append((path, char, data.choices(char, value)))
            rows = strips.learning(random.Random(f"{seed}-{stem}"), labelled)
            strips.write_set(os.path.join(folder, f"dev-learn-newface-{stem}"),
                             [(f"{index:05d}.png",) + row for index, row in enumerate(rows)], points_labelled=False)




def write_windows(path, windows):
    """Windows as a labelled set for photometer-benchmark-read: each (image, [(char, value)])
    as NNNNN.png and a labels.csv row (file,text,accept: `data.choices` per character)."""
    import csv
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "labels.csv"), "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["file", "text", "accept"])
        for index, (image, truth) in enumerate(windows):
            cv2.imwrite(os.path.join(path, f"{index:05d}.png"), image)
            writer.writerow([f"{index:05d}.png", "".join(char for char, _ in truth),
                             "|".join(data.choices(char, value) for char, value in truth)])
