//! [`BinnedSeries`]: what a line chart draws, as plain data.
//!
//! A binned series is a time axis cut into equal bins, and per variant one
//! value per bin. Today the report builds it from the engine's per-tick
//! counters (see [`crate::chart::from_study`]); a run that records its own
//! time bins plugs its bins in directly. The chart's size depends on the
//! number of bins, never on the number of ticks. A series may mark levels
//! across its time axis ([`Level`]: a provider's ceiling).

use serde::Serialize;

use crate::escape;

/// One variant's line: its label and one value per bin (`None`: no value,
/// e.g. a ratio over a bin with nothing in it; the line breaks there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesLine {
    /// The variant's label, as the legend prints it.
    pub label: String,
    /// One value per bin.
    pub values: Vec<Option<f64>>,
}

/// A shaded span of the time axis: a fault while it was active.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultWindow {
    /// Start, in the series' time unit (inclusive).
    pub start: f64,
    /// End, in the series' time unit (inclusive).
    pub end: f64,
    /// Its name, printed in the shaded band.
    pub label: String,
}

/// A level marked across the whole time axis: a dashed grey line, named
/// in the legend (a provider's ceiling under a send rate).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Level {
    /// Its value, in the series' value unit.
    pub value: f64,
    /// Its name in the legend.
    pub label: String,
}

/// Per-bin values of one metric at one node, one line per variant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BinnedSeries {
    /// The chart's title.
    pub title: String,
    /// What the values are, with their unit (`calls per round`).
    pub value_label: String,
    /// The time unit of `start`, `bin_width` and the fault windows (`round`, `ms`).
    pub time_unit: String,
    /// Where the first bin starts.
    pub start: f64,
    /// The width of every bin.
    pub bin_width: f64,
    /// One line per variant, each with the same number of bins.
    pub lines: Vec<SeriesLine>,
    /// Fault windows to shade.
    pub faults: Vec<FaultWindow>,
    /// Levels to mark (usually none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<Level>,
}

impl BinnedSeries {
    /// The number of bins (of the longest line).
    pub fn bins(&self) -> usize {
        self.lines.iter().map(|l| l.values.len()).max().unwrap_or(0)
    }

    /// The middle of bin `i` on the time axis.
    pub fn bin_middle(&self, i: usize) -> f64 {
        self.start + (i as f64 + 0.5) * self.bin_width
    }

    /// Where the last bin ends.
    pub fn end(&self) -> f64 {
        self.start + self.bins() as f64 * self.bin_width
    }

    /// The series with its time axis in seconds, `k` ticks a second (a
    /// clock finer than a second): bins, start and fault windows divided by
    /// `k`; with `rate`, the values are rates per tick and become rates per
    /// second (times `k`).
    pub fn in_seconds(mut self, k: f64, rate: bool) -> Self {
        self.time_unit = "s".to_string();
        self.start /= k;
        self.bin_width /= k;
        for f in &mut self.faults {
            f.start /= k;
            f.end /= k;
        }
        if rate {
            for l in &mut self.lines {
                for v in l.values.iter_mut().flatten() {
                    *v *= k;
                }
            }
            for l in &mut self.levels {
                l.value *= k;
            }
        }
        self
    }

    /// The series as CSV: one row per bin, its start, then each line's value
    /// in full precision (empty for none), then each level's. The first heading names the
    /// time unit and the bin width: `bin start (rounds; bin width 5)`.
    pub fn to_csv(&self) -> String {
        let mut w = crate::csv::writer();
        let mut header = vec![format!(
            "bin start ({}; bin width {})",
            self.time_unit, self.bin_width
        )];
        header.extend(self.lines.iter().map(|l| escape::csv_text(&l.label)));
        header.extend(self.levels.iter().map(|l| escape::csv_text(&l.label)));
        let _ = w.write_record(&header);
        for b in 0..self.bins() {
            let mut row = vec![format!("{}", self.start + b as f64 * self.bin_width)];
            row.extend(self.lines.iter().map(|l| {
                l.values
                    .get(b)
                    .copied()
                    .flatten()
                    .filter(|v| v.is_finite())
                    .map_or(String::new(), |v| format!("{v}"))
            }));
            row.extend(self.levels.iter().map(|l| format!("{}", l.value)));
            let _ = w.write_record(&row);
        }
        crate::csv::finish(w)
    }

    /// The largest value of any line or level (0 when there is none).
    pub fn max_value(&self) -> f64 {
        self.lines
            .iter()
            .flat_map(|l| l.values.iter().flatten())
            .chain(self.levels.iter().map(|l| &l.value))
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max)
    }
}
