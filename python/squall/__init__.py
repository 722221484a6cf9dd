"""squall in notebooks: run scenario files and read their reports as pandas frames.

The simulation is squall's own engine (the Rust crates the ``squall`` command
is built from), called in-process: the same file gives the same numbers as
``squall run``, byte for byte in ``Report.text``.

>>> import squall
>>> report = squall.run("scenarios/retry-storm.squall")       # doctest: +SKIP
>>> cases = report.tables["cases"]                              # doctest: +SKIP
>>> cases.loc[cases["case: window"] == "storm: during", "amplification"]  # doctest: +SKIP
4    6.25
Name: amplification, dtype: float64

Numbers in frames are the numbers as computed (full precision); the text,
markdown and HTML renderings round them as the scenario's columns ask.
"""

from __future__ import annotations

import io
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _squall

__all__ = ["run", "run_text", "sweep", "Report", "ScenarioError", "__version__"]

__version__: str = _squall.__version__

PathLike = Union[str, "os.PathLike[str]"]
Value = Union[int, float, str]


class ScenarioError(Exception):
    """A scenario that squall refuses, located as the command line locates it.

    ``file``, ``line`` and ``column`` (1-based) point at the first problem;
    ``message`` is that problem's message; ``str(err)`` is every problem, one
    per line, as ``file:line:column: error: message`` (with ``help:`` lines).

    >>> try:
    ...     squall.run_text('scenario "x" {\n  run 10 rounds\n  servce db { }\n}\n', name="bad.squall")
    ... except squall.ScenarioError as e:
    ...     print(e.file, e.line, e.column)
    bad.squall 3 3
    """

    def __init__(self, file: str, line: int, column: int, message: str, text: str = "") -> None:
        super().__init__(text.rstrip("\n") or f"{file}:{line}:{column}: error: {message}")
        self.file = file
        self.line = line
        self.column = column
        self.message = message


def _frame(table: Mapping[str, Any]) -> pd.DataFrame:
    """A table dict from the extension as a DataFrame: a column whose values
    are all numbers (or missing) is float64, any other is text."""
    columns = list(table["columns"])
    rows = table["rows"]
    data = {}
    for i in range(len(columns)):
        values = [r[i] for r in rows]
        numeric = all(v is None or isinstance(v, float) for v in values)
        data[i] = pd.Series(values, dtype="float64" if numeric and values else "object")
    frame = pd.DataFrame(data)
    frame.columns = columns
    frame.attrs["units"] = dict(table.get("units", {}))
    return frame


class Report:
    """The report of one run of a scenario (``squall.run``).

    Attributes:
        title: the scenario's name.
        meta: facts about the run (file, clock, length, seed, settings).
        tables: table title -> DataFrame, in the report's order. Numeric
            columns are float64; a mean over replications is three columns,
            ``X`` (the mean), ``X half_width`` (its 95 % interval) and
            ``X n`` (replications with a value).
        expectations: one dict per ``expect`` line (``line``, ``text``,
            ``actual``, ``expected``, ``wanted``, ``passed``, ``not_run``).
        text, markdown, html: the report as ``squall run`` renders it.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data
        self.title: str = data["title"]
        self.meta: Dict[str, str] = dict(data["meta"])
        self.text: str = data["text"]
        self.markdown: str = data["markdown"]
        self.html: str = data["html"]
        self.expectations: List[Dict[str, Any]] = list(data["expectations"])
        self._tables: Optional[Dict[str, pd.DataFrame]] = None
        self._series: Optional[pd.DataFrame] = None

    @property
    def tables(self) -> Dict[str, pd.DataFrame]:
        """Table title -> DataFrame (a title used twice gets `` (2)``)."""
        if self._tables is None:
            out: Dict[str, pd.DataFrame] = {}
            for t in self._data["tables"]:
                title = t["title"]
                k = 2
                while title in out:
                    title = f"{t['title']} ({k})"
                    k += 1
                out[title] = _frame(t)
            self._tables = out
        return self._tables

    @property
    def series(self) -> pd.DataFrame:
        """Every variant's counters per tick (or per bin, for a run that
        takes time), tidy: ``run``, the bin's start and end, then one column
        per metric (``arrivals``, ``completed``, ``dropped``,
        ``first_try_ok``, ``NODE.calls``/``served``/``failed``/``refused``/
        ``blocked``, and for timed runs latency quantiles ``NODE.p99_ms``
        and the like, named with the clock's unit).

        Under a clock of time the bin's bounds are ``start_s`` and ``end_s``
        in seconds since the run's start; under ``clock round`` they are
        ``start_round`` and ``end_round`` in rounds (a round has no length
        in seconds). A bin covers ``(start, end]``. Empty for a scenario
        with no call chain.
        """
        if self._series is None:
            text = self._data["series_csv"]
            if not text:
                self._series = pd.DataFrame()
                return self._series
            raw = pd.read_csv(io.StringIO(text))
            if "tick" in raw.columns:
                first, last = raw.pop("tick"), None
                last = first
            else:
                first, last = raw.pop("first_tick"), raw.pop("last_tick")
            scale = self._data["tick_seconds"]
            if scale is None:
                names, factor = ("start_round", "end_round"), 1.0
            else:
                names, factor = ("start_s", "end_s"), float(scale)
            raw.insert(1, names[0], (first - 1) * factor)
            raw.insert(2, names[1], last * factor)
            self._series = raw
        return self._series

    def __repr__(self) -> str:
        return f"<squall.Report {self.title!r}: {len(self._data['tables'])} tables>"

    def _repr_markdown_(self) -> str:
        return self.markdown


def _value_text(v: Value) -> str:
    if isinstance(v, bool):
        raise TypeError("a param value is a number or a string such as '8 rounds', not a bool")
    return v if isinstance(v, str) else repr(v)


def _sets(set: Optional[Mapping[str, Value]]) -> List[str]:
    return [f"{k}={_value_text(v)}" for k, v in (set or {}).items()]


def _variants(variants: Union[None, str, Iterable[str]]) -> List[str]:
    if variants is None:
        return []
    if isinstance(variants, str):
        return [variants]
    return list(variants)


def run_text(
    text: str,
    *,
    set: Optional[Mapping[str, Value]] = None,
    variants: Union[None, str, Iterable[str]] = None,
    seed: Optional[int] = None,
    replications: Optional[int] = None,
    name: str = "<text>",
) -> Report:
    """Runs a scenario given as text; otherwise as :func:`run`.

    ``name`` is how diagnostics and the report's header name the text.

    >>> r = squall.run_text('''scenario "tiny" {
    ...   run 10 rounds
    ...   source users { rate 2/round enters api }
    ...   chain api -> db
    ...   service db { capacity 5/round }
    ...   window all 1..10
    ...   report { table "load" { rows windows  at db  column "calls/round" = call_rate } }
    ... }''')                                                   # doctest: +SKIP
    >>> r.tables["load"]["calls/round"].tolist()                # doctest: +SKIP
    [2.0]
    """
    return Report(
        _squall.run(name, text, _sets(set), _variants(variants), seed, replications, None)
    )


def _read(path: PathLike) -> str:
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"cannot read `{os.fspath(path)}`: it is not UTF-8 text ({e})") from None
    return text[1:] if text.startswith("\ufeff") else text


def run(
    path: PathLike,
    *,
    set: Optional[Mapping[str, Value]] = None,
    variants: Union[None, str, Iterable[str]] = None,
    seed: Optional[int] = None,
    replications: Optional[int] = None,
) -> Report:
    """Runs the scenario file at ``path`` and returns its :class:`Report`.

    Args:
        set: params to override, as ``squall run --set``: ``{"attempts": 2,
            "spacing": "8 rounds"}`` (a string is read as the language reads
            a value).
        variants: only these variants (names or labels); default all.
        seed: the root seed instead of the file's ``seed``.
        replications: run every run this many times (at least 2), each with
            its own seed, and report means with 95 % intervals.

    Raises:
        ScenarioError: the file is invalid (located like ``squall check``).
        ValueError: an unknown param or variant, a value that does not parse.

    >>> report = squall.run("scenarios/retry-storm.squall", set={"attempts": 2})  # doctest: +SKIP
    >>> report.tables["cases"].head()                           # doctest: +SKIP
    """
    return Report(
        _squall.run(
            os.fspath(path),
            _read(path),
            _sets(set),
            _variants(variants),
            seed,
            replications,
            None,
        )
    )


def sweep(
    path: PathLike,
    vary: Mapping[str, Sequence[Value]],
    *,
    set: Optional[Mapping[str, Value]] = None,
    seed: Optional[int] = None,
    replications: Optional[int] = None,
    jobs: Optional[int] = None,
) -> pd.DataFrame:
    """Runs a what-if sweep, as ``squall sweep --vary``, and returns its table.

    ``vary`` maps each param to its values; points are the cross product,
    first param outermost. The frame has one column per varied param (a
    number, a duration in the clock's ticks, a rate per tick, or text) and
    the report's sweep columns (or one per ``measure``, by the measure's name:
    ``df["db_rate"]``; a measure with a unit, which the sweep table heads
    ``db_rate [/s]``, has it in ``df.attrs["units"]``, ``{"db_rate": "/s"}``);
    with several sweep tables, one long frame with a ``table`` column. Each point has its own
    random stream (derived from the seed and the point's values), so the
    frame is the same for any ``jobs``.

    >>> df = squall.sweep("scenarios/retry-storm.squall", vary={"attempts": [1, 2, 3]})  # doctest: +SKIP
    >>> df[["attempts", "calls/round"]]                         # doctest: +SKIP
       attempts  calls/round
    0       1.0     4.000000
    1       2.0    22.333333
    2       3.0    25.000000
    """
    axes = [(name, [_value_text(v) for v in values]) for name, values in vary.items()]
    table = _squall.sweep(
        os.fspath(path), _read(path), axes, _sets(set), seed, replications, jobs
    )
    return _frame(table)
