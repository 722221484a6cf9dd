//! [`KeyAxis`]: a numeric axis with ticks exactly at given values (a
//! sweep's param values, or the positions of its words), where plotters'
//! own axes would pick round numbers between them.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;

/// A linear `f64` axis over a range, ticked at `keys`.
#[derive(Clone)]
pub struct KeyAxis {
    inner: RangedCoordf64,
    keys: Vec<f64>,
}

impl KeyAxis {
    /// The axis over `range`, ticked at the keys inside it.
    pub fn new(range: Range<f64>, keys: Vec<f64>) -> KeyAxis {
        let keys = keys
            .into_iter()
            .filter(|k| range.contains(k) || *k == range.end)
            .collect();
        KeyAxis {
            inner: range.into(),
            keys,
        }
    }
}

impl Ranged for KeyAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.keys.clone()
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }
}
