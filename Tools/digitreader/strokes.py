"""Digits drawn from strokes, in designs drawn at random, for the cell classifier's counters.

A font face fixes one design per digit; meters are lettered in many more (a 6 whose stem is a
straight line rising from its bowl, vertical or slanted, or a curve; a 3 with a flat or a round
top; open and closed 4s; a 1 with or without a flag and a foot; a 7 with or without a bar). A
`StrokeFace` draws each of its digits as centre lines (lines, elliptical and squarish arcs) chosen
from those variants, with its own proportions, stroke weight and slant, so the classifier learns
what makes a 6 a 6 over more designs than the installed fonts hold. Used by `render.wheels` in
place of a font face for a share of the counters (the classifier's `--stroke-share`, 0 by
default: a third was tried and not kept, docs/recognizers.md).
"""
import math

import cv2
import numpy as np

_SUPERSAMPLE = 4


def _bezier(start, control, end, steps=16):
    """Points of the quadratic Bezier curve from `start` to `end` pulled towards `control`."""
    return [((1 - t) ** 2 * start[0] + 2 * (1 - t) * t * control[0] + t ** 2 * end[0],
             (1 - t) ** 2 * start[1] + 2 * (1 - t) * t * control[1] + t ** 2 * end[1])
            for t in np.linspace(0, 1, steps)]


def _arc(cx, cy, rx, ry, start, end, power=2.0, steps=24):
    """Points of a superellipse (power 2: an ellipse; larger: squarer) from angle `start` to `end`
    in degrees, 0 to the right, 90 down (image coordinates)."""
    points = []
    for t in np.linspace(math.radians(start), math.radians(end), steps):
        c, s = math.cos(t), math.sin(t)
        points.append((cx + rx * math.copysign(abs(c) ** (2 / power), c),
                       cy + ry * math.copysign(abs(s) ** (2 / power), s)))
    return points


class StrokeFace:
    """One random design of the ten digits. `size` is the nominal size in pixels, as a font's."""

    def __init__(self, rng, size):
        self.size = size
        self.aspect = rng.uniform(0.45, 0.75)       # glyph width / height
        self.weight = rng.uniform(0.07, 0.2)        # stroke width / glyph height
        self.slant = rng.uniform(-0.05, 0.2)
        self.power = rng.choice([2.0, 2.0, rng.uniform(2.2, 4.5)])
        self.waist = rng.uniform(0.42, 0.52)        # where 3, 5 and 8 join their halves
        self.variant = {
            "0": rng.choice(["plain"] * 8 + ["slash", "dot"]),
            "1": (rng.choice(["none", "short", "long"], p=[0.2, 0.5, 0.3]), rng.random() < 0.35),
            "2": rng.choice(["straight", "curved"]),
            "3": rng.choice(["round", "flat"]),
            "4": rng.choice(["closed", "open"]),
            "6": self._hook_design(rng),
            "7": (rng.choice(["straight", "curved"]), rng.random() < 0.15),
            "9": self._hook_design(rng),
        }

    @staticmethod
    def _hook_design(rng):
        """A 6's (and, turned, a 9's) stem: a curve from the top right, or a straight line rising from
        the bowl's left, vertical or leaning right, sometimes with a small hook at its top; and
        how much of the height the bowl takes."""
        return (rng.choice(["curve", "straight", "hooked"], p=[0.4, 0.35, 0.25]),
                rng.uniform(0.42, 0.68), rng.uniform(0.0, 0.6))

    def _lines(self, digit):
        """The digit's centre lines in a unit box (x right, y down)."""
        p, waist = self.power, self.waist
        variant = self.variant.get(digit)
        if digit == "0":
            lines = [_arc(0.5, 0.5, 0.5, 0.5, 0, 360, p, 48)]
            if variant == "slash":
                lines.append([(0.2, 0.8), (0.8, 0.2)])
            elif variant == "dot":
                lines.append([(0.5, 0.46), (0.5, 0.54)])
            return lines
        if digit == "1":
            flag, foot = variant
            lines = [[(0.6, 0.0), (0.6, 1.0)]]
            if flag == "short":
                lines.append([(0.6, 0.0), (0.3, 0.22)])
            elif flag == "long":
                lines.append([(0.6, 0.0), (0.15, 0.4)])
            if foot:
                lines.append([(0.25, 1.0), (0.95, 1.0)])
            return lines
        if digit == "2":
            top = _arc(0.5, 0.27, 0.5, 0.27, 195, 360 + 20, p)
            if variant == "straight":
                neck = [top[-1], (0.0, 1.0)]
            else:
                neck = _bezier(top[-1], (0.7, 0.65), (0.0, 1.0))
            return [top + neck[1:], [(0.0, 1.0), (1.0, 1.0)]]
        if digit == "3":
            lower = _arc(0.5, 1 - (1 - waist) / 2, 0.5, (1 - waist) / 2, -95, 160, p)
            if variant == "round":
                upper = _arc(0.48, waist / 2, 0.45, waist / 2, 200, 450, p)
                return [upper, lower]
            return [[(0.05, 0.0), (0.95, 0.0), (0.45, waist), lower[0]], lower]
        if digit == "4":
            bar = 0.68
            if variant == "closed":
                return [[(0.72, 1.0), (0.72, 0.0), (0.0, bar), (1.0, bar)]]
            return [[(0.15, 0.0), (0.0, bar), (1.0, bar)], [(0.72, 0.3), (0.72, 1.0)]]
        if digit == "5":
            bowl = _arc(0.5, 1 - (1 - waist) / 2 + 0.03, 0.5, (1 - waist) / 2 + 0.03, 215, 520, p)
            return [[(0.95, 0.0), (0.12, 0.0), (0.06, waist + 0.04)] + bowl]
        if digit == "7":
            shape, bar = variant
            if shape == "straight":
                lines = [[(0.0, 0.0), (1.0, 0.0), (0.35, 1.0)]]
            else:
                lines = [[(0.0, 0.0)] + _bezier((1.0, 0.0), (0.45, 0.45), (0.4, 1.0))]
            if bar:
                lines.append([(0.3, 0.5), (0.9, 0.5)])
            return lines
        if digit == "8":
            upper_height = waist
            return [_arc(0.5, upper_height / 2, 0.43, upper_height / 2, 0, 360, p, 40),
                    _arc(0.5, upper_height + (1 - upper_height) / 2, 0.5, (1 - upper_height) / 2, 0, 360, p, 40)]
        if digit in "69":
            stem, bowl, lean = variant
            radius = bowl / 2
            centre = 1 - radius
            ring = _arc(0.5, centre, 0.5, radius, 0, 360, p, 40)
            if stem == "curve":
                line = _bezier((0.9, 0.04), (0.1, 0.0), (0.0, centre))
            else:
                top = (0.1 + lean * 0.9, 0.0)
                line = [top, (0.0, centre)]
                if stem == "hooked":
                    line = [(top[0] + 0.3, 0.06)] + line
            lines = [ring, line]
            if digit == "9":
                lines = [[(1 - x, 1 - y) for x, y in points] for points in lines]
            return lines
        raise ValueError(f"no stroke design for {digit!r}")

    def glyph(self, digit, height):
        """The digit as coverage in [0, 1]: `height` rows (the glyph's own), as wide as its design
        and slant need."""
        width = max(2, int(round(height * self.aspect)))
        pen = max(1.0, self.weight * height)
        margin = pen / 2 + 1
        lean = self.slant * height
        canvas_width = int(math.ceil(width + abs(lean) + 2 * margin))
        canvas_height = int(math.ceil(height + 2 * margin))
        s = _SUPERSAMPLE
        canvas = np.zeros((canvas_height * s, canvas_width * s), np.uint8)
        shift = margin + max(0.0, -lean)
        for line in self._lines(digit):
            points = [((shift + x * width + self.slant * (1 - y) * height) * s, (margin + y * height) * s)
                      for x, y in line]
            cv2.polylines(canvas, [np.round(np.array(points) * 8).astype(np.int32)], False, 255,
                          thickness=max(1, int(round(pen * s))), lineType=cv2.LINE_AA, shift=3)
        return cv2.resize(canvas, (canvas_width, canvas_height), interpolation=cv2.INTER_AREA) / 255.0
