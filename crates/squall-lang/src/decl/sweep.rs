//! A sweep as declared: axes of param values whose cross product is the
//! sweep's points, each point one run.

use crate::ast::Value;

/// Most points one sweep may have (each point is a whole run).
pub const MAX_SWEEP_POINTS: usize = 10_000;

/// The axis name that sweeps the scenario's root seed instead of a param
/// (`seed in [1, 2, 3]`, `--vary seed=1,2,3`): each point runs as the file
/// would with that `seed`.
pub const SEED_AXIS: &str = "seed";

/// A sweep: the cross product of param values, each point a run.
#[derive(Debug, Clone)]
pub struct SweepDecl {
    /// Name.
    pub name: String,
    /// Label.
    pub label: String,
    /// The variant every point starts from.
    pub base: usize,
    /// Params and their values; first axis outermost.
    pub axes: Vec<(String, Vec<Value>)>,
    /// True for a sweep given on the command line (`squall sweep --vary`):
    /// its values come from outside the file, and its points are labelled
    /// `name=value` even with one axis.
    pub from_cli: bool,
    /// For a sweep from the command line, the flag its values came through
    /// (the CLI's `--vary`): a value that does not fit is said to come from
    /// `FLAG name=value`. The language names no flag itself.
    pub flag: Option<String>,
}

impl SweepDecl {
    /// How many points the sweep has (the product of its axis lengths).
    pub fn len(&self) -> usize {
        self.axes
            .iter()
            .fold(1usize, |n, (_, values)| n.saturating_mul(values.len()))
    }

    /// True when an axis has no values, so the sweep has no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `i` of [`SweepDecl::points`], computed alone (the last axis
    /// varies fastest); `None` past the end.
    pub fn point(&self, i: usize) -> Option<Vec<(String, Value)>> {
        if i >= self.len() {
            return None;
        }
        let mut rest = i;
        let mut point = Vec::with_capacity(self.axes.len());
        for (name, values) in self.axes.iter().rev() {
            let n = values.len();
            point.push((name.clone(), values.get(rest % n)?.clone()));
            rest /= n;
        }
        point.reverse();
        Some(point)
    }

    /// The root seed point `i` runs with, when the sweep has a
    /// [`SEED_AXIS`]; `None` otherwise (or past the end).
    pub fn point_seed(&self, i: usize) -> Option<u64> {
        self.point(i)?
            .iter()
            .find(|(name, _)| name == SEED_AXIS)
            .and_then(|(_, v)| seed_value(v))
    }

    /// The number of points (the same as [`SweepDecl::len`]).
    pub fn point_count(&self) -> usize {
        self.len()
    }

    /// The points in order, each a list of (param, value).
    pub fn points(&self) -> Vec<Vec<(String, Value)>> {
        let mut points: Vec<Vec<(String, Value)>> = vec![Vec::new()];
        for (name, values) in &self.axes {
            let mut next = Vec::with_capacity(points.len() * values.len());
            for p in &points {
                for v in values {
                    let mut q = p.clone();
                    q.push((name.clone(), v.clone()));
                    next.push(q);
                }
            }
            points = next;
        }
        points
    }
}

/// A seed axis value as a seed: a whole number from 0 to 10^15 (so it is
/// exact as written); `None` for anything else.
pub fn seed_value(v: &Value) -> Option<u64> {
    crate::units::count(v, "a seed").ok()
}
