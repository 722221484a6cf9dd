//! `expect` lines: the check a value must pass, and its tolerance.

use serde::Serialize;

use super::RExpr;

/// An `expect` line, with the text for messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectSpec {
    /// The value checked.
    pub lhs: RExpr,
    /// What it must satisfy; bounds with units are already in ticks.
    pub check: CheckSpec,
    /// The line as written.
    pub text: String,
    /// 1-based line in the file.
    pub line: usize,
}

/// What an `expect` line asks of its value, resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum CheckSpec {
    /// `op bound`
    Compare(crate::ast::CmpOp, RExpr),
    /// `in lo..hi`, both inclusive
    Range(RExpr, RExpr),
    /// `== expected within tolerance`
    Near(RExpr, ToleranceSpec),
}

/// A resolved tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ToleranceSpec {
    /// A share of the expected value's magnitude, in percent.
    Percent(f64),
    /// An absolute distance.
    Absolute(RExpr),
}
