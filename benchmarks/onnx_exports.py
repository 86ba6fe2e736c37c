"""Real models exported by PyTorch, every intermediate value's inferred shape judged by
onnxruntime runs (issue #32): kantensor's ``infer_shapes`` beside onnxruntime's
``SymbolicShapeInference`` (auto_merge) and ``onnx.shape_inference`` (data_prop).

Two steps, each in the environment it needs:

``export DIR``   (torch; transformers and torchvision where installed) writes each
                 model of :data:`MODELS` with random weights, exported by each of
                 ``torch.onnx``'s exporters (TorchScript's, ``dynamo=False``, and
                 ``torch.export``'s, ``dynamo=True``) with named dynamic sizes, as
                 ``DIR/<model>.<exporter>.onnx`` beside ``DIR/<model>.sizes.json`` (the
                 three size assignments it runs at). A model or exporter that fails is
                 reported and skipped, its error (and the errors that caused it) kept
                 in ``DIR/<model>.<exporter>.failed``. Without torch it says so and
                 exits.
``patterns DIR`` (onnx) writes the exporter-pattern models of tests/exported_models.py
                 (position ids, causal masks, attention reshapes, position tables,
                 a stack of seven ceil-mode pools, a strided conv feature
                 extractor) as ``DIR/<name>.pattern.onnx`` with their sizes, for
                 ``measure`` and ``time``.
``time DIR``     (kantensor, onnxruntime) times each tool typing each model (value_info
                 and output shapes removed, protobuf reading included) in fresh
                 processes of its own (benchmarks/onnx_time.py; the tools taking
                 turns): cold = the first call of a process (best and median over
                 ``--processes``), best = the best of ``--repeat`` calls after it.
``measure DIR``  (kantensor, onnxruntime; sympy for onnxruntime's tool; in
                 benchmarks/onnx_measure.py) strips every model's value_info and output
                 shapes, types it with each tool, runs it with onnxruntime at its three
                 assignments with every value an output, finds the values whose size
                 the data decides (tests/dataprobe.py), and judges each value exact /
                 unknown / wrong / data-dependent (tests/shapejudge.py). Prints a table
                 per model, the exports it lacks and why, and the totals; ``--json
                 FILE`` keeps them, ``--show N`` lists N values per model that
                 kantensor leaves unknown, guesses or types wrong.

The models are not the project's: keep DIR outside the repository.
Run: python benchmarks/onnx_exports.py export DIR [--only NAME ...]
     python benchmarks/onnx_exports.py measure DIR [--only NAME ...] [--json FILE]
     python benchmarks/onnx_exports.py patterns DIR
     python benchmarks/onnx_exports.py time DIR [--only NAME ...] [--processes 3]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from statistics import median

from onnx_measure import measure

HERE = Path(__file__).resolve().parent

TEXT = [{"batch": 1, "seq": 5}, {"batch": 2, "seq": 17}, {"batch": 3, "seq": 32}]
IMAGE = [{"batch": 1, "height": 224, "width": 224}, {"batch": 2, "height": 160, "width": 192},
         {"batch": 3, "height": 97, "width": 131}]
FIXED_IMAGE = [{"batch": 1}, {"batch": 2}, {"batch": 3}]
#: AlexNet's adaptive pool, exported by torch.export as a pool of fixed windows, gives
#: 6x6 only where the features are 13x13 (sizes 223 to 254)
ALEXNET = [{"batch": 1, "height": 224, "width": 224}, {"batch": 2, "height": 231, "width": 227},
           {"batch": 3, "height": 239, "width": 250}]
DETECTION = [{"height": 320, "width": 320}, {"height": 240, "width": 300},
             {"height": 401, "width": 353}]
AUDIO = [{"batch": 1, "samples": 1600}, {"batch": 2, "samples": 4000},
         {"batch": 3, "samples": 8001}]


# -- export (torch) ----------------------------------------------------------------------
def _first(out):
    """The first tensor of a model's output (a tuple, or a transformers output)."""
    if isinstance(out, tuple | list):
        return out[0]
    for key in ("logits", "last_hidden_state"):
        if getattr(out, key, None) is not None:
            return getattr(out, key)
    return out


def _wrapped(torch, module, names: tuple[str, ...]):
    """``module`` as a Module of positional tensors named ``names`` giving one tensor."""
    class One(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = module

        def forward(self, x):
            return _first(self.inner(**{names[0]: x}) if names[0] != "x"
                          else self.inner(x))

    class Two(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = module

        def forward(self, x, y):
            return _first(self.inner(**{names[0]: x, names[1]: y}))

    return (One if len(names) == 1 else Two)().eval()


def _text(model_fn: Callable, mask: bool = True) -> Callable:
    def make(torch):
        ids = torch.zeros((2, 8), dtype=torch.long)
        args = {"input_ids": ids}
        if mask:
            args["attention_mask"] = torch.ones((2, 8), dtype=torch.long)
        axes = {name: {0: "batch", 1: "seq"} for name in args}
        return model_fn(), args, axes, TEXT
    return make


def _image(model_fn: Callable, size: int = 224, fixed: bool = False,
           keyword: str = "x", sizes: list | None = None) -> Callable:
    def make(torch):
        x = torch.randn(2, 3, size, size)
        axes = {keyword: {0: "batch"} if fixed else {0: "batch", 2: "height", 3: "width"}}
        return model_fn(), {keyword: x}, axes, sizes or (FIXED_IMAGE if fixed else IMAGE)
    return make


def _transformers_models() -> dict[str, Callable]:
    import transformers as tr

    small = {"vocab_size": 1000}

    def gpt2():
        return tr.GPT2LMHeadModel(tr.GPT2Config(n_layer=2, n_embd=64, n_head=4,
                                                n_positions=64, **small))

    def bert():
        return tr.BertModel(tr.BertConfig(num_hidden_layers=2, hidden_size=64,
                                          num_attention_heads=4, intermediate_size=128,
                                          max_position_embeddings=64, **small))

    def t5():
        return tr.T5EncoderModel(tr.T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4,
                                             d_ff=128, **small))

    def llama():
        return tr.LlamaForCausalLM(tr.LlamaConfig(
            num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
            num_key_value_heads=2, intermediate_size=128, max_position_embeddings=64,
            **small))

    def vit():
        return tr.ViTModel(tr.ViTConfig(image_size=64, patch_size=16, num_hidden_layers=2,
                                        hidden_size=64, num_attention_heads=4,
                                        intermediate_size=128))

    def wav2vec2():
        return tr.Wav2Vec2Model(tr.Wav2Vec2Config(
            hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=128, conv_dim=(32,) * 7, num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=4, mask_time_prob=0.0))

    def whisper():
        from transformers.models.whisper.modeling_whisper import WhisperEncoder

        return WhisperEncoder(tr.WhisperConfig(
            d_model=64, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=128,
            num_mel_bins=16, max_source_positions=50, **small))

    def audio(model_fn):
        def make(torch):
            args = {"input_values": torch.randn(2, 4000)}
            return model_fn(), args, {"input_values": {0: "batch", 1: "samples"}}, AUDIO
        return make

    def mels(torch):
        args = {"input_features": torch.randn(2, 16, 100)}
        return whisper(), args, {"input_features": {0: "batch"}}, FIXED_IMAGE

    return {"gpt2": _text(gpt2), "bert": _text(bert), "t5_encoder": _text(t5),
            "llama": _text(llama), "vit": _image(vit, 64, fixed=True, keyword="pixel_values"),
            "wav2vec2": audio(wav2vec2), "whisper_encoder": mels}


def _torchvision_models() -> dict[str, Callable]:
    import torchvision.models as tv

    def mixer(torch):
        """A small MLP-Mixer (torchvision has none): patches by a strided conv, token
        and channel MLPs over a fixed number of patches."""
        nn = torch.nn

        class Block(nn.Module):
            def __init__(self, tokens, dim):
                super().__init__()
                self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
                self.tok = nn.Sequential(nn.Linear(tokens, 32), nn.GELU(), nn.Linear(32, tokens))
                self.ch = nn.Sequential(nn.Linear(dim, 64), nn.GELU(), nn.Linear(64, dim))

            def forward(self, x):
                x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
                return x + self.ch(self.n2(x))

        class Mixer(nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = nn.Conv2d(3, 32, 8, stride=8)
                self.blocks = nn.Sequential(Block(64, 32), Block(64, 32))
                self.head = nn.Linear(32, 10)

            def forward(self, x):
                x = self.stem(x).flatten(2).transpose(1, 2)
                return self.head(self.blocks(x).mean(dim=1))

        x = torch.randn(2, 3, 64, 64)
        return Mixer().eval(), {"x": x}, {"x": {0: "batch"}}, FIXED_IMAGE

    def ssdlite(torch):
        """SSDlite's detector on one image of any size (its transform resizes it to
        320x320; the boxes kept are as many as the scores pass: a size of the data)."""
        from torchvision.models.detection import ssdlite320_mobilenet_v3_large

        class Boxes(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = ssdlite320_mobilenet_v3_large(
                    weights=None, weights_backbone=None, num_classes=10)

            def forward(self, x):
                return self.inner([x[0]])[0]["boxes"]

        x = torch.rand(1, 3, 320, 320)
        return Boxes().eval(), {"x": x}, {"x": {2: "height", 3: "width"}}, DETECTION

    def classifier(fn, sizes=None):
        return _image(lambda: fn(num_classes=10).eval(), sizes=sizes)

    return {"resnet18": classifier(tv.resnet18), "mobilenet_v3": classifier(tv.mobilenet_v3_small),
            "efficientnet_b0": classifier(tv.efficientnet_b0),
            "convnext": classifier(tv.convnext_tiny), "squeezenet": classifier(tv.squeezenet1_0),
            "alexnet": classifier(tv.alexnet, ALEXNET), "mlp_mixer": mixer,
            "ssdlite": ssdlite}


def export(out: Path, only: list[str]) -> None:
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing exported (in a separate venv: pip install "
              "torch==2.14.1 torchvision==0.29.1 transformers onnxscript; see docs/onnx.rst)")
        return
    models: dict[str, Callable] = {}
    for name, source in (("transformers", _transformers_models),
                         ("torchvision", _torchvision_models)):
        try:
            models.update(source())
        except ImportError as exc:
            print(f"{name} is not installed ({exc}): its models are skipped")
    out.mkdir(parents=True, exist_ok=True)
    for name, make in models.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        try:
            with torch.no_grad():
                module, args, axes, sizes = make(torch)
        except Exception as exc:  # a model this transformers or torchvision cannot make
            print(f"{name}: not made: {type(exc).__name__}: {exc}")
            continue
        module = _wrapped(torch, module.eval(), tuple(args))
        (out / f"{name}.sizes.json").write_text(json.dumps(sizes))
        for exporter in ("torchscript", "dynamo"):
            path = out / f"{name}.{exporter}.onnx"
            start = time.perf_counter()
            try:
                _export_one(torch, module, args, axes, path, exporter)
                print(f"{name} {exporter}: {time.perf_counter() - start:.1f} s")
            except Exception as exc:  # an exporter that fails on a model is a result
                why = _failure(exc)
                print(f"{name} {exporter}: failed: {why}")
                path.unlink(missing_ok=True)
                path.with_suffix(".failed").write_text(why + "\n")


def _failure(exc: BaseException) -> str:
    """What an exporter's failure says: its type and first line, and those of the error
    that caused it (torch.onnx wraps torch.export's in a TorchExportError whose first
    line names only the step)."""
    parts, seen = [], set()
    while exc is not None and id(exc) not in seen and len(parts) < 3:
        seen.add(id(exc))
        first = next((line for line in str(exc).splitlines() if line.strip()), "")
        parts.append(f"{type(exc).__name__}: {first[:200]}")
        exc = exc.__cause__ or exc.__context__
    return " <- ".join(parts)


def _export_one(torch, module, args: dict, axes: dict, path: Path, exporter: str) -> None:
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        if exporter == "torchscript":
            torch.onnx.export(module, tuple(args.values()), str(path), dynamo=False,
                              input_names=list(args), output_names=["output"],
                              dynamic_axes=axes, opset_version=17)
        else:
            with _exportable_nms(torch):
                try:
                    _dynamo(torch, module, args, axes, path, named=True)
                except Exception:  # noqa: BLE001 torch.export's solver refuses some named sizes
                    _dynamo(torch, module, args, axes, path, named=False)


@contextlib.contextmanager
def _exportable_nms(torch):
    """torchvision's ``batched_nms`` as TorchScript's exporter takes it (the coordinate
    trick), without its branches on data-dependent sizes, which torch.export refuses
    ("Could not guard on data-dependent expression": the choice between the vectorized
    and the coordinate form by ``boxes.numel() > 4000``, then an early return where
    ``boxes.numel() == 0``): SSDlite's ``torch.export`` otherwise fails. The exported
    graph takes the general path for every count (an input of no boxes is not one the
    measure runs)."""
    try:
        import torchvision.ops.boxes as boxes
        from torch.fx.experimental.symbolic_shapes import guard_or_false
    except ImportError:
        yield
        return

    def batched_nms(b, scores, idxs, iou_threshold):
        if guard_or_false(b.numel() == 0):
            return torch.empty((0,), dtype=torch.int64, device=b.device)
        offsets = idxs.to(b) * (b.max() + torch.tensor(1).to(b))
        return boxes.nms(b + offsets[:, None], scores, iou_threshold)

    given = boxes.batched_nms
    boxes.batched_nms = batched_nms
    try:
        yield
    finally:
        boxes.batched_nms = given


def _dynamo(torch, module, args: dict, axes: dict, path: Path, named: bool) -> None:
    """``torch.onnx.export(dynamo=True)`` with a named Dim per size name, or with
    ``Dim.DYNAMIC`` hints (torch.export's solver cannot state SqueezeNet's ceil-mode
    pools' guards over named sizes) and then the inputs' sizes named in the file."""
    import onnx

    dims: dict = {}  # one Dim per name, shared by the inputs
    shapes = tuple({i: dims.setdefault(n, torch.export.Dim(n)) if named
                    else torch.export.Dim.DYNAMIC for i, n in v.items()}
                   for v in axes.values())
    program = torch.onnx.export(module, tuple(args.values()), dynamo=True,
                                input_names=list(args), output_names=["output"],
                                dynamic_shapes=shapes, opset_version=18)
    program.save(str(path), external_data=False)
    if not named:
        model = onnx.load(str(path))
        for given in model.graph.input:
            for i, name in axes.get(given.name, {}).items():
                dim = given.type.tensor_type.shape.dim[i]
                if dim.HasField("dim_param"):  # a size torch kept dynamic: its name
                    dim.dim_param = name
        onnx.save(model, str(path))


def patterns(out: Path) -> None:
    import onnx

    import exported_models as em

    out.mkdir(parents=True, exist_ok=True)
    builders = dict(em.PATTERNS) | {"pool_stack": lambda: em.pool_stack(pools=7)}
    for name, build in builders.items():
        model, sizes = build()
        onnx.save(model, str(out / f"{name}.pattern.onnx"))
        (out / f"{name}.sizes.json").write_text(json.dumps(sizes))
        print(f"{name}: {len(model.graph.node)} nodes")


# -- time (kantensor, onnx, onnxruntime) -----------------------------------------------
def timings(folder: Path, only: list[str], processes: int, repeat: int) -> None:
    """Each model's cold and best times per tool, in fresh processes (see the docstring);
    kantensor's package byte-compiled first, as pip does when it installs it."""
    from onnx_compare import byte_compile
    from onnx_time import TOOLS

    script = str(HERE / "onnx_time.py")
    names = [t for t in TOOLS if t != "onnxruntime" or importlib.util.find_spec("sympy")]
    byte_compile()
    print(f"load average {os.getloadavg()[0]:.1f} at the start; ms, protobuf reading "
          f"included; {processes} processes per tool, best of {repeat} after the first")
    print(f"{'model':30} " + " ".join(f"{t + ' cold/median/best':>28}" for t in names))
    for path in sorted(folder.glob("*.onnx")):
        name = path.name[:-5]
        if only and name.split(".")[0] not in only:
            continue
        times: dict[str, tuple[list, list]] = {t: ([], []) for t in names}
        for _ in range(processes):
            for tool in names:  # the tools take turns: they see the same load
                with tempfile.TemporaryDirectory() as tmp:  # onnxruntime's saved models
                    result = subprocess.run(
                        [sys.executable, script, tool, "--model", str(path), "--repeat",
                         str(repeat)], capture_output=True, text=True, cwd=tmp)
                if result.returncode:
                    times[tool][0].append(float("nan"))
                    times[tool][1].append(float("nan"))
                    continue
                cold, best = map(float, result.stdout.split()[-2:])
                times[tool][0].append(cold)
                times[tool][1].append(best)
        cells = []
        for cold, best in times.values():
            ok = not any(v != v for v in cold + best)  # a NaN: a process failed
            cells.append(f"{1000 * min(cold):.1f}/{1000 * median(cold):.1f}/"
                         f"{1000 * min(best):.1f}" if ok else "failed")
        print(f"{name:30} " + " ".join(f"{c:>28}" for c in cells), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["export", "patterns", "measure", "time"])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        if args.step == "export":
            export(args.folder, args.only)
        elif args.step == "patterns":
            patterns(args.folder)
        elif args.step == "time":
            timings(args.folder, args.only, args.processes, args.repeat)
        else:
            measure(args.folder, args.only, args.show, args.json)
    except KeyboardInterrupt:
        traceback.print_exc()


if __name__ == "__main__":
    main()
