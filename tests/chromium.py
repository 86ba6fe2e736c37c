"""Pages looked at in headless Chromium (Debian's ``chromium``), as a user sees them.

:func:`look` writes a page, has Chromium load it once and returns what it showed: the
DOM after Chromium's own parse (``--dump-dom``) and the screenshot (``--screenshot``),
decoded here with the standard library's zlib into a NumPy array. Each run has its own
profile directory and a timeout. The tests need ``chromium`` on the PATH: ``make test``
installs it with apt-get, as it installs Graphviz's ``dot``.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Seconds one Chromium run may take (it takes about 2 s on an idle core).
TIMEOUT = 90

NO_CHROMIUM = ("these tests look at pages in headless Chromium, and `chromium` is not on "
               "the PATH: `make test` installs it with apt-get (Debian/Ubuntu: apt-get "
               "install chromium)")

#: Flags of a quiet, reproducible run: no sandbox (the tests may run as root), no GPU,
#: no network chatter, one CSS pixel per screenshot pixel, no scrollbars in the picture.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--mute-audio", "--hide-scrollbars",
         "--force-device-scale-factor=1")


@dataclass(frozen=True)
class Look:
    """What Chromium showed of a page: its DOM, serialized, and its screenshot."""

    dom: str
    png: bytes

    @property
    def size(self) -> tuple[int, int]:
        """The screenshot's (width, height) in pixels, from its IHDR chunk."""
        return png_size(self.png)

    def pixels(self) -> np.ndarray:
        """The screenshot as a (height, width, 3) array of uint8 RGB."""
        return png_pixels(self.png)


def look(html: str, directory: Path, name: str, window: tuple[int, int]) -> Look:
    """Load ``html`` (written to ``directory/name.html``) in headless Chromium with a
    ``window`` of (width, height) CSS pixels; its DOM and screenshot (kept beside the
    page, ``name.png``). The run's profile directory is removed after it."""
    chromium = shutil.which("chromium")
    assert chromium is not None, NO_CHROMIUM
    page = directory / f"{name}.html"
    shot = directory / f"{name}.png"
    profile = directory / f"{name}.profile"
    page.write_text(html, encoding="utf-8")
    try:
        done = subprocess.run(
            [chromium, *FLAGS, f"--user-data-dir={profile}",
             f"--window-size={window[0]},{window[1]}", f"--screenshot={shot}", "--dump-dom",
             page.resolve().as_uri()],
            capture_output=True, text=True, timeout=TIMEOUT, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)  # a few MB each
    assert done.returncode == 0 and shot.exists(), \
        f"chromium failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return Look(done.stdout, shot.read_bytes())


def page(body: str, title: str = "kantensor") -> str:
    """A complete HTML5 page around ``body``, as a notebook's output area holds it."""
    return ('<!DOCTYPE html><html><head><meta charset="utf-8">'
            f"<title>{title}</title></head>"
            f'<body style="margin:8px;background:white;font-family:sans-serif">{body}'
            "</body></html>")


# -- PNG --------------------------------------------------------------------------------
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunks(data: bytes):
    assert data.startswith(_SIGNATURE), "not a PNG"
    at = len(_SIGNATURE)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        yield kind, data[at + 8:at + 8 + length]
        at += 12 + length


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG."""
    kind, header = next(_chunks(data))
    assert kind == b"IHDR"
    return struct.unpack(">II", header[:8])


def png_pixels(data: bytes) -> np.ndarray:
    """The RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes),
    each row unfiltered as the PNG specification says (filters 0-4)."""
    chunks = list(_chunks(data))
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(d for k, d in chunks if k == b"IDAT")),
                        np.uint8).reshape(height, 1 + width * channels)
    stride = width * channels
    out = np.zeros((height, stride), np.uint8)
    prior = np.zeros(stride, np.int32)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if kind == 0:
            row = line
        elif kind == 1:  # Sub: add the byte one pixel to the left (a running sum)
            row = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) & 0xFF
        elif kind == 2:  # Up
            row = (line + prior) & 0xFF
        else:  # Average (3) and Paeth (4) depend on the byte to the left: one at a time
            up, got, done = prior.tolist(), line.tolist(), [0] * stride
            for i in range(stride):
                left = done[i - channels] if i >= channels else 0
                if kind == 3:
                    done[i] = (got[i] + (left + up[i]) // 2) & 0xFF
                    continue
                upleft = up[i - channels] if i >= channels else 0
                p = left + up[i] - upleft
                pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - upleft)
                pred = left if pa <= pb and pa <= pc else up[i] if pb <= pc else upleft
                done[i] = (got[i] + pred) & 0xFF
            row = np.array(done, np.int32)
        out[y] = row
        prior = row.astype(np.int32)
    return out.reshape(height, width, channels)[:, :, :3]
