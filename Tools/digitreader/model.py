"""The sequence digit reader: a fully convolutional network over a grey strip 32 pixels high.

Output N x 14 x 1 x T, T = W / 4: per column of four pixels, 12 CTC scores (blank, the digits 0-9,
the decimal point) and a digit wheel's position as a point on the unit circle (cos, sin of
2 pi value / 10), so that a wheel caught between 4 and 5 reads 4.5. Only Conv, BatchNorm, ReLU and
MaxPool: the operators Debian's OpenCV 4.6 dnn imports with a dynamic width. The transpose,
softmax and CTC decoding are the plugin's (Sources/Plugins/DigitReader).
"""
from torch import nn

HEIGHT = 32
STRIDE = 4
CLASSES = "-0123456789."  # index 0 is the CTC blank
BLANK = 0
POINT = 11


def block(inputs, outputs, kernel=3, padding=1):
    return [nn.Conv2d(inputs, outputs, kernel, padding=padding, bias=False), nn.BatchNorm2d(outputs), nn.ReLU()]


class DigitReader(nn.Module):
    def __init__(self, width=1.0):
        super().__init__()
        c = [int(round(n * width)) for n in (32, 64, 96, 128, 160)]
        self.features = nn.Sequential(
            *block(1, c[0]), nn.MaxPool2d(2),                      # 16 x W/2
            *block(c[0], c[1]), nn.MaxPool2d(2),                   # 8 x W/4
            *block(c[1], c[2]), *block(c[2], c[2]), nn.MaxPool2d((2, 1)),  # 4 x W/4
            *block(c[2], c[3]), *block(c[3], c[3]), nn.MaxPool2d((2, 1)),  # 2 x W/4
            *block(c[3], c[4], kernel=(2, 3), padding=(0, 1)),       # 1 x W/4
            *block(c[4], c[4], kernel=(1, 3), padding=(0, 1)),
        )
        self.head = nn.Conv2d(c[4], len(CLASSES) + 2, 1)

    def forward(self, image):
        return self.head(self.features(image))


class CellClassifier(nn.Module):
    """One digit cell, 1 x 32 x 20 grey, to 10 digit scores: three blocks of two 3 x 3 convolutions
    (32, 64, 128 channels times `width`) and a 2 x 2 max pooling, then two dense layers (Flatten and Gemm in ONNX). A second opinion on
    each digit the sequence reader places, as AI-on-the-edge's digit classifiers read cells."""

    def __init__(self, width=1.0):
        super().__init__()
        c = [int(round(n * width)) for n in (32, 64, 128)]
        self.features = nn.Sequential(
            *block(1, c[0]), *block(c[0], c[0]), nn.MaxPool2d(2),   # 16 x 10
            *block(c[0], c[1]), *block(c[1], c[1]), nn.MaxPool2d(2),  # 8 x 5
            *block(c[1], c[2]), *block(c[2], c[2]), nn.MaxPool2d(2),  # 4 x 2
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c[2] * 4 * 2, 128), nn.ReLU(), nn.Dropout(0.3),
                                  nn.Linear(128, 10))

    def forward(self, image):
        return self.head(self.features(image))
