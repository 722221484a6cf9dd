//! Tables: rows from one or two axes, one column per expression.

use serde::Serialize;

use super::RExpr;

/// A table: rows from one or two axes, one column per expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableSpec {
    /// Title.
    pub title: String,
    /// Headings of the label columns: one for all axes, or one per axis.
    pub labels: Vec<String>,
    /// Row axes; rows are their cross product, first axis outermost.
    pub rows: Vec<AxisSpec>,
    /// The node bare metric names refer to.
    pub at: Option<usize>,
    /// Columns in order.
    pub columns: Vec<ColumnSpec>,
}

/// An axis of rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum AxisSpec {
    /// Variants by index.
    Variants(Vec<usize>),
    /// Windows by index.
    Windows(Vec<usize>),
    /// The points of a sweep.
    Sweep(usize),
}

/// A column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnSpec {
    /// Heading.
    pub title: String,
    /// Value per row.
    pub expr: RExpr,
    /// Digits after the decimal point.
    pub digits: usize,
}
