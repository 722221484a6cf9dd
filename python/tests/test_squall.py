"""The package against the issue's "done when" checks and the CLI's numbers.

Every expected number says where it comes from. Paths are from the clone's
root, found from this file, so pytest may run from anywhere.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import squall

ROOT = Path(__file__).resolve().parents[2]
STORM = ROOT / "scenarios" / "retry-storm.squall"
CHECKOUT = ROOT / "scenarios" / "checkout.squall"
NOISY = ROOT / "book" / "src" / "replications.squall"


def row(df: pd.DataFrame, column: str, label: str) -> pd.Series:
    """The one row of `df` whose `column` is `label`."""
    rows = df[df[column] == label]
    assert len(rows) == 1, f"{label!r} in {df[column].tolist()}"
    return rows.iloc[0]


def test_the_storm_table_holds_its_numbers_as_numbers():
    tables = squall.run(STORM).tables
    assert list(tables)[:2] == ["cases", "what cutting the allowance buys (same fault, rounds 101..400)"]
    cases = tables["cases"]
    assert cases["amplification"].dtype == "float64"
    assert cases["success"].dtype == "float64"
    storm = row(cases, "case: window", "storm: during")
    # Document 000 (PINNED): during the brownout the dependency sees 25
    # calls a round for 4 unique requests, 25 / 4 = 6.25, and serves 1 of
    # the 25, 1 / 25 = 0.04. Both are ratios of whole counts over the same
    # 60 rounds, each division rounded once, so they equal the literals to
    # within one rounding of a double.
    assert storm["amplification"] == pytest.approx(6.25, rel=1e-15)
    assert storm["success"] == pytest.approx(0.04, rel=1e-15)
    assert storm["calls/round"] == 25.0


def test_numbers_are_as_computed_and_the_text_is_the_cli_report():
    report = squall.run(STORM)
    allowance = report.tables["what cutting the allowance buys (same fault, rounds 101..400)"]
    two = row(allowance, "tries per layer", "2")
    # The README's table prints 22.33 calls a round with 2 tries a layer:
    # 1340 calls over the 60 rounds of the fault, 1340 / 60 = 22.333...
    # The frame keeps the number as computed (the text rounds it).
    assert two["calls/round"] == pytest.approx(1340 / 60, rel=1e-15)
    assert "2                      22.33" in report.text
    assert report.title == "retry storm"
    assert report.meta["seed"] == "1"
    assert report.markdown.startswith("# retry storm\n")
    assert report.html.lstrip().lower().startswith("<!doctype html>")


def test_a_sweep_has_a_column_per_param_and_a_row_per_point():
    df = squall.sweep(STORM, vary={"attempts": [1, 2, 3]})
    assert "attempts" in df.columns
    assert df["attempts"].tolist() == [1.0, 2.0, 3.0]
    assert len(df) == 3
    # The allowance table of the report runs the same points on the same
    # variant (the file's sweep `allowance`, on `storm`): same numbers.
    allowance = squall.run(STORM).tables["what cutting the allowance buys (same fault, rounds 101..400)"]
    for tries in (1, 2, 3):
        point = df[df["attempts"] == tries].iloc[0]
        table = row(allowance, "tries per layer", str(tries))
        assert point["calls/round"] == table["calls/round"]
        assert point["dropped"] == table["dropped"]


def test_a_sweep_is_the_same_for_any_jobs():
    one = squall.sweep(STORM, vary={"attempts": [1, 2, 3], "spacing": ["2 rounds", "4 rounds"]}, jobs=1)
    two = squall.sweep(STORM, vary={"attempts": [1, 2, 3], "spacing": ["2 rounds", "4 rounds"]}, jobs=2)
    pd.testing.assert_frame_equal(one, two)
    # First axis outermost: 3 x 2 points; a duration in the clock's ticks.
    assert len(one) == 6
    assert one["spacing"].tolist() == [2.0, 4.0] * 3


def test_checkout_series_is_tidy_and_timed_in_seconds():
    series = squall.run(CHECKOUT).series
    assert not series.empty
    assert list(series.columns[:3]) == ["run", "start_s", "end_s"]
    # `run 3min` with `series every 1s`: 180 bins of one second, for each
    # of the 3 variants.
    assert len(series) == 3 * 180
    first = series.iloc[0]
    assert (first["start_s"], first["end_s"]) == (0.0, 1.0)
    assert series["end_s"].max() == 180.0
    assert series["run"].unique().tolist() == [
        "3 tries in both layers",
        "2 tries in both layers",
        "retry at checkout only",
    ]
    assert series["db.calls"].dtype.kind in "if"


def test_round_series_counts_rounds():
    series = squall.run(STORM).series
    # 400 rounds for each of the 3 variants, one row per round.
    assert len(series) == 3 * 400
    assert list(series.columns[:3]) == ["run", "start_round", "end_round"]
    assert series.iloc[0][["start_round", "end_round"]].tolist() == [0, 1]


def test_replicated_cells_are_mean_half_width_and_n():
    table = squall.run(NOISY).tables["the storm"]
    for column in ["amplification", "amplification half_width", "amplification n"]:
        assert column in table.columns
        assert table[column].dtype == "float64"
    # `replications 20` in the file: every replication has a value.
    assert table["amplification n"].tolist() == [20.0, 20.0]
    assert (table["amplification half_width"] > 0).all()


def test_replications_and_seed_and_set_and_variants():
    base = squall.run(STORM, variants="storm")
    assert list(base.tables["cases"]["case: window"]) == [
        "storm: before",
        "storm: during",
        "storm: after",
    ]
    # `--set attempts=1` turns the storm into the no-retries case: the
    # dependency sees the 4 unique calls a round (document 000).
    one = squall.run(STORM, set={"attempts": 1}, variants=["storm"])
    assert row(one.tables["cases"], "case: window", "storm: during")["calls/round"] == 4.0
    assert squall.run(STORM, seed=9).meta["seed"] == "9"
    noisy = squall.run(NOISY, replications=3)
    assert noisy.tables["the storm"]["amplification n"].tolist() == [3.0, 3.0]


def test_expectations():
    report = squall.run(CHECKOUT)
    assert len(report.expectations) == 3
    assert all(e["passed"] for e in report.expectations)
    assert report.expectations[0]["text"] == "expect storm.before.completion_rate > 0.99"


def test_a_bad_scenario_raises_a_located_error():
    text = 'scenario "x" {\n  run 10 rounds\n  servce db { }\n}\n'
    with pytest.raises(squall.ScenarioError) as caught:
        squall.run_text(text, name="bad.squall")
    e = caught.value
    # `servce` starts at line 3, column 3 (two spaces in).
    assert (e.file, e.line, e.column) == ("bad.squall", 3, 3)
    assert e.message
    assert str(e).startswith("bad.squall:3:3: error: ")


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="unknown param `atempts`"):
        squall.run(STORM, set={"atempts": 2})
    with pytest.raises(ValueError, match="unknown variant `strom`"):
        squall.run(STORM, variants="strom")
    with pytest.raises(ValueError, match="unknown param `nope` to vary"):
        squall.sweep(STORM, vary={"nope": [1]})


def test_the_simulation_releases_the_gil():
    # While one thread simulates, another keeps running Python. With the
    # GIL held through the run, the main loop would stall for the whole
    # simulation; released, its longest pause is a scheduling slice.
    done = threading.Event()
    span = {}

    def work():
        span["start"] = time.perf_counter()
        squall.run(CHECKOUT)
        span["end"] = time.perf_counter()
        done.set()

    worker = threading.Thread(target=work)
    beats = []
    worker.start()
    while not done.is_set():
        beats.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    inside = [b for b in beats if span["start"] <= b <= span["end"]]
    duration = span["end"] - span["start"]
    gaps = [b - a for a, b in zip(inside, inside[1:])]
    assert len(inside) > 10, (len(inside), duration)
    assert max(gaps) < duration / 2, (max(gaps), duration)


UNITS = """scenario "units" {
  clock ms
  run 1s
  param r = 100/s
  source users { rate $r  enters db }
  chain db
  service db { latency 1ms }
  window all 1..end
  report {
    measure per_s = per_second(all.db.call_rate)
    measure db_calls = all.db.calls
    measure rate = all.db.call_rate
  }
}
"""


def test_a_sweeps_measure_columns_are_bare_names_with_units_beside(tmp_path):
    path = tmp_path / "units.squall"
    path.write_text(UNITS)
    df = squall.sweep(path, vary={"r": ["100/s", "200/s"]})
    # The sweep table heads them `per_s [/s]` and `rate [/s]` (a rate per
    # tick of a wall clock is shown per second); the frame names them as
    # the measures are named, and keeps the units beside.
    assert list(df.columns) == ["r", "per_s", "db_calls", "rate"]
    assert df.attrs["units"] == {"per_s": "/s", "rate": "/s"}
    # A uniform source sends rate x run: 100 and 200 calls in the 1 000 ticks
    # of the window, 0.1 and 0.2 per ms, so 100 and 200 per s for both
    # (1e-12: the quotient and product of exact integers, off by at most an
    # ulp or two).
    assert df["db_calls"].tolist() == [100.0, 200.0]
    assert df["per_s"].tolist() == pytest.approx([100.0, 200.0], rel=1e-12)
    assert df["rate"].tolist() == pytest.approx([100.0, 200.0], rel=1e-12)
    # With replications a mean is three columns, each by the bare name.
    reps = squall.sweep(path, vary={"r": ["100/s"]}, replications=2)
    assert {"per_s", "per_s half_width", "per_s n"} <= set(reps.columns), list(reps.columns)
