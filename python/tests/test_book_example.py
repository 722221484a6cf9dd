"""The book's worked example (book/src/notebooks/checkout_sweep.py) runs and
prints what the chapter quotes; its chart is a PNG of the expected size."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "book" / "src" / "notebooks" / "checkout_sweep.py"
CHAPTER = ROOT / "book" / "src" / "notebooks.md"


def quoted_pivot() -> str:
    """The pivot table the chapter quotes, from its heading line on."""
    text = CHAPTER.read_text()
    block = text.split("<!-- the printed output is checked by python/tests/test_book_example.py -->")[1]
    body = block.split("```text\n", 1)[1].split("```", 1)[0]
    return body


def test_the_worked_example_prints_what_the_book_quotes(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "sweep.png"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(png)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # The chapter's quote is the script's pivot, digit for digit.
    assert quoted_pivot() in out, out
    # One row per point: 3 tries x 3 budgets.
    points = out.split("one row per point (attempts x budget):\n")[1].split("\n\n")[0]
    rows = points.strip().splitlines()[1:]
    assert len(rows) == 9, points
    # With one try per layer nothing is retried, whatever the budget: one
    # call at the database per request (closed form).
    for line in rows[:3]:
        attempts, budget, tries = line.split()[:3]
        assert (attempts, tries) == ("1", "1.000"), line
    # The 3 x 100 % cell is the storm; the same sweep run by `squall sweep`
    # on the same text printed 5.60 (and 1.25 at 3 x 10 %): the two front
    # ends drive one engine.
    pivot = quoted_pivot()
    assert re.search(r"^\s+3\s+1\.25\s+1\.37\s+5\.60$", pivot, re.M), pivot
    assert out.rstrip().endswith(f"wrote {png}")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    # 6 x 4 inches at 100 dpi.
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (600, 400)
