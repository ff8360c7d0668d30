"""The pointer dial network: a BGR dial box at SIDE x SIDE in, where the pointer stands out.

Fully convolutional (Conv, BatchNorm, ReLU, MaxPool only, which Debian's OpenCV 4.6 imports): four
3 x 3 convolutions with 2 x 2 pooling down to 4 x 4, a 4 x 4 convolution to one cell and a 1 x 1
head. Out come two numbers, the pointer's value v as a point (cos, sin) of 2 pi v / 10: 9.9 lies
next to 0.0, and a box the network cannot read gives a point near the centre (its length is the
confidence).
"""
import torch
from torch import nn

from .render import SIDE


class DialNetwork(nn.Module):
    def __init__(self, width=1.0):
        super().__init__()
        channels = [3] + [max(8, int(c * width)) for c in (16, 32, 48, 64)]
        layers = []
        for incoming, outgoing in zip(channels, channels[1:]):
            layers += [nn.Conv2d(incoming, outgoing, 3, padding=1, bias=False), nn.BatchNorm2d(outgoing),
                       nn.ReLU(inplace=True), nn.MaxPool2d(2)]
        cell = SIDE // 16
        layers += [nn.Conv2d(channels[-1], 128, cell), nn.ReLU(inplace=True), nn.Conv2d(128, 2, 1)]
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)  # N x 2 x 1 x 1


def value_of(output):
    """N x 2 (cos, sin) -> values in [0, 10) and confidences (the point's length, at most 1)."""
    angle = torch.atan2(output[:, 1], output[:, 0])
    return torch.remainder(angle / (2 * torch.pi) * 10, 10), torch.clamp(output.norm(dim=1), max=1)
