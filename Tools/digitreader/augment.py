"""What real photos do to a digit window, and the reader's input as the plugin prepares it.

`prepare` must stay the same computation as `prepare` in
Sources/Plugins/CDigitReader/digit_reader.cpp: grey, 32 pixels high with the aspect kept
(area interpolation down, linear up), zero mean and unit spread (the spread at least 8 grey
levels, so that a blank window is not blown up into noise), zeros on the right up to a whole
number of output columns.
"""
import cv2
import numpy as np

from .model import HEIGHT, STRIDE


def prepare(image):
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    height, width = grey.shape
    target = max(8, int(round(width * HEIGHT / height)))
    method = cv2.INTER_AREA if height > HEIGHT else cv2.INTER_LINEAR
    grey = cv2.resize(grey, (target, HEIGHT), interpolation=method).astype(np.float32)
    mean, spread = float(grey.mean()), float(grey.std())
    grey = (grey - mean) / max(spread, 8.0)
    return np.pad(grey, ((0, 0), (0, (-target) % STRIDE)))


# A window whose grey spread falls under this after the camera is one nobody could read: it is
# drawn again (at most `TRIES` times, then kept as the camera left it with the light untouched).
LEAST_SPREAD = 16
TRIES = 4


def augment(rng, image, shown, rendered, drum=None, tight=False):
    """The image and its characters' extents after a random camera, light and compression; with
    `drum` (a generator of its own, so that every other draw stays as it was), a wheel drum's
    shading too (`drum_shading`); `tight`: the crop's top and bottom drawn close to the window
    (`camera`)."""
    for _ in range(TRIES):
        result = camera(rng, image, shown, rendered, light=True, drum=drum, tight=tight)
        if cv2.cvtColor(result[0], cv2.COLOR_BGR2GRAY).std() >= LEAST_SPREAD:
            return result
    return camera(rng, image, shown, rendered, light=False)


def drum_shading(rng, height, width):
    """A counter's wheels are drums: lit from the front, their faces darken toward the window's
    top and bottom edges, where a glyph's head and foot turn away (a 6's foot may all but vanish).
    A gain per row, 1 at the drum's brightest line (within a sixth of the middle) falling as the
    square of the distance from it, to 0.2-0.7 at the farther edge."""
    centre = height * (0.5 + rng.uniform(-1 / 6, 1 / 6))
    depth = rng.uniform(0.3, 0.8)
    rows = (np.arange(height, dtype=np.float32) + 0.5 - centre) / max(centre, height - centre)
    return np.repeat((1 - depth * rows ** 2)[:, None], width, axis=1)


def camera(rng, image, shown, rendered, light, drum=None, tight=False):
    image = image.astype(np.uint8)
    height, width = image.shape[:2]
    xs = [(x0, x1) for _, x0, x1, _ in shown]
    if rng.random() < (0.4 if rendered else 0.2):  # strokes thinner or thicker
        kernel = np.ones((2, 2), np.uint8)
        image = cv2.erode(image, kernel) if rng.random() < 0.5 else cv2.dilate(image, kernel)
    # A looser or tighter window, then perspective and rotation.
    # `tight`: the same draws pressed into -0.06 to 0.06, a window cut close above and below its
    # digits, as a per-wheel region or a counter's own frame crops it.
    top, bottom = (rng.uniform(-0.06, 0.3) for _ in range(2))
    if tight:
        top, bottom = (-0.06 + (share + 0.06) / 3 for share in (top, bottom))
    top, bottom = int(height * top), int(height * bottom)
    left, right = (int(height * rng.uniform(-0.05, 0.5)) for _ in range(2))
    fill = rng.integers(0, 256, 3).tolist()
    mode = cv2.BORDER_REPLICATE if rng.random() < 0.5 else cv2.BORDER_CONSTANT
    image = cv2.copyMakeBorder(image, max(top, 0), max(bottom, 0), max(left, 0), max(right, 0), mode, value=fill)
    image = image[max(-top, 0):image.shape[0] - max(-bottom, 0), max(-left, 0):image.shape[1] - max(-right, 0)]
    xs = [(x0 + left, x1 + left) for x0, x1 in xs]
    height, width = image.shape[:2]
    jitter = 0.06 * min(height, width)
    source = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    target = source + rng.uniform(-jitter, jitter, (4, 2)).astype(np.float32)
    angle = np.deg2rad(rng.uniform(-4, 4))
    centre = np.float32([width / 2, height / 2])
    rotation = np.float32([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    target = (target - centre) @ rotation.T + centre
    target -= target.min(axis=0)
    size = np.ceil(target.max(axis=0)).astype(int)
    matrix = cv2.getPerspectiveTransform(source, target.astype(np.float32))
    image = cv2.warpPerspective(image, matrix, (int(size[0]), int(size[1])), borderMode=cv2.BORDER_REPLICATE)
    points = np.float32([[[x, height / 2] for pair in xs for x in pair]])
    if len(xs):
        moved = cv2.perspectiveTransform(points, matrix)[0][:, 0]
        xs = list(zip(moved[0::2], moved[1::2]))
    # Aspect and resolution: another lens, another distance.
    height, width = image.shape[:2]
    stretch = rng.uniform(0.75, 1.35)
    small = rng.uniform(18, 48)
    factor = small / height
    image = cv2.resize(image, (max(4, int(width * factor * stretch)), max(4, int(small))), interpolation=cv2.INTER_AREA)
    xs = [(x0 * factor * stretch, x1 * factor * stretch) for x0, x1 in xs]
    pixels = image.astype(np.float32)
    height, width = pixels.shape[:2]
    if rng.random() < 0.4:
        sigma = rng.uniform(0.3, 1.0)
        pixels = cv2.GaussianBlur(pixels, (0, 0), sigma)
    elif rng.random() < 0.3:
        length = int(rng.integers(2, 5))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1 / length
        rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        pixels = cv2.filter2D(pixels, -1, cv2.warpAffine(kernel, rotation, (length, length)))
    # Light: contrast, an uneven ramp, glare, colour cast.
    if light:
        contrast = rng.uniform(0.65, 1.2)
        pixels = pixels * contrast + rng.uniform(-30, 40) * (1.5 - contrast)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        ramp = 1 + rng.uniform(-0.35, 0.35) * xx / width + rng.uniform(-0.25, 0.25) * yy / height
        pixels = pixels * ramp[:, :, None]
        if rng.random() < 0.3:
            cy, cx = rng.uniform(0, height), rng.uniform(0, width)
            radius = rng.uniform(0.1, 0.3) * width
            spot = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * radius ** 2))
            pixels = pixels + spot[:, :, None] * rng.uniform(40, 130)
        pixels = pixels * rng.uniform(0.85, 1.15, 3)
        if drum is not None:
            pixels = pixels * drum_shading(drum, height, width)[:, :, None]
    image = sensor(rng, pixels, noise=8, jpeg=0.7, quality=30)
    scale = HEIGHT / image.shape[0]
    return image, [(char, x0 * scale, x1 * scale, value) for (char, _, _, value), (x0, x1) in zip(shown, xs)]


def sensor(rng, pixels, noise, jpeg, quality):
    """What the camera's sensor and encoder add: noise of up to `noise` grey levels, inverted
    polarity one time in five, and JPEG at `quality`-95 with chance `jpeg`; 8-bit pixels out."""
    pixels = pixels + rng.normal(0, rng.uniform(0, noise), pixels.shape)
    if rng.random() < 0.2:
        pixels = 255 - pixels
    image = np.clip(pixels, 0, 255).astype(np.uint8)
    if rng.random() < jpeg:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(quality, 95))])
        image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    return image
