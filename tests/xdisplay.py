"""A virtual X display for the tests of X clients (Debian's ``xmj``): start ``Xvfb``, find a client's windows, type
into one as a person would (the XTEST extension: the keys go through the X server, as a keyboard's), and save the
screen as a PNG.  Through ctypes on libX11 and libXtst, which come with Xvfb and GTK; no other tool is needed.

Where Xvfb is missing the test is skipped; under ``MJREF_REQUIRE_MAHJONG=1`` (CI) it fails instead, as the
mah-jong tests do (``tests/mjserver.py``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mjserver import REQUIRE_ENV

XVFB = "Xvfb"
START_TIMEOUT = 60.0  # seconds for Xvfb to take connections (it takes well under one on an idle machine)
ZPIXMAP = 2
ALL_PLANES = 0xFFFFFFFF
REVERT_TO_PARENT = 2
IS_VIEWABLE = 2


class XImage(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
                ("format", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_ubyte)), ("byte_order", ctypes.c_int),
                ("bitmap_unit", ctypes.c_int), ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
                ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int)]


class XWindowAttributes(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
                ("root", ctypes.c_ulong), ("c_class", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int), ("backing_planes", ctypes.c_ulong),
                ("backing_pixel", ctypes.c_ulong), ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong),
                ("map_installed", ctypes.c_int), ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
                ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
                ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]


def require_xvfb() -> None:
    if shutil.which(XVFB) is not None and ctypes.util.find_library("X11") and ctypes.util.find_library("Xtst"):
        return
    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"the xmj tests are required here ({REQUIRE_ENV}) but Xvfb, libX11 or libXtst is missing")
    pytest.skip("Xvfb (Debian's xvfb) is not installed")


class Display:
    """One connection to an X display."""

    def __init__(self, name: str) -> None:
        self.x = ctypes.CDLL(ctypes.util.find_library("X11"))
        self.xtst = ctypes.CDLL(ctypes.util.find_library("Xtst"))
        self.x.XOpenDisplay.restype = ctypes.c_void_p
        self.x.XDefaultRootWindow.restype = ctypes.c_ulong
        self.x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self.x.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                                      ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                                      ctypes.POINTER(ctypes.c_uint)]
        self.x.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(XWindowAttributes)]
        self.x.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_char_p)]
        self.x.XStringToKeysym.restype = ctypes.c_ulong
        self.x.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self.x.XKeysymToKeycode.restype = ctypes.c_ubyte
        self.x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self.x.XSetInputFocus.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]
        self.x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.x.XFree.argtypes = [ctypes.c_void_p]
        self.x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self.x.XGetImage.restype = ctypes.POINTER(XImage)
        self.x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                     ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        self.xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
        self.dpy = self.x.XOpenDisplay(name.encode())
        if not self.dpy:
            raise OSError(f"cannot open the X display {name}")
        self.root = self.x.XDefaultRootWindow(self.dpy)

    def close(self) -> None:
        self.x.XCloseDisplay(self.dpy)

    def windows(self) -> list[tuple[int, str, int, int, int, int]]:
        """The viewable top-level windows, topmost first: (id, name, x, y, width, height)."""
        root, parent = ctypes.c_ulong(), ctypes.c_ulong()
        children = ctypes.POINTER(ctypes.c_ulong)()
        count = ctypes.c_uint()
        self.x.XQueryTree(self.dpy, self.root, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(children),
                          ctypes.byref(count))
        ids = [children[i] for i in range(count.value)]
        if children:
            self.x.XFree(children)
        out = []
        for w in reversed(ids):  # XQueryTree lists them bottom first
            attrs = XWindowAttributes()
            if not self.x.XGetWindowAttributes(self.dpy, w, ctypes.byref(attrs)) or attrs.map_state != IS_VIEWABLE:
                continue
            name = ctypes.c_char_p()
            self.x.XFetchName(self.dpy, w, ctypes.byref(name))
            title = name.value.decode("latin-1") if name.value else ""
            out.append((w, title, attrs.x, attrs.y, attrs.width, attrs.height))
        return out

    def type_into(self, window: int, text: str, then: tuple[str, ...] = ()) -> None:
        """Focus ``window`` and type ``text``, then the keys ``then`` (keysym names: "Tab", "Return"), key by key:
        letters, digits, '-', '_', '.' (what a token is made of; Shift for capitals and '_', on Xvfb's US keyboard)."""
        self.x.XSetInputFocus(self.dpy, window, REVERT_TO_PARENT, 0)
        self.x.XSync(self.dpy, 0)
        names = {"-": "minus", ".": "period", "_": "minus"}
        shift = self._code("Shift_L")
        for c in [*text, *then]:
            code = self._code(c if len(c) > 1 else names.get(c, c.lower()))
            shifted = len(c) == 1 and (c.isupper() or c == "_")
            if shifted:
                self.xtst.XTestFakeKeyEvent(self.dpy, shift, 1, 0)
            self.xtst.XTestFakeKeyEvent(self.dpy, code, 1, 0)
            self.xtst.XTestFakeKeyEvent(self.dpy, code, 0, 0)
            if shifted:
                self.xtst.XTestFakeKeyEvent(self.dpy, shift, 0, 0)
            self.x.XSync(self.dpy, 0)

    def _code(self, key: str) -> int:
        code = int(self.x.XKeysymToKeycode(self.dpy, self.x.XStringToKeysym(key.encode())))
        if not code:
            raise ValueError(f"no key for {key!r} on this display")
        return code

    def screenshot(self, path: Path, box: tuple[int, int, int, int]) -> None:
        """Save the screen's ``box`` (x, y, width, height) as a PNG (24-bit true colour, as Xvfb's screen)."""
        x, y, w, h = box
        image = self.x.XGetImage(self.dpy, self.root, x, y, w, h, ALL_PLANES, ZPIXMAP)
        if not image:
            raise OSError("XGetImage failed")
        img = image.contents
        if img.bits_per_pixel != 32:
            raise OSError(f"a screen of {img.bits_per_pixel} bits per pixel (a 24-bit one is expected)")
        raw = ctypes.string_at(img.data, img.bytes_per_line * h)
        rows = []
        for r in range(h):
            line = raw[r * img.bytes_per_line:r * img.bytes_per_line + 4 * w]
            rgb = bytearray(3 * w)
            rgb[0::3], rgb[1::3], rgb[2::3] = line[2::4], line[1::4], line[0::4]  # BGRX in memory
            rows.append(b"\0" + bytes(rgb))
        self.x.XFree(img.data)
        self.x.XFree(image)
        path.write_bytes(_png(w, h, b"".join(rows)))


def _png(width: int, height: int, scanlines: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(scanlines, 9)) + \
        chunk(b"IEND", b"")


@contextmanager
def xvfb(size: str = "1280x1024x24") -> Iterator[str]:
    """A fresh Xvfb on a free display number; yields its name (``:N``)."""
    require_xvfb()
    read, write = os.pipe()
    proc = subprocess.Popen([XVFB, "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        number = b""
        deadline = time.monotonic() + START_TIMEOUT
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            data = os.read(read, 16)
            if not data:
                break
            number += data
        if not number.strip().isdigit():
            raise OSError(f"Xvfb did not start (it said {number!r})")
        yield f":{number.strip().decode()}"
    finally:
        os.close(read)
        proc.kill()
        proc.wait()
