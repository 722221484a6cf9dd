//! Converting written quantities into ticks of the file's clock.
//!
//! | written        | `clock round`        | `clock ms` / `clock s`          |
//! |----------------|----------------------|---------------------------------|
//! | `4 rounds`     | 4 ticks              | error: rounds have no length    |
//! | `200ms`, `2s`  | error                | whole ticks, or an error        |
//! | `4/round`      | 4 per tick           | error                           |
//! | `12/s`         | error                | per tick (may be fractional)    |
//! | `4` (plain)    | 4 ticks or a count   | a count; as a duration, an error |

use crate::ast::{TimeUnit, Value, ValueKind};
use crate::diagnostic::{did_you_mean, Diagnostic, Result};
use crate::model::Clock;
use crate::not_a::Takes;

const RATE_UNITS: [&str; 6] = ["round", "rounds", "ms", "s", "min", "h"];

fn describe(v: &Value) -> &'static str {
    describe_kind(&v.kind)
}

/// What a value is, in words: "a rate", "a duration", ...
pub(crate) fn describe_kind(kind: &ValueKind) -> &'static str {
    match kind {
        ValueKind::Number(_) => "a plain number",
        ValueKind::Rate { .. } => "a rate",
        ValueKind::Duration { .. } => "a duration",
        ValueKind::Param(_) => "a param",
        ValueKind::ParamRate(_) => "a rate",
        ValueKind::Size { .. } => "a size",
        ValueKind::Word(_) => "a word",
        ValueKind::Percent(_) => "a percentage",
        ValueKind::Mark(_) => "`end` or `after warmup`",
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
            format!(
                "`round` does not fit `clock {}`: a round has no length in {}",
                clock.unit_name(),
                clock.unit_name()
            ),
            v.span,
        )
        .label("rounds belong to `clock round`")
        .help(format!("write the value in {}", clock.unit_name()))),
    }
}

/// A whole number of ticks from a duration (an amount of time: a deadline,
/// a wait, a cooldown, a period). A plain number is a number of rounds under
/// `clock round`; under a wall-clock clock it is refused, since `deadline 2`
/// would silently be 2 ms.
pub fn ticks(v: &Value, clock: Clock, what: &str) -> Result<u64> {
    if let ValueKind::Number(n) = v.kind {
        if n != 0.0 && clock.tick_millis().is_some() {
            return Err(bare_duration(n, v, what, clock));
        }
    }
    tick(v, clock, what)
}

/// A tick of the timeline from a duration or a plain number (a tick
/// number, or a count of ticks): the bounds of a range, a send time, a
/// step's end, the run's length and warm-up, a staleness bound. `101..160`
/// names ticks under any clock.
pub fn tick(v: &Value, clock: Clock, what: &str) -> Result<u64> {
    whole(duration_in_ticks(v, clock, what)?, v, what, clock)
}

/// A duration or a plain number in (fractional) ticks, before any check of
/// its size.
fn duration_in_ticks(v: &Value, clock: Clock, what: &str) -> Result<f64> {
    match &v.kind {
        ValueKind::Number(n) => Ok(*n),
        ValueKind::Duration { n, unit } => Ok(n * ticks_per_unit(*unit, clock, v)?),
        _ => Err(Takes::new(what, "a duration")
            .such_as(match clock {
                Clock::Round => "`4 rounds`",
                Clock::Ms | Clock::S => "`200ms` or `2s`",
            })
            .found(describe(v))
            .at(v.span)),
    }
}

/// A duration in ticks, fractional allowed (`0.4ms` under `clock ms` is
/// 0.4), for calls that take time, which the engine counts finer than a
/// tick. Like [`ticks`], a plain number other than 0 is refused under a
/// wall-clock clock.
pub fn fine_ticks(v: &Value, clock: Clock, what: &str) -> Result<f64> {
    if let ValueKind::Number(n) = v.kind {
        if n != 0.0 && clock.tick_millis().is_some() {
            return Err(bare_duration(n, v, what, clock));
        }
    }
    let t = duration_in_ticks(v, clock, what)?;
    if t.is_nan() || t < 0.0 {
        return Err(
            Diagnostic::new(format!("{what} cannot be negative"), v.span).label("negative"),
        );
    }
    if t > 1e15 {
        return Err(Diagnostic::new(format!("{what} is too large"), v.span).label("too large"));
    }
    Ok(t)
}

/// A plain number where a wall-clock clock wants a duration: `deadline 2`
/// would silently be 2 ms under `clock ms` (and 2 s under `clock s`), so
/// the unit must be written. (Under `clock round` a plain number is a
/// number of rounds, the only unit there is; `0` is the same in any unit.)
fn bare_duration(n: f64, v: &Value, what: &str, clock: Clock) -> Diagnostic {
    let unit = clock.unit_name();
    Diagnostic::new(
        format!("{what} `{n}` has no unit: under `clock {unit}` it would be read as {n} {unit}"),
        v.span,
    )
    .label("a number without a unit")
    .help(format!("write the unit, e.g. `{n}{unit}`"))
}

/// `n` ticks of `clock`, spelled for a message: `1.5 rounds`, `1.5 ms`.
fn amount(n: f64, clock: Clock) -> String {
    match clock {
        Clock::Round if n == 1.0 => "1 round".to_string(),
        Clock::Round => format!("{n} rounds"),
        other => format!("{n} {}", other.unit_name()),
    }
}

fn whole(t: f64, v: &Value, what: &str, clock: Clock) -> Result<u64> {
    if t.is_nan() || t < 0.0 {
        return Err(
            Diagnostic::new(format!("{what} cannot be negative"), v.span).label("negative"),
        );
    }
    if t > 1e15 {
        return Err(Diagnostic::new(format!("{what} is too large"), v.span)
            .label("too large")
            .help("squall counts at most 10^15 ticks"));
    }
    if t.fract() != 0.0 {
        return Err(Diagnostic::new(
            format!(
                "{what} is {}, not a whole number of ticks",
                amount(t, clock)
            ),
            v.span,
        )
        .label("not a whole tick")
        .help(format!(
            "time in this file is counted in whole ticks of `clock {}`",
            clock.unit_name()
        )));
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
            if !r.is_finite() || r > 1e15 {
                return Err(
                    Diagnostic::new(format!("{what} is too large"), v.span).label("too large")
                );
            }
            Ok(r)
        }
        _ => Err(Takes::new(what, "a rate")
            .such_as(format!("`4/{}`", clock.unit_name()))
            .found(describe(v))
            .at(v.span)),
    }
}

/// A whole count per tick (a per-tick capacity).
pub fn whole_per_tick(v: &Value, clock: Clock, what: &str) -> Result<u64> {
    let r = per_tick(v, clock, what)?;
    if r.fract() != 0.0 || r > 1e15 {
        return Err(Diagnostic::new(
            format!("{what} is {r} calls per tick, and a per-tick capacity must be a whole number"),
            v.span,
        )
        .label("not whole per tick")
        .help(format!(
            "one tick is {} in this file; write the capacity per {}",
            amount(1.0, clock),
            clock.unit_name()
        )));
    }
    Ok(r as u64)
}

/// A plain number.
pub fn real(v: &Value, what: &str) -> Result<f64> {
    match v.kind {
        ValueKind::Number(n) => Ok(n),
        _ => Err(Takes::new(what, "a plain number")
            .found(describe(v))
            .at(v.span)),
    }
}

/// A percentage (`10%`, or a `$param` holding one) as its number (10):
/// where a share is written without its own `%` sign.
pub fn percent(v: &Value, what: &str) -> Result<f64> {
    match v.kind {
        ValueKind::Percent(n) => Ok(n),
        _ => Err(Takes::new(what, "a percentage such as `10%`")
            .found(describe(v))
            .at(v.span)),
    }
}

/// A whole count.
pub fn count(v: &Value, what: &str) -> Result<u64> {
    let n = real(v, what)?;
    if n > 1e15 {
        return Err(Diagnostic::new(format!("{what} is too large"), v.span).label("too large"));
    }
    if n < 0.0 || n.fract() != 0.0 {
        return Err(
            Diagnostic::new(format!("{what} must be a whole number, found {n}"), v.span)
                .label("not a whole number"),
        );
    }
    Ok(n as u64)
}

/// A whole number of bytes from a size (`180 B`, `2 KiB`) or a plain number.
pub fn bytes(v: &Value, what: &str) -> Result<u64> {
    let b = match v.kind {
        ValueKind::Size { bytes } => bytes,
        ValueKind::Number(n) => n,
        _ => {
            return Err(Takes::new(what, "a size")
                .such_as("`180 B`")
                .found(describe(v))
                .at(v.span))
        }
    };
    if !b.is_finite() || b < 0.0 || b.fract() != 0.0 || b > 1e15 {
        return Err(Diagnostic::new(
            format!("{what} must be a whole number of bytes, found {b}"),
            v.span,
        )
        .label("not whole bytes"));
    }
    Ok(b as u64)
}

/// A rate (per tick) or a duration (in ticks, possibly fractional) as a
/// plain number; used for the bounds of `expect` lines.
pub fn quantity(v: &Value, clock: Clock) -> Result<f64> {
    match &v.kind {
        ValueKind::Number(n) => Ok(*n),
        ValueKind::Rate { .. } => per_tick(v, clock, "a bound"),
        ValueKind::Duration { n, unit } => Ok(n * ticks_per_unit(*unit, clock, v)?),
        ValueKind::Param(_) | ValueKind::ParamRate(_) => Err(Diagnostic::new(
            "a bound with a unit takes a number, not a `$param`",
            v.span,
        )
        .label("a param")),
        ValueKind::Size { bytes } => Ok(*bytes),
        ValueKind::Word(_) | ValueKind::Mark(_) | ValueKind::Percent(_) => {
            Err(Takes::new("a bound", "a number")
                .found(describe(v))
                .at(v.span))
        }
    }
}
