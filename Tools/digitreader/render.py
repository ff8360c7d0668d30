"""The training style of rendered digit windows: seven-segment displays drawn segment by segment
(no font: any segment width, gap, slant and bevel), dot-matrix character displays drawn dot by dot,
and wheel counters in faces other than the ones Tools/make-digits.py renders with. Tools/make-digits.py's displays (DSEG7 faces) and counters
(DejaVu faces) are never trained on: they measure how the reader does on a style it has not seen.

Each function returns (image as H x W x 3 uint8, [(text, x0, x1, value)]) where each entry is one
character with its horizontal extent and, for digits, the wheel position (a float in [0, 10)).
"""
import argparse
import glob
import gzip
import math
import os

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont, PcfFontFile

from . import strokes

# Segments a-g as (x0, y0, x1, y1) on a unit cell 1 wide and 2 high.
SEGMENTS = {
    "a": ((0, 0), (1, 0)), "b": ((1, 0), (1, 1)), "c": ((1, 1), (1, 2)), "d": ((0, 2), (1, 2)),
    "e": ((0, 1), (0, 2)), "f": ((0, 0), (0, 1)), "g": ((0, 1), (1, 1)),
}
LIT = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg", "6": "acdefg",
    "7": "abc", "8": "abcdefg", "9": "abcdfg",
}
# Glyphs displays draw either way: a 7 with its upper left segment (DSEG's, many thermometers'), a
# 6 without its top and a 9 without its foot; each with the share of displays that draw it so.
VARIANTS = {"7": ("abcf", 0.5), "6": ("cdefg", 0.25), "9": ("abcfg", 0.25)}


def display_glyphs(rng):
    """The segments one display lights for each digit: `LIT`, with each of `VARIANTS` drawn its
    other way by its share (a display keeps its design for every digit it shows)."""
    return {char: VARIANTS[char][0] if char in VARIANTS and rng.random() < VARIANTS[char][1] else segments
            for char, segments in LIT.items()}


WHEEL_FACES = [
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationMono-Bold.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/truetype/freefont/FreeMonoBold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf",
    "/usr/share/fonts/truetype/croscore/Arimo-Bold.ttf",
    "/usr/share/fonts/truetype/croscore/Cousine-Regular.ttf",
    "/usr/share/fonts/truetype/croscore/Tinos-Bold.ttf",
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Medium.ttf",
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Medium.ttf",
    "/usr/share/fonts/truetype/open-sans/OpenSans-CondBold.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf",
]
FACES_PACKAGES = "fonts-liberation2 fonts-freefont-ttf fonts-croscore fonts-roboto-unhinted fonts-open-sans fonts-urw-base35"


# More faces for the cell classifier's counters (Tools/train-digit-classifier.py): counters are
# printed in many more designs than the faces above (a 3 with a flat top, a 6 with a straight or a
# hooked stem, open and closed 4s), and a classifier of single cells learns each design cheaply.
# No face derived from DejaVu (Hack is DejaVu Sans Mono with another zero): make-digits.py's
# counters are DejaVu, the style measured and never trained on.
MORE_FACES = [
    "/usr/share/fonts/opentype/b612/B612-Bold.otf",
    "/usr/share/fonts/opentype/b612/B612Mono-Regular.otf",
    "/usr/share/fonts/opentype/cabin/Cabin-SemiBold.otf",
    "/usr/share/fonts/opentype/cantarell/Cantarell-Bold.otf",
    "/usr/share/fonts/opentype/dosis/Dosis-SemiBold.otf",
    "/usr/share/fonts/opentype/fantasque-sans/Normal/OTF/FantasqueSansMono-Bold.otf",
    "/usr/share/fonts/opentype/junction/Junction.otf",
    "/usr/share/fonts/opentype/jura/Jura-Medium.otf",
    "/usr/share/fonts/opentype/jura/Jura-Bold.otf",
    "/usr/share/fonts/truetype/3270/3270-Regular.ttf",
    "/usr/share/fonts/truetype/3270/3270Condensed-Regular.ttf",
    "/usr/share/fonts/truetype/adf/GilliusADF-BoldCond.otf",
    "/usr/share/fonts/truetype/adf/GilliusADFNo2-Regular.otf",
    "/usr/share/fonts/truetype/adf/IkariusADFStd-Bold.otf",
    "/usr/share/fonts/truetype/adf/SwitzeraADF-Cond.otf",
    "/usr/share/fonts/truetype/adf/SwitzeraADF-BoldExt.otf",
    "/usr/share/fonts/truetype/adf/UniversalisADFStd-BoldCond.otf",
    "/usr/share/fonts/truetype/agave/agave-r-autohinted.ttf",
    "/usr/share/fonts/truetype/beteckna/BetecknaGS-Bold.ttf",
    "/usr/share/fonts/truetype/beteckna/BetecknaGSCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/clear-sans/ClearSans-Medium.ttf",
    "/usr/share/fonts/truetype/comfortaa/Comfortaa-Bold.ttf",
    "/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf",
    "/usr/share/fonts/truetype/eurofurence/eurof55.ttf",
    "/usr/share/fonts/truetype/firacode/FiraCode-Medium.ttf",
    "/usr/share/fonts/truetype/inconsolata/Inconsolata.otf",
    "/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Medium.ttf",
    "/usr/share/fonts/truetype/lato/Lato-Heavy.ttf",
    "/usr/share/fonts/truetype/lato/Lato-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansMono-Bold.ttf",
]
MORE_FACES_PACKAGES = ("fonts-b612 fonts-cabin fonts-cantarell fonts-dosis fonts-fantasque-sans fonts-junction "
                       "fonts-jura fonts-3270 fonts-adf-gillius fonts-adf-ikarius fonts-adf-switzera "
                       "fonts-adf-universalis fonts-agave fonts-beteckna fonts-clear-sans fonts-comfortaa "
                       "fonts-crosextra-carlito fonts-eurofurence fonts-firacode fonts-inconsolata "
                       "fonts-jetbrains-mono fonts-lato fonts-noto-mono")


# Faces no network trains on, for the development sets of digit designs never seen
# (`unseen_faces`): DIN 1451 (straight-stemmed 6 and 9), ISO 3098 lettering, a rounded monospace
# and two serifs unlike the training ones.
UNSEEN_FACES = [
    "/usr/share/fonts/truetype/opendin/OSP-DIN.ttf",
    "/usr/share/fonts/truetype/osifont/osifont.ttf",
    "/usr/share/fonts/truetype/monofur/monof55.ttf",
    "/usr/share/fonts/opentype/urw-base35/C059-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/URWBookman-Demi.otf",
]
UNSEEN_FACES_PACKAGES = "fonts-opendin fonts-osifont fonts-monofur fonts-urw-base35"


def parse_faces(text):
    """A training script's --add-faces: font files, comma-separated, each present (else an
    argparse error that names the missing ones)."""
    faces = [face for face in text.split(",") if face]
    missing = [face for face in faces if not os.path.exists(face)]
    if missing:
        raise argparse.ArgumentTypeError(f"no such font file: {', '.join(missing)}")
    return faces


def available_faces(more=False):
    faces = [face for face in WHEEL_FACES if glob.glob(face)]
    if len(faces) < len(WHEEL_FACES) // 2:
        raise SystemExit(f"install the training faces: apt-get install {FACES_PACKAGES}")
    if more:
        extra = [face for face in MORE_FACES if glob.glob(face)]
        if len(extra) < len(MORE_FACES) // 2:
            raise SystemExit(f"install the cell classifier's faces: apt-get install {MORE_FACES_PACKAGES}")
        faces += extra
    return faces


def unseen_faces():
    """UNSEEN_FACES, every one present (else an error that says what to install)."""
    missing = [face for face in UNSEEN_FACES if not os.path.exists(face)]
    if missing:
        raise SystemExit(f"missing {', '.join(missing)}: apt-get install {UNSEEN_FACES_PACKAGES}")
    return list(UNSEEN_FACES)


def random_text(rng, digits, point_chance):
    text = "".join(str(rng.integers(10)) for _ in range(digits))
    if digits >= 2 and rng.random() < point_chance:
        at = int(rng.integers(1, digits))
        text = text[:at] + "." + text[at:]
    return text


def seven_segment(rng, context=None, variants=None):
    """An LCD or LED display: segments as polygons, ghost segments of the unlit ones, a decimal
    point after a digit, leading places blank or ghost. With `context` (a generator of its own, so
    that every other draw stays as it was), the display as a crop of a device shows it
    (`in_context`): stronger ghosts, a point of any size nearer the next digit, and around the
    digits a smaller row, a unit and the display's bezel. With `variants` (a generator of its own
    too), the display draws its 7, 6 and 9 in a design of `display_glyphs`, else as `LIT`."""
    lit = display_glyphs(variants) if variants is not None else LIT
    digits = int(rng.integers(1, 9))
    text = random_text(rng, digits, 0.45)
    places = digits + int(rng.integers(0, 3)) if rng.random() < 0.3 else digits
    scale = rng.uniform(14, 30)            # cell width in pixels
    tall = rng.uniform(1.6, 2.3)           # cell height / width
    thick = rng.uniform(0.12, 0.28)        # segment thickness / width
    gap = rng.uniform(0.0, 0.08)           # gap at segment ends
    slant = rng.uniform(-0.05, 0.22)       # italic shear
    pitch = rng.uniform(1.35, 1.8)         # place pitch / width
    lit_display = rng.random() < 0.25      # lit segments on a dark ground
    if lit_display:
        ground = rng.integers(0, 50, 3)
        ink = np.array(rng.choice([(255, 60, 40), (60, 255, 90), (90, 200, 255), (240, 240, 240), (255, 170, 40)]))
        ink = np.clip(ink * rng.uniform(0.7, 1.0), 0, 255)
    else:
        ground = np.array([rng.integers(130, 230)] * 3) + rng.integers(-15, 20, 3)
        ink = rng.integers(0, 70, 3)
    ghost_level = rng.choice([0.0, rng.uniform(0.05, 0.3)])
    if context is not None and context.random() < 0.6:
        ghost_level = context.uniform(0.15, 0.35)
    ghost = ground * (1 - ghost_level) + ink * ghost_level
    width = int(scale * (pitch * places + 1.2))
    height = int(scale * (tall + 0.8))
    image = np.zeros((height, width, 3), np.float32) + ground
    margin_x, margin_y = scale * 0.6, scale * 0.4
    glyphs = [c for c in text]
    shown = []
    place = places - digits
    x_of = lambda place_index: margin_x + place_index * pitch * scale
    for place_index in range(places - digits):
        draw_digit(image, "8", x_of(place_index), margin_y, scale, tall, thick, gap, slant, ghost, ghost)
    for char in glyphs:
        if char == ".":
            x = x_of(place) - (pitch - 1) * scale * 0.5 - thick * scale * 0.5
            y = margin_y + tall * scale - thick * scale
            size = thick * scale * rng.uniform(1.0, 1.4)
            if context is not None:  # a device's point: any size, often close to the next digit, but clear of both
                size = thick * scale * context.uniform(0.8, 1.4)
                left, right = x_of(place) - (pitch - 1 - thick / 2) * scale, x_of(place) - thick * scale / 2
                room = right - left - size
                x = left + room * context.uniform(0.3, 1.0) if room > 0 else (left + right - size) / 2
            cv2.rectangle(image, (int(x), int(y)), (int(x + size), int(y + size)), ink.tolist(), -1)
            shown.append((".", x, x + size, None))
            continue
        draw_digit(image, char, x_of(place), margin_y, scale, tall, thick, gap, slant, ink, ghost, lit)
        shown.append((char, x_of(place) - scale * 0.05, x_of(place) + scale * (1.05 + slant * tall), float(char)))
        place += 1
    if rng.random() < 0.5:  # a point lit after the last digit would be read; ghost points are not
        pass
    image = np.clip(image, 0, 255).astype(np.uint8)
    if context is not None:
        image, shown = in_context(context, image, shown, dict(scale=scale, tall=tall, thick=thick, gap=gap,
                                                             slant=slant, pitch=pitch, ground=ground, ink=ink,
                                                             ghost=ghost, top=margin_y, lit=lit))
    return image, shown


UNITS = ["mg/dL", "mmol/L", "C", "F", "kWh", "m3", "SYS", "PUL", "%", "bpm"]


def in_context(rng, image, shown, look):
    """A display's digit row as a crop around it shows it on a device (a thermometer, a glucose
    meter cut from a photo): a smaller row above or below (a clock, a memory number) in the same
    segments, a unit or label in small print, and the display's bezel and the body beyond on some
    sides. `look`: the row's drawing (scale, tall, thick, gap, slant, pitch, ground, ink, ghost, the
    digits' top and the glyphs lit; `image` 8-bit). Only the big row is read: the rest is what the
    reader must learn to pass over."""
    height, width = image.shape[:2]
    digit_height = look["tall"] * look["scale"]
    above = int(digit_height * rng.uniform(0.0, 0.9)) if rng.random() < 0.7 else 0
    below = int(digit_height * rng.uniform(0.0, 0.6)) if rng.random() < 0.6 else 0
    image = cv2.copyMakeBorder(image, above, below, 0, 0, cv2.BORDER_CONSTANT, value=look["ground"].tolist())
    band = (0, above) if above > 0 and (below == 0 or rng.random() < 0.75) else (above + height, above + height + below)
    small = look["scale"] * rng.uniform(0.22, 0.42)
    if band[1] - band[0] > small * look["tall"] * 1.1:  # a smaller row: a clock or a memory number
        count = int(rng.integers(2, 5))
        text = "".join(str(rng.integers(0, 10)) for _ in range(count))
        x = rng.uniform(0, max(1.0, width - count * small * look["pitch"] - small))
        y = band[0] + rng.uniform(0, band[1] - band[0] - small * look["tall"])
        for place, char in enumerate(text):
            draw_digit(image, char, x + place * look["pitch"] * small, y, small, look["tall"],
                       max(look["thick"], 0.16), look["gap"], look["slant"], look["ink"], look["ghost"],
                       look["lit"])
        if count == 4 and rng.random() < 0.5:  # a clock's colon
            cx = x + 2 * look["pitch"] * small - (look["pitch"] - 1) * small * 0.5
            for cy in (y + small * look["tall"] * 0.3, y + small * look["tall"] * 0.7):
                cv2.circle(image, (int(cx), int(cy)), max(1, int(small * 0.12)), look["ink"].tolist(), -1)
    if rng.random() < 0.6:  # a unit or label in small print, beside or under the row
        label = str(rng.choice(UNITS))
        size = digit_height * rng.uniform(0.12, 0.3) / 22
        (text_width, text_height), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, size, 1)
        x = int(rng.uniform(0, max(1, width - text_width)))
        y = int(image.shape[0] - rng.uniform(1, max(2, below + 2)))
        if below < text_height + 2:  # no room under the row: beside its last digit, low
            x = int(max(0, width - text_width - rng.uniform(0, look["scale"] * 0.3)))
            y = int(above + height - look["top"] * rng.uniform(0.2, 1.0))
        cv2.putText(image, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, size, look["ink"].tolist(),
                    max(1, int(round(size * 1.5))), cv2.LINE_AA)
    # The bezel and the body beyond, on each side by chance.
    bezel = rng.integers(0, 256, 3).astype(np.float32) * rng.uniform(0.2, 1.0)
    sides = [int(digit_height * rng.uniform(0.05, 0.5)) if rng.random() < 0.5 else 0 for _ in range(4)]
    if sum(sides):
        image = cv2.copyMakeBorder(image, *sides, cv2.BORDER_CONSTANT, value=bezel.tolist())
        if rng.random() < 0.5:  # the display's edge drawn as a darker line inside the bezel
            edge = (bezel * rng.uniform(0.2, 0.6)).tolist()
            cv2.rectangle(image, (sides[2] - 1, sides[0] - 1),
                          (image.shape[1] - sides[3], image.shape[0] - sides[1]), edge, max(1, int(digit_height * 0.03)))
    shown = [(char, x0 + sides[2], x1 + sides[2], value) for char, x0, x1, value in shown]
    return image, shown


# Digits of 5 x 7 dot-matrix character displays, a row of five dots a string; the variants are
# the common ones (a slashed or plain 0, a 1 with or without a foot, a round or flat-topped 3, a
# 6 and 9 with a hook or a bar).
DOTS = {
    "0": [["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
          ["01110", "10001", "10001", "10001", "10001", "10001", "01110"],
          ["01110", "10001", "10001", "10101", "10001", "10001", "01110"]],
    "1": [["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
          ["00010", "00110", "01010", "00010", "00010", "00010", "00010"]],
    "2": [["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
          ["01110", "10001", "00001", "01110", "10000", "10000", "11111"]],
    "3": [["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
          ["01110", "10001", "00001", "00110", "00001", "10001", "01110"]],
    "4": [["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
          ["10010", "10010", "10010", "11111", "00010", "00010", "00010"]],
    "5": [["11111", "10000", "11110", "00001", "00001", "10001", "01110"]],
    "6": [["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
          ["01110", "10000", "10000", "11110", "10001", "10001", "01110"]],
    "7": [["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
          ["11111", "10001", "00010", "00010", "00100", "00100", "00100"]],
    "8": [["01110", "10001", "10001", "01110", "10001", "10001", "01110"]],
    "9": [["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
          ["01110", "10001", "10001", "01111", "00001", "00001", "01110"]],
    ".": [["00000", "00000", "00000", "00000", "00000", "01100", "01100"]],
}


# Bitmap faces of the X11 core fonts (xfonts-base): terminal and console digit designs (1s with a
# long flag or none, with a foot or none, slashed and dotted 0s, cells from 4 x 6 to 10 x 20 dots)
# that a character display may show, drawn dot by dot (`dot_matrix`'s `bitmaps`). The
# DEVELOPMENT_BITMAP_FACES stay out of training, for the development set of such designs never
# seen (`bitmap_faces(development=True)`).
BITMAP_FACES_PACKAGE = "xfonts-base"
BITMAP_FACE_FOLDER = "/usr/share/fonts/X11/misc"
TRAINING_BITMAP_FACES = ["4x6", "5x7", "5x8", "6x9", "6x10", "6x12", "6x13", "6x13B", "6x13O", "7x13", "7x13B",
                         "7x14B", "8x13", "8x13B", "8x16", "9x15", "9x15B", "9x18", "9x18B", "10x20", "clB6x10",
                         "clB8x13", "clB8x16", "clI6x12", "clR5x8", "clR6x10", "clR6x13", "clR7x14", "clR8x13",
                         "clR8x16", "clR9x15"]
DEVELOPMENT_BITMAP_FACES = ["7x13O", "8x13O", "clB6x12", "clB8x8", "clB9x15", "clR5x10", "clR7x10", "clR8x8"]
_bitmap_faces = {}


def bitmap_faces(development=False):
    """The training (or development) bitmap faces, each {char: rows of "0"/"1"} for the ten digits
    and the point, every glyph on one grid (the face's digits' and point's bounding boxes on the
    baseline joined); an error that says what to install when they are missing."""
    if development not in _bitmap_faces:
        names = DEVELOPMENT_BITMAP_FACES if development else TRAINING_BITMAP_FACES
        faces = []
        for name in names:
            path = os.path.join(BITMAP_FACE_FOLDER, name + ".pcf.gz")
            if not os.path.exists(path):
                raise SystemExit(f"{path} is missing: apt-get install {BITMAP_FACES_PACKAGE}")
            with gzip.open(path) as file:
                glyphs = PcfFontFile.PcfFontFile(file).glyph
            boxes = {char: glyphs[ord(char)] for char in "0123456789."}
            left = min(box[1][0] for box in boxes.values())
            top = min(box[1][1] for box in boxes.values())
            right = max(box[1][2] for box in boxes.values())
            bottom = max(box[1][3] for box in boxes.values())
            face = {}
            for char, (_, (x0, y0, _, _), _, image) in boxes.items():
                grid = np.zeros((bottom - top, right - left), np.uint8)
                bits = np.array(image.convert("L"), np.uint8) > 0
                grid[y0 - top:y0 - top + bits.shape[0], x0 - left:x0 - left + bits.shape[1]] = bits
                face[char] = ["".join("1" if bit else "0" for bit in row) for row in grid]
            faces.append(face)
        _bitmap_faces[development] = faces
    return _bitmap_faces[development]


def dot_matrix(rng, bitmaps=None, bitmap_share=0.0):
    """A character display: each character 5 x 7 dots in a cell of 5 x 8 (or, `bitmap_share` of
    the time, a face of `bitmaps`, `bitmap_faces`' glyphs, in its own grid), cells a dot or two
    apart (a bitmap face's none or one: its cells hold their own gap), square or round dots, the
    unlit dots faintly visible or not, a point a character of its own, leading places blank; dark
    on a light ground or lit on a dark one."""
    digits = int(rng.integers(1, 9))
    text = random_text(rng, digits, 0.3)
    blanks = int(rng.integers(0, 3)) if rng.random() < 0.3 else 0
    bitmap = bool(bitmaps) and bitmap_share > 0 and rng.random() < bitmap_share
    if bitmap:
        glyphs = bitmaps[int(rng.integers(len(bitmaps)))]
    else:
        glyphs = {char: variants[int(rng.integers(len(variants)))] for char, variants in DOTS.items()}
    rows, columns = len(glyphs["0"]), len(glyphs["0"][0])
    pitch = rng.uniform(2.5, 5.5)                  # dot pitch in pixels (a tall face's display is taller)
    fill = rng.uniform(0.6, 0.95)                  # dot size / pitch
    round_dots = rng.random() < 0.4
    spacing = int(rng.integers(0, 2)) if bitmap else int(rng.integers(1, 3))  # dot pitches between cells
    lit_display = rng.random() < 0.3
    if lit_display:
        ground = rng.integers(0, 50, 3)
        ink = np.array(rng.choice([(90, 255, 120), (255, 180, 40), (240, 240, 240), (255, 200, 120)]))
    elif rng.random() < 0.25:                     # white on a blue STN display
        ground = np.array([rng.integers(120, 200), rng.integers(40, 90), rng.integers(0, 40)])
        ink = rng.integers(200, 256, 3)
    else:
        ground = np.array([rng.integers(130, 210)] * 3) + rng.integers(-20, 25, 3)
        ink = rng.integers(0, 70, 3)
    ghost_level = rng.choice([0.0, rng.uniform(0.04, 0.2)])
    ghost = ground * (1 - ghost_level) + ink * ghost_level
    places = blanks + len(text)
    step = (columns + spacing) * pitch
    margin_x, margin_y = pitch * rng.uniform(1, 3), pitch * rng.uniform(1, 2.5)
    width = int(2 * margin_x + places * step - spacing * pitch)
    height = int(2 * margin_y + (rows + 1) * pitch)
    image = np.zeros((height, width, 3), np.float32) + ground
    radius = fill * pitch / 2
    shown = []
    for place in range(places):
        char = text[place - blanks] if place >= blanks else None
        drawn = glyphs[char] if char else ["0" * columns] * rows
        left = margin_x + place * step
        for row, bits in enumerate(drawn):
            for column, bit in enumerate(bits):
                colour = ink if bit == "1" else ghost
                if bit == "0" and ghost_level == 0:
                    continue
                cx, cy = left + (column + 0.5) * pitch, margin_y + (row + 0.5) * pitch
                if round_dots:
                    cv2.circle(image, (int(cx * 8), int(cy * 8)), max(1, int(radius * 8)), colour.tolist(), -1,
                               lineType=cv2.LINE_AA, shift=3)
                else:
                    cv2.rectangle(image, (int((cx - radius) * 8), int((cy - radius) * 8)),
                                  (int((cx + radius) * 8), int((cy + radius) * 8)),
                                  colour.tolist(), -1, lineType=cv2.LINE_AA, shift=3)
        if char == ".":
            lit = [column for column in range(columns) if any(bits[column] == "1" for bits in drawn)]
            shown.append((".", left + lit[0] * pitch, left + (lit[-1] + 1) * pitch, None))
        elif char:
            shown.append((char, left, left + columns * pitch, float(char)))
    return np.clip(image, 0, 255).astype(np.uint8), shown


def draw_digit(image, char, x, y, scale, tall, thick, gap, slant, ink, ghost, lit=LIT):
    for name, ((ax, ay), (bx, by)) in SEGMENTS.items():
        colour = ink if name in lit[char] else ghost
        if colour is ghost and np.allclose(ghost, image[0, 0]):
            continue
        ay2, by2 = ay * tall / 2, by * tall / 2
        t = thick / 2
        if ax == bx:  # vertical
            pts = [(ax - t, ay2 + gap + t), (ax, ay2 + gap), (ax + t, ay2 + gap + t),
                   (bx + t, by2 - gap - t), (bx, by2 - gap), (bx - t, by2 - gap - t)]
        else:
            pts = [(ax + gap + t, ay2 - t), (ax + gap, ay2), (ax + gap + t, ay2 + t),
                   (bx - gap - t, by2 + t), (bx - gap, by2), (bx - gap - t, by2 - t)]
        poly = np.array([[x + scale * (px + slant * (tall - py)), y + scale * py] for px, py in pts], np.float32)
        cv2.fillPoly(image, [np.round(poly * 8).astype(np.int32)], colour.tolist(), lineType=cv2.LINE_AA, shift=3)


def wheel_strip(face, size, digit, fraction, cell, height, wheel, ink, pitch=None):
    """One wheel: digit and digit + 1 stacked, shown `fraction` of the way from one to the next,
    through a window `height` high. The digits stand `pitch` apart on the wheel (default the
    window's height; more, and a digit half-way shows less of each glyph, with a gap between).
    `face` is a font or a `strokes.StrokeFace` (which keeps the default pitch)."""
    if isinstance(face, strokes.StrokeFace):
        return stroke_wheel_strip(face, digit, fraction, cell, height, wheel, ink)
    pitch = pitch or height
    column = Image.new("RGB", (cell, pitch * 3), tuple(int(v) for v in wheel))
    draw = ImageDraw.Draw(column)
    for row, value in enumerate([(digit + 9) % 10, digit, (digit + 1) % 10]):
        left, top, right, bottom = draw.textbbox((0, 0), str(value), font=face)
        draw.text(((cell - (right - left)) / 2 - left, row * pitch + (pitch - (bottom - top)) / 2 - top),
                  str(value), fill=tuple(int(v) for v in ink), font=face)
    offset = int(round(pitch * 1.5 + fraction * pitch - height / 2))
    return np.asarray(column)[offset:offset + height]


def stroke_wheel_strip(face, digit, fraction, cell, height, wheel, ink):
    """`wheel_strip` for a face drawn from strokes: its glyphs as tall as a font's digits (0.72 of
    the size), centred in each place, cut to the cell."""
    column = np.zeros((height * 3, cell, 3), np.float32) + np.asarray(wheel, np.float32)
    for row, value in enumerate([(digit + 9) % 10, digit, (digit + 1) % 10]):
        glyph = face.glyph(str(value), max(4, int(round(face.size * 0.72))))
        glyph_height, glyph_width = glyph.shape
        top = row * height + (height - glyph_height) // 2
        left = (cell - glyph_width) // 2
        y0, x0 = max(0, top), max(0, left)
        y1, x1 = min(height * 3, top + glyph_height), min(cell, left + glyph_width)
        cover = glyph[y0 - top:y1 - top, x0 - left:x1 - left, None]
        column[y0:y1, x0:x1] = column[y0:y1, x0:x1] * (1 - cover) + np.asarray(ink, np.float32) * cover
    offset = int(round(height + fraction * height))
    return np.clip(column[offset:offset + height], 0, 255).astype(np.uint8)


def wheel_colours(rng):
    """A wheel's colour and its digits' ink: light digits on a dark wheel 70% of the time, else dark
    on light."""
    dark = rng.random() < 0.7
    wheel = rng.integers(5, 60, 3) if dark else rng.integers(190, 250, 3)
    ink = rng.integers(200, 256, 3) if dark else rng.integers(0, 50, 3)
    return wheel, ink


def wheels(rng, faces, stroke_share=0.0):
    """A mechanical counter: wheels in a window, the last ones often red, some caught mid-roll; in
    one of the font files `faces`, or, `stroke_share` of the time, in a design drawn from strokes."""
    digits = int(rng.integers(1, 9))
    if stroke_share and rng.random() < stroke_share:
        face = strokes.StrokeFace(rng, int(rng.integers(22, 44)))
    else:
        face = ImageFont.truetype(faces[int(rng.integers(len(faces)))], int(rng.integers(22, 44)))
    cell = int(face.size * rng.uniform(0.65, 0.95))
    height = int(face.size * rng.uniform(1.15, 1.5))
    gap = int(rng.integers(0, max(1, cell // 3)))
    wheel, ink = wheel_colours(rng)
    frame = rng.integers(0, 256, 3)
    red = int(rng.integers(0, 4)) if digits > 3 else 0
    border = int(rng.integers(2, 10))
    image = np.zeros((height + 2 * border, digits * (cell + gap) - gap + 2 * border, 3), np.uint8) + frame.astype(np.uint8)
    shown = []
    for index in range(digits):
        digit = int(rng.integers(10))
        fraction = 0.0
        if rng.random() < 0.3:
            fraction = float(rng.uniform(0.05, 0.95))
        elif rng.random() < 0.3:
            fraction = float(rng.uniform(-0.08, 0.08))
        colour = (rng.integers(120, 200), rng.integers(0, 40), rng.integers(0, 40)) if index >= digits - red else wheel
        strip = wheel_strip(face, face.size, digit, fraction, cell, height, colour, ink)
        x = border + index * (cell + gap)
        image[border:border + height, x:x + cell] = strip
        value = (digit + fraction) % 10
        shown.append((str(round_digit(value)), x, x + cell, value))
    return image, shown


def wheel_photo(rng, faces, stroke_share=0.0, wide_share=0.0, digit=None, roll=None):
    """One wheel as a camera's digit window takes it: tight around the digit (which fills 75-95%
    of the height, as in meterdigits' photos), the wheel's sides or the window's frame at its
    edges half of the time, caught mid-roll 30% of the time. In one of the font files `faces`, or,
    `stroke_share` of the time, a design drawn from strokes. `wide_share` of the font wheels have
    their digits farther apart than the window is high (1.05-1.35 times) and smaller in it
    (55-90% of its height), as many water meters' wheels do. `digit` fixes the digit and `roll`,
    a (low, high) pair, draws how far it has turned towards the next from that range instead;
    left out, both are drawn as before. Returns (image, wheel value)."""
    size = int(rng.integers(28, 56))
    stroked = bool(stroke_share) and rng.random() < stroke_share
    if stroked:
        face = strokes.StrokeFace(rng, size)
    else:
        face = ImageFont.truetype(faces[int(rng.integers(len(faces)))], size)
    wide = not stroked and bool(wide_share) and rng.random() < wide_share
    height = int(round(size * 0.72 / (rng.uniform(0.55, 0.9) if wide else rng.uniform(0.75, 0.95))))
    pitch = int(round(height * rng.uniform(1.05, 1.35))) if wide else height
    cell = int(round(size * rng.uniform(0.55, 0.9)))
    wheel, ink = wheel_colours(rng)
    digit = int(rng.integers(10)) if digit is None else digit
    if roll is None:
        fraction = float(rng.uniform(0.05, 0.95)) if rng.random() < 0.3 else float(rng.uniform(-0.08, 0.08))
    else:
        fraction = float(rng.uniform(*roll))
    image = wheel_strip(face, size, digit, fraction, cell, height, wheel, ink, pitch)
    if rng.random() < 0.5:
        frame = rng.integers(0, 256, 3).astype(np.uint8)
        left, right = (int(v) for v in rng.integers(1, max(2, cell // 6), 2))
        image = cv2.copyMakeBorder(image, 0, 0, left, right, cv2.BORDER_CONSTANT, value=frame.tolist())
    return image, (digit + fraction) % 10


def round_digit(value):
    """The digit a wheel at `value` is labelled with: the nearer one (x.5 and up: x + 1)."""
    return int(math.floor(value + 0.5)) % 10
