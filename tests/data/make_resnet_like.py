"""Write resnet_like.onnx (beside this file): a small ResNet-18-like network (a 7x7 stem,
a max pool, four basic blocks with batch norms and 1x1 downsampling shortcuts, a global
average pool and a linear layer; 4 to 16 channels, random weights) exported by PyTorch's
TorchScript exporter as it exports torchvision's ResNet-18, with the batch, height and
width named (N, H, W). The ONNX tests read it (tests/test_onnx_sound.py); they do not
need torch. Run by hand in a venv with torch::

    pip install torch==2.13.0 onnx
    python tests/data/make_resnet_like.py
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

HERE = Path(__file__).resolve().parent


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                  nn.BatchNorm2d(cout)) if stride != 1 or cin != cout else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 4, 7, 2, 3, bias=False), nn.BatchNorm2d(4),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.layers = nn.Sequential(Block(4, 4, 1), Block(4, 8, 2), Block(8, 8, 2),
                                    Block(8, 16, 2))
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.adaptive_avg_pool2d(self.layers(self.stem(x)), 1)
        return self.fc(torch.flatten(x, 1))


def main() -> None:
    torch.manual_seed(0)
    torch.onnx.export(Net().eval(), torch.randn(1, 3, 64, 64), HERE / "resnet_like.onnx",
                      dynamo=False, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N", 2: "H", 3: "W"}}, opset_version=17,
                      do_constant_folding=False)


if __name__ == "__main__":
    main()
