"""Training and development samples: the image as the plugin prepares it, its CTC target and, per
output column, the wheel position it should report (NaN where the column holds no digit)."""
import math
from multiprocessing import Pool

import numpy as np

from . import augment, compose, render
from .model import CLASSES, STRIDE

# The kinds of window `window` makes, and the share of each in the training mix.
KINDS = ("real", "sevenseg", "wheels", "dotmatrix")
MIX = (("real", 0.56), ("sevenseg", 0.19), ("wheels", 0.18), ("dotmatrix", 0.07))

_photos = None
_faces = None


def _start(photos, faces):
    global _photos, _faces
    _photos, _faces = photos, faces


def window(rng, kind, photos, faces, stroke_share=0.0, bitmap_share=0.0, context=None, variants=None):
    """A window of one kind as (image, shown): real photos composed, or rendered (counters in
    designs drawn from strokes `stroke_share` of the time, `render.wheels`; character displays in
    the training bitmap faces `bitmap_share` of the time, `render.dot_matrix`). `context`: a
    generator for a seven-segment display drawn as a crop of a device shows it (`render.in_context`);
    `variants`: one for a seven-segment display drawing its glyphs in a design of its own
    (`render.display_glyphs`)."""
    if kind == "real":
        return compose.real_strip(rng, photos)
    if kind == "sevenseg":
        return render.seven_segment(rng, context, variants)
    if kind == "dotmatrix":
        return render.dot_matrix(rng, render.bitmap_faces() if bitmap_share > 0 else None, bitmap_share)
    return render.wheels(rng, faces, stroke_share)


def pick_kind(rng, mix):
    """One kind of a mix ((kind, share), ...), drawn by its share."""
    return mix[int(rng.choice(len(mix), p=[share for _, share in mix]))][0]


def sample(rng, kind, photos, faces, augmented=True, stroke_share=0.0, bitmap_share=0.0, drum=None, tight=None,
           context=None, variants=None):
    """One window as (prepared image, its text, per output column the wheel position or NaN, per
    character the characters that read it right (`choices`) with the first and last output column
    over it). `drum`: (generator, share), a wheel drum's shading on that share of the windows of
    wheels (real photos and counters), drawn from that generator alone. `tight`: (generator, share),
    that share of all windows cropped close above and below (`augment.camera`). `context`:
    (generator, share), that share of the seven-segment displays drawn in a device's context
    (`render.in_context`), drawn from that generator alone. `variants`: (generator, share), that
    share of the seven-segment displays drawing their 7, 6 and 9 in a design of their own
    (`render.display_glyphs`), drawn from that generator alone."""
    within = context is not None and kind == "sevenseg" and context[0].random() < context[1]
    other = variants is not None and kind == "sevenseg" and variants[0].random() < variants[1]
    image, shown = window(rng, kind, photos, faces, stroke_share, bitmap_share, context[0] if within else None,
                          variants[0] if other else None)
    if augmented:
        shade = drum is not None and kind in ("real", "wheels") and drum[0].random() < drum[1]
        close = tight is not None and tight[0].random() < tight[1]
        image, shown = augment.augment(rng, image, shown, rendered=kind != "real", drum=drum[0] if shade else None,
                                       tight=close)
    prepared = augment.prepare(image)
    text = "".join(char for char, *_ in shown)
    columns = prepared.shape[1] // STRIDE
    centres = [column * STRIDE + STRIDE / 2 for column in range(columns)]
    readings = []
    roll = np.full(columns, np.nan, np.float32)
    for char, x0, x1, value in shown:
        over = [column for column, centre in enumerate(centres) if x0 <= centre <= x1]
        readings.append((choices(char, value), over[0], over[-1]) if over else (char, 0, -1))
        if value is not None:
            inset = (x1 - x0) * 0.2
            for column, centre in enumerate(centres):
                if x0 + inset <= centre <= x1 - inset:
                    roll[column] = value
    return prepared, text, roll, readings


def choices(char, value):
    """The characters that read a window's character right: a wheel caught between two digits
    (x.2 to x.8, as meterdigits labels it) may be read as either, x.0 and x.1 as x, x.9 as x + 1."""
    if value is None or value == int(value):
        return char
    lower, fraction = int(math.floor(value)) % 10, value - math.floor(value)
    upper = str((lower + 1) % 10)
    return str(lower) if fraction < 0.15 else upper if fraction > 0.85 else str(lower) + upper


def _chunk(arguments):
    seed, count, mix, stroke_share, bitmap_share, drum_share, tight_share, context_share, variant_share = arguments
    rng = np.random.default_rng(seed)
    drum = (np.random.default_rng([seed, 1]), drum_share) if drum_share > 0 else None
    tight = (np.random.default_rng([seed, 2]), tight_share) if tight_share > 0 else None
    context = (np.random.default_rng([seed, 3]), context_share) if context_share > 0 else None
    variants = (np.random.default_rng([seed, 4]), variant_share) if variant_share > 0 else None
    out = []
    for _ in range(count):
        kind = pick_kind(rng, mix)
        out.append(sample(rng, kind, _photos, _faces, stroke_share=stroke_share, bitmap_share=bitmap_share,
                          drum=drum, tight=tight, context=context, variants=variants) + (kind,))
    return out


def jobs(first_seed, total, size):
    """`total` items in chunks of at most `size` for a pool: (the chunk's seed, its count), seeds
    counted up from `first_seed`."""
    return [(first_seed + index, min(size, total - index * size)) for index in range(math.ceil(total / size))]


def generate(seed, count, photos, faces, mix=MIX, processes=2, chunk=500, stroke_share=0.0, bitmap_share=0.0,
             drum_share=0.0, tight_share=0.0, context_share=0.0, variant_share=0.0):
    """`count` augmented samples of the training `mix` ((kind, share), ...), the same for the
    same seed; counters in designs drawn from strokes `stroke_share` of the time, character
    displays in bitmap faces `bitmap_share` of the time, windows of wheels shaded as drums
    `drum_share` of the time, windows cropped close above and below `tight_share` of the time,
    seven-segment displays in a device's context `context_share` of the time, seven-segment
    displays drawing their 7, 6 and 9 in a design of their own `variant_share` of the time (every
    other draw as without)."""
    shares = (mix, stroke_share, bitmap_share, drum_share, tight_share, context_share, variant_share)
    chunks = [job + shares for job in jobs(seed * 1_000_003, count, chunk)]
    with Pool(processes, initializer=_start, initargs=(photos, faces)) as pool:
        return [item for part in pool.map(_chunk, chunks) for item in part]


def encode(text):
    return [CLASSES.index(char) for char in text]
