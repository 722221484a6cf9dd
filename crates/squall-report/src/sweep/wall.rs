//! A sweep's measure columns under a wall clock: durations and rates are
//! computed in ticks, and printed in seconds (or ms when every value of
//! the column is under a second) and per second, one unit per column,
//! named in its heading (`recovery [s]`, `peak [/s]`).
//!
//! The unit is chosen when the table is rendered, from every row it holds,
//! so that a merged sweep picks the same unit as a single run; shard files
//! keep the raw ticks and which columns to scale ([`WallColumn`]).

use super::{StoredCell, TableRows, WallColumn};

impl WallColumn {
    /// The unit's symbol and the factor from raw values for this column,
    /// given its raw values: `/s` for a rate; for a duration `ms` when every
    /// value is under a second and a tick is under a second, else `s`.
    fn scale(&self, values: &[f64]) -> (&'static str, f64) {
        let ms = self.tick_ms as f64;
        if self.per_tick {
            return ("/s", 1000.0 / ms);
        }
        let small = values.iter().all(|v| (v * ms).abs() < 1000.0);
        if self.tick_ms < 1000 && small {
            ("ms", ms)
        } else {
            ("s", ms / 1000.0)
        }
    }
}

/// The raw values of column `c` (means for intervals).
fn values(t: &TableRows, c: usize) -> Vec<f64> {
    t.rows
        .iter()
        .filter_map(|r| match r.cells.get(c) {
            Some(StoredCell::Number { value, .. }) => Some(*value),
            Some(StoredCell::Interval { mean, n, .. }) if *n > 0 => Some(*mean),
            _ => None,
        })
        .filter(|v| v.is_finite())
        .collect()
}

impl TableRows {
    /// The table as it is shown: each wall-clock column scaled to its unit,
    /// the unit in brackets after its heading. A table without such columns
    /// comes back as it is.
    pub fn on_wall_clock(&self) -> TableRows {
        let mut out = self.clone();
        out.wall = Vec::new();
        for w in &self.wall {
            let (symbol, factor) = w.scale(&values(self, w.column));
            if let Some(h) = out.columns.get_mut(w.column) {
                *h = format!("{h} [{symbol}]");
            }
            for r in &mut out.rows {
                match r.cells.get_mut(w.column) {
                    Some(StoredCell::Number { value, .. }) => *value *= factor,
                    Some(StoredCell::Interval {
                        mean, half_width, ..
                    }) => {
                        *mean *= factor;
                        if let Some(h) = half_width {
                            *h *= factor;
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `clock ms`: a rate per tick is 1000 times that per second (1000
    /// ticks a second); a column of 5001 and 300 ticks has a value of a
    /// second or more, so it reads in s (factor 1/1000); 300 and 999 ticks
    /// are all under a second, so the column stays in ms (factor 1);
    /// `clock s`: a tick is a second, so half a tick reads 0.5 s, never ms.
    /// Exact comparisons: the factors are the quotients of whole numbers
    /// the code divides, written the same way here.
    #[test]
    fn scale_per_column() {
        let rate = WallColumn {
            column: 1,
            per_tick: true,
            tick_ms: 1,
        };
        assert_eq!(rate.scale(&[0.23]), ("/s", 1000.0));
        let dur = WallColumn {
            per_tick: false,
            ..rate
        };
        assert_eq!(dur.scale(&[5001.0, 300.0]), ("s", 0.001));
        assert_eq!(dur.scale(&[300.0, 999.0]), ("ms", 1.0));
        let secs = WallColumn {
            tick_ms: 1000,
            ..dur
        };
        assert_eq!(secs.scale(&[0.5]), ("s", 1.0));
    }
}
