"""``render_mode="rgb_array"``: the text board drawn as an image.

Stable-Baselines3's ``make_vec_env`` creates every environment with
``render_mode="rgb_array"`` and video recorders expect frames, so the environments
offer it: the same board ``render()`` prints, drawn in a monospace font with
matplotlib (already a dependency) on a white background.  Only drawn when asked
for, so training that never renders pays nothing.
"""
from __future__ import annotations

import numpy as np

DPI = 100
FONT_SIZE = 9


def board_image(text: str) -> np.ndarray:
    """``text`` as an ``(height, width, 3)`` uint8 RGB array."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    lines = text.splitlines() or [""]
    cols = max(len(line) for line in lines)
    width = max(2.0, cols * FONT_SIZE * 0.66 / 72 + 0.4)
    height = max(1.0, len(lines) * FONT_SIZE * 1.25 / 72 + 0.3)
    fig = Figure(figsize=(width, height), dpi=DPI, facecolor="white")
    FigureCanvasAgg(fig)
    with matplotlib.rc_context({"font.family": "monospace"}):
        fig.text(0.02, 0.98, "\n".join(lines), va="top", ha="left", fontsize=FONT_SIZE,
                 linespacing=1.15)
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
