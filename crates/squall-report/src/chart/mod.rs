//! Charts as SVG: line charts of binned series, and histograms.
//!
//! A chart is drawn from plain data — a [`BinnedSeries`] (a time axis in
//! equal bins, one line of values per variant, fault windows) or a
//! [`Histogram`] (counts in equal buckets) — so whatever produces the bins
//! (the per-tick counters today, a run's own time bins tomorrow) draws the
//! same chart. [`from_study`] builds them from a [`crate::Study`], and
//! [`chart_file`] lists the charts a report draws. A sweep's results are
//! drawn over its params: a [`SweepChart`] (lines, replication bands) and,
//! for two params, a [`HeatMap`], built by [`from_sweep`].
//!
//! Charts are drawn with plotters' SVG backend: text stays `<text>` in the
//! viewer's sans-serif (no font files), every name is escaped, and the
//! same data gives the same bytes. A chart's size grows with its bins,
//! never with the run's ticks.

pub mod binned_series;
pub mod breaker_state;
pub mod chart_file;
pub mod from_study;
pub mod from_sweep;
pub mod heat_map;
pub mod histogram;
pub mod key_axis;
pub mod line_chart;
pub mod markdown;
pub mod send_chart;
pub mod style;
pub mod sweep_chart;

pub use binned_series::{BinnedSeries, FaultWindow, Level, SeriesLine};
pub use chart_file::{default_node, ChartFile};
pub use from_study::{bin_width, MAX_BINS};
pub use heat_map::HeatMap;
pub use histogram::Histogram;
pub use sweep_chart::{SweepAxis, SweepChart, SweepLine, SweepValue};
