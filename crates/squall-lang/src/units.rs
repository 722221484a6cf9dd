//! Converting written quantities into ticks of the file's clock.
//!
//! | written        | `clock round`        | `clock ms` / `clock s`          |
//! |----------------|----------------------|---------------------------------|
//! | `4 rounds`     | 4 ticks              | error: rounds have no length    |
//! | `200ms`, `2s`  | error                | whole ticks, or an error        |
//! | `4/round`      | 4 per tick           | error                           |
//! | `12/s`         | error                | per tick (may be fractional)    |
//! | `4` (plain)    | 4 ticks or a count   | 4 ticks or a count              |

use crate::ast::{TimeUnit, Value, ValueKind};
use crate::diagnostic::{did_you_mean, Diagnostic, Result};
use crate::model::Clock;

const RATE_UNITS: [&str; 6] = ["round", "rounds", "ms", "s", "min", "h"];

fn describe(v: &Value) -> &'static str {
    match v.kind {
        ValueKind::Number(_) => "a plain number",
        ValueKind::Rate { .. } => "a rate",
        ValueKind::Duration { .. } => "a duration",
        ValueKind::Param(_) => "a param",
    }
}

/// Ticks in one `unit` under `clock`, as a fraction; an error when the unit
/// does not fit the clock.
fn ticks_per_unit(unit: TimeUnit, clock: Clock, v: &Value) -> Result<f64> {
    match (clock.tick_millis(), unit.millis()) {
        (None, None) => Ok(1.0),
        (Some(tick), Some(u)) => Ok(u as f64 / tick as f64),
        (None, Some(_)) => Err(Diagnostic::new(
            format!(
                "`{}` does not fit `clock round`: a round has no length in {}",
                unit.as_str(),
                unit.as_str()
            ),
            v.span,
        )
        .label("a wall-clock unit")
        .help("write the value in rounds, or change the file to `clock ms` or `clock s`")),
        (Some(_), None) => Err(Diagnostic::new(
            format!("`round` does not fit `clock {}`", clock.unit_name()),
            v.span,
        )
        .label("rounds belong to `clock round`")
        .help(format!("write the value in {}", clock.unit_name()))),
    }
}

/// A whole number of ticks from a duration or a plain number.
pub fn ticks(v: &Value, clock: Clock, what: &str) -> Result<u64> {
    let t = match &v.kind {
        ValueKind::Number(n) => *n,
        ValueKind::Duration { n, unit } => n * ticks_per_unit(*unit, clock, v)?,
        _ => {
            return Err(Diagnostic::new(
                format!(
                    "{what} takes a duration such as `4 rounds` or `200ms`, found {}",
                    describe(v)
                ),
                v.span,
            )
            .label("expected a duration"))
        }
    };
    whole(t, v, what, clock)
}

fn whole(t: f64, v: &Value, what: &str, clock: Clock) -> Result<u64> {
    if !t.is_finite() || t < 0.0 {
        return Err(
            Diagnostic::new(format!("{what} cannot be negative"), v.span).label("negative"),
        );
    }
    if t.fract() != 0.0 {
        return Err(Diagnostic::new(
            format!(
                "{what} is {t} {}s, not a whole number of ticks",
                clock.unit_name()
            ),
            v.span,
        )
        .label("not a whole tick")
        .help(format!(
            "time in this file is counted in whole {}s",
            clock.unit_name()
        )));
    }
    if t > 1e15 {
        return Err(Diagnostic::new(format!("{what} is too large"), v.span).label("too large"));
    }
    Ok(t as u64)
}

/// A rate in units per tick.
pub fn per_tick(v: &Value, clock: Clock, what: &str) -> Result<f64> {
    match &v.kind {
        ValueKind::Rate { n, unit, unit_span } => {
            let Some(u) = TimeUnit::parse(unit) else {
                return Err(Diagnostic::new(
                    format!("unknown unit `{unit}` in a rate"),
                    *unit_span,
                )
                .label("unknown unit")
                .maybe_help(did_you_mean(unit, RATE_UNITS))
                .help("a rate is written `4/round`, `12/s`, `100/min` or `5/ms`"));
            };
            let per_unit = ticks_per_unit(u, clock, v)?;
            let r = n / per_unit;
            if !r.is_finite() || r < 0.0 {
                return Err(Diagnostic::new(
                    format!("{what} cannot be negative"),
                    v.span,
                ));
            }
            Ok(r)
        }
        _ => Err(Diagnostic::new(
            format!(
                "{what} takes a rate such as `4/{}`, found {}",
                clock.unit_name(),
                describe(v)
            ),
            v.span,
        )
        .label("expected a rate")),
    }
}

/// A whole count per tick (a per-tick capacity).
pub fn whole_per_tick(v: &Value, clock: Clock, what: &str) -> Result<u64> {
    let r = per_tick(v, clock, what)?;
    if r.fract() != 0.0 {
        return Err(Diagnostic::new(
            format!(
                "{what} is {r} per {} tick; a per-tick capacity must be a whole number",
                clock.unit_name()
            ),
            v.span,
        )
        .label("not whole per tick"));
    }
    Ok(r as u64)
}

/// A plain number.
pub fn real(v: &Value, what: &str) -> Result<f64> {
    match v.kind {
        ValueKind::Number(n) => Ok(n),
        _ => Err(Diagnostic::new(
            format!("{what} takes a plain number, found {}", describe(v)),
            v.span,
        )
        .label("expected a number")),
    }
}

/// A whole count.
pub fn count(v: &Value, what: &str) -> Result<u64> {
    let n = real(v, what)?;
    if n < 0.0 || n.fract() != 0.0 || n > 1e15 {
        return Err(
            Diagnostic::new(format!("{what} must be a whole number, found {n}"), v.span)
                .label("not a whole number"),
        );
    }
    Ok(n as u64)
}

/// A rate (per tick) or a duration (in ticks, possibly fractional) as a
/// plain number; used for the bounds of `expect` lines.
pub fn quantity(v: &Value, clock: Clock) -> Result<f64> {
    match &v.kind {
        ValueKind::Number(n) => Ok(*n),
        ValueKind::Rate { .. } => per_tick(v, clock, "a bound"),
        ValueKind::Duration { n, unit } => Ok(n * ticks_per_unit(*unit, clock, v)?),
        ValueKind::Param(_) => Err(Diagnostic::new(
            "a bound with a unit takes a number, not a `$param`",
            v.span,
        )
        .label("a param")),
    }
}
