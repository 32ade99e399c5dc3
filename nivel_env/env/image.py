"""``render_mode="rgb_array"``: the text board drawn as an image of one fixed size.

Stable-Baselines3's ``make_vec_env`` creates every environment with
``render_mode="rgb_array"``, and video recorders (gymnasium's ``RecordVideo``, SB3's
``VecVideoRecorder``) need every frame of an episode to have the same size.  The board
``render()`` prints grows and shrinks with the hands and the units in play, so it is
laid out on a fixed character grid in a canvas of ``FRAME_SIZE`` (1280x720, a video
size every codec takes): lines longer than the grid wrap, indented; a board taller
than the grid (it never is: a board is at most about 20 rows of the 31) would end in a
line saying how many rows were left out.

Glyphs are drawn once each with matplotlib (already a dependency) in its monospace
font and then copied into place, which makes a frame a few milliseconds instead of
the ~150 ms matplotlib takes to lay out a whole board of text.  Only drawn when asked
for, so training that never renders pays nothing.
"""
from __future__ import annotations

import threading
import unicodedata

import numpy as np

DPI = 100
FRAME_SIZE = (720, 1280)         # (height, width) in pixels
CELL = (22, 11)                  # one character: (height, width) in pixels
MARGIN = 16                      # pixels of white around the text
BASELINE = 6                     # pixels from a cell's bottom to the text's baseline
#: the point size at which the monospace font's advance (0.602 em) is CELL's width
FONT_SIZE = CELL[1] / 0.60205 * 72 / DPI
ROWS = (FRAME_SIZE[0] - 2 * MARGIN) // CELL[0]
COLS = (FRAME_SIZE[1] - 2 * MARGIN) // CELL[1]

_glyphs: dict[str, np.ndarray] = {}
_lock = threading.Lock()


def _cells(ch: str) -> int:
    """How many cells a character takes: 2 for wide (East Asian) characters, else 1."""
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _glyph(ch: str) -> np.ndarray:
    """``ch`` drawn black on white in a ``CELL``-high tile one or two cells wide
    (uint8 grey levels), drawn the first time it is asked for."""
    tile = _glyphs.get(ch)
    if tile is not None:
        return tile
    with _lock:
        if ch not in _glyphs:
            _glyphs[ch] = _draw_glyph(ch)
        return _glyphs[ch]


_painters: dict = {}             # tile width -> (figure, its text), reused for each glyph


def _draw_glyph(ch: str) -> np.ndarray:
    import warnings
    h, w = CELL[0], CELL[1] * _cells(ch)
    if ch.isspace() or not ch.isprintable():
        return np.full((h, w), 255, np.uint8)
    if w not in _painters:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        fig = Figure(figsize=(w / DPI, h / DPI), dpi=DPI, facecolor="white")
        FigureCanvasAgg(fig)
        _painters[w] = fig, fig.text(0, BASELINE / h, "", va="baseline", ha="left",
                                     fontsize=FONT_SIZE, family="monospace", color="black")
    fig, text = _painters[w]
    text.set_text(ch)
    with warnings.catch_warnings():         # a glyph the font lacks is drawn as a box
        warnings.simplefilter("ignore")
        fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:h, :w, 0].copy()


def _wrap(text: str) -> list[str]:
    """The text's lines cut to the grid's width (continuations indented under the line's
    own indent, plus two); a wide character counts two columns."""
    rows = []
    for line in text.splitlines() or [""]:
        indent = len(line) - len(line.lstrip(" "))
        cont = " " * min(indent + 2, COLS // 2)
        while True:
            width, cut = 0, len(line)
            for i, ch in enumerate(line):
                width += _cells(ch)
                if width > COLS:
                    cut = i
                    break
            if cut == len(line):
                rows.append(line)
                break
            space = line.rfind(" ", len(cont) + 1, cut + 1)   # break at a space if one
            if space > len(cont) + COLS // 3:
                rows.append(line[:space])
                line = cont + line[space + 1:]
            else:
                rows.append(line[:cut])
                line = cont + line[cut:]
    if len(rows) > ROWS:
        rows = rows[:ROWS - 1] + [f"... ({len(rows) - ROWS + 1} more rows)"]
    return rows


def board_image(text: str) -> np.ndarray:
    """``text`` as a ``FRAME_SIZE + (3,)`` uint8 RGB array (always that shape)."""
    canvas = np.full(FRAME_SIZE, 255, np.uint8)
    y = MARGIN
    for row in _wrap(text):
        if row:
            strip = np.hstack([_glyph(ch) for ch in row])
            canvas[y:y + CELL[0], MARGIN:MARGIN + strip.shape[1]] = strip
        y += CELL[0]
    return np.repeat(canvas[:, :, None], 3, axis=2)
