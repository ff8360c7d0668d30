"""Strips of real digit photos of one device side by side, as a counter's window shows them: the
validation strips (Tools/make-validation-sets.py) and the development strips of meterdigits'
development meters (Tools/train-digit-reader.py --write-development) are made alike, so that
development figures speak of what the validation figures measure. Needs only Pillow."""
import csv
import io
import os

from PIL import Image


def strip(rng, photos):
    """5 to 8 of `photos` ((path, text, accept) of one device), chosen by `rng` (random.Random),
    scaled to their median height, with gaps and a frame of one colour: (PNG bytes, text,
    accept)."""
    count = rng.randint(5, 8)
    chosen = [rng.choice(photos) for _ in range(count)]
    return side_by_side(chosen, *look(rng))


def counter(rng, photos):
    """5 to 8 of `photos` ((path, text, accept, position) of one device; position is the wheel's
    labelled value, 4.5 half-way from 4 to 5), chosen by `rng` as a counter's window shows them:
    the last wheel any of the device's photos, so caught mid-roll as often as its photos are; a
    wheel turning with the one to its right only while that one passes from 9 to 0 (a photo caught
    at the same tenth, any digit); every other wheel settled (tenth 0 or 1; any photo for a device
    with none). Scaled, spaced and framed as `strip` does: (PNG bytes, text, accept)."""
    count = rng.randint(5, 8)
    settled = [photo for photo in photos if tenth(photo[3]) <= 1] or photos
    chosen = [rng.choice(photos)]
    while len(chosen) < count and int(chosen[-1][3]) == 9 and tenth(chosen[-1][3]) >= 2:
        turning = [photo for photo in photos if tenth(photo[3]) == tenth(chosen[-1][3])]
        if not turning:
            break
        chosen.append(rng.choice(turning))
    chosen += [rng.choice(settled) for _ in range(count - len(chosen))]
    return side_by_side([photo[:3] for photo in reversed(chosen)], *look(rng))


def tenth(position):
    """The tenths a wheel at `position` (4.5) has rolled past its digit: 0 to 9."""
    return round(position * 10) % 10


def learning(rng, photos, taught=8, scored=40, count=6):
    """One meter's window photographed again and again, for `photometer bench DIR --learn
    TAUGHT`: `taught` strips of `count` of `photos` ((path, text, accept) of one device), no photo
    twice, then `scored` strips of the other photos (a photo may recur among them, never among the
    taught ones), all in one frame, gap and border. [(PNG bytes, text, accept)]; needs at least
    taught x count + count photos."""
    photos = list(photos)
    rng.shuffle(photos)
    first, rest = photos[:taught * count], photos[taught * count:]
    assert len(rest) >= count, f"{len(photos)} photos are too few to teach {taught} strips of {count}"
    frame = look(rng)
    return [side_by_side(first[index * count:(index + 1) * count], *frame) for index in range(taught)] + \
        [side_by_side([rng.choice(rest) for _ in range(count)], *frame) for _ in range(scored)]


def look(rng):
    """A window's gap between wheels, border and frame colour."""
    gap, border = rng.choice([0, 0, 1, 2, 3]), rng.randint(0, 6)
    frame = tuple(rng.randint(0, 80) if rng.random() < 0.7 else rng.randint(150, 255) for _ in range(3))
    return gap, border, frame


def side_by_side(chosen, gap, border, frame):
    """The photos of `chosen` ((path, text, accept)) scaled to their median height, side by side."""
    count = len(chosen)
    height = sorted(Image.open(path).size[1] for path, _, _ in chosen)[count // 2]
    parts = [Image.open(path).convert("RGB") for path, _, _ in chosen]
    parts = [part.resize((max(1, round(part.size[0] * height / part.size[1])), height)) for part in parts]
    width = sum(part.size[0] for part in parts) + gap * (count - 1) + 2 * border
    image = Image.new("RGB", (width, height + 2 * border), frame)
    x = border
    for part in parts:
        image.paste(part, (x, border))
        x += part.size[0] + gap
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue(), "".join(text for _, text, _ in chosen), "|".join(accept for _, _, accept in chosen)


def write_set(folder, rows, points_labelled=True):
    """A labelled set as photometer-benchmark-read and `photometer bench` read it: each row's
    image (name, encoded bytes, text, accept) written to `folder`, and folder/labels.csv with
    file,text,accept. With `points_labelled` false, a fourth column says that the truths do not
    say where decimal points are (`points` unlabelled), and readings are judged on their digits:
    a real device's photo shows its own comma or point wherever its crop lands in a strip."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "labels.csv"), "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["file", "text", "accept"] + ([] if points_labelled else ["points"]))
        for name, data, text, accept in rows:
            with open(os.path.join(folder, name), "wb") as output:
                output.write(data)
            writer.writerow([name, text, accept] + ([] if points_labelled else ["unlabelled"]))
