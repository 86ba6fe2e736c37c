"""Write the two small models PyTorch's dynamo exporter makes that tests/test_onnx_refine.py
reads: ``dynamo_net.onnx`` (a conv net of opset 20 whose ReduceMean takes its axes as an
input, with dynamic batch, height and width) and ``dynamo_cond.onnx`` (``torch.cond``
exported as an If on a computed condition, dynamic rows). Needs torch and onnxscript,
which the tests do not: ``python tests/data/make_dynamo_exports.py`` (torch 2.13,
onnxscript 0.7.2 made the files shipped)."""

from __future__ import annotations

from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn(self.c1(x)))
        y = y + torch.relu(self.c2(y))
        return self.fc(y.mean(dim=(2, 3)))


class Cond(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.sum() > 0, lambda x: torch.cat([x, x], dim=0),
                          lambda x: x * 2, (x,))


def main() -> None:
    torch.manual_seed(0)
    dims = {"x": {0: torch.export.Dim("batch"), 2: torch.export.Dim("h", min=8),
                  3: torch.export.Dim("w", min=8)}}
    torch.onnx.export(Net().eval(), (torch.randn(2, 3, 32, 32),), dynamo=True,
                      dynamic_shapes=dims).save(HERE / "dynamo_net.onnx")
    torch.onnx.export(Cond(), (torch.randn(4, 3),), dynamo=True,
                      dynamic_shapes={"x": {0: torch.export.Dim("n")}}
                      ).save(HERE / "dynamo_cond.onnx")


if __name__ == "__main__":
    main()
