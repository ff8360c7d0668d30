"""What the whole-photo networks take and are taught: the photo scaled to its longer side, and the
rows' cores drawn on a map at the network's stride (Tools/train-row-finder.py,
Tools/train-orientation.py). The host prepares photos the same way (digit_reader.cpp)."""
import cv2
import numpy as np

CORE = (0.25, 0.75)   # the core's top and bottom, as shares of the row's height
INSET = 0.1           # the core's inset at either end, in row heights


def input_size(width, height, long_side):
    """The network's input size for a photo: `long_side` on the longer side, both a multiple of 16."""
    scale = long_side / max(width, height)
    return max(16, int(round(width * scale / 16)) * 16), max(16, int(round(height * scale / 16)) * 16)


def prepare(photo, long_side):
    """BGR photo -> (3 x H x W float input, scale x, scale y)."""
    width, height = input_size(photo.shape[1], photo.shape[0], long_side)
    small = cv2.resize(photo, (width, height), interpolation=cv2.INTER_AREA)
    return small.transpose(2, 0, 1).astype(np.float32) / 255, width / photo.shape[1], height / photo.shape[0]


def core_mask(quads, width, height, sx, sy, stride, values=None, core=CORE, inset=INSET):
    """The map at `stride` of an input `width` x `height`: each row's core (from `core`[0] to
    `core`[1] of its height, less `inset` heights at either end) filled with its value (1 by
    default; `values`, one a quad, otherwise), later rows over earlier ones."""
    mask = np.zeros((height // stride, width // stride), np.float32)
    for index, quad in enumerate(quads):
        q = quad * np.float32([sx, sy]) / stride
        top_left, top_right, bottom_right, bottom_left = q
        rows_height = (np.linalg.norm(bottom_left - top_left) + np.linalg.norm(bottom_right - top_right)) / 2
        along = top_right - top_left
        along = along / max(np.linalg.norm(along), 1e-6) * inset * rows_height
        upper_left = top_left + (bottom_left - top_left) * core[0] + along
        upper_right = top_right + (bottom_right - top_right) * core[0] - along
        lower_right = top_right + (bottom_right - top_right) * core[1] - along
        lower_left = top_left + (bottom_left - top_left) * core[1] + along
        polygon = np.stack([upper_left, upper_right, lower_right, lower_left])
        value = 1.0 if values is None else float(values[index])
        cv2.fillPoly(mask, [np.round(polygon * 8).astype(np.int32)], value, lineType=cv2.LINE_8, shift=3)
    return mask
