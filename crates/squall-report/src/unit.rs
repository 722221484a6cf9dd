//! The unit of an expression's value, so that a value printed alone (an
//! `expect` line's, a sweep's measure) says what it counts.
//!
//! Metrics and functions have a unit: durations and tick positions are in
//! ticks of the file's clock (`p99`, `recovery(...)`, `last_answered`),
//! rates are per tick (`call_rate`, `peak(...)`), `seconds(...)` is in
//! seconds and `per_second(...)` per second; counts and shares have none.
//! A sum or difference keeps its sides' unit when they agree, a product or
//! quotient with a plain number keeps the other side's, anything else has
//! none (a ratio of two durations is a plain number).

use squall_lang::{Clock, Func, Metric, RExpr, Scenario};

/// What a value counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A count, a share, a plain number.
    Plain,
    /// Ticks of the file's clock.
    Ticks,
    /// Per tick of the file's clock.
    PerTick,
    /// Seconds.
    Seconds,
    /// Minutes.
    Minutes,
    /// Per second.
    PerSecond,
}

/// The unit of a metric's value.
pub fn metric_unit(m: Metric) -> Unit {
    match m {
        Metric::P50
        | Metric::P90
        | Metric::P99
        | Metric::P999
        | Metric::LatencyMax
        | Metric::LatencyMean
        | Metric::WastedBusy
        | Metric::Wq
        | Metric::E2eP50
        | Metric::E2eP99
        | Metric::E2eMean
        | Metric::E2eFailedP50
        | Metric::E2eFailedP99
        | Metric::E2eFailedMean
        | Metric::OldestAge
        | Metric::LastAnswered
        | Metric::Ticks => Unit::Ticks,
        Metric::CallRate
        | Metric::ServedRate
        | Metric::UniqueRate
        | Metric::EdgeRate
        | Metric::DroppedRate => Unit::PerTick,
        _ => Unit::Plain,
    }
}

/// The unit of `e`'s value in `scenario` (its measures' expressions
/// looked up by index).
pub fn unit_of(e: &RExpr, scenario: &Scenario) -> Unit {
    unit_within(e, scenario, 0)
}

fn unit_within(e: &RExpr, s: &Scenario, depth: usize) -> Unit {
    // Measures refer only to earlier ones; the depth is a guard.
    if depth > s.report.measures.len() + 1 {
        return Unit::Plain;
    }
    let of = |x: &RExpr| unit_within(x, s, depth + 1);
    match e {
        RExpr::Number(_) | RExpr::Param(_) | RExpr::Sending { .. } => Unit::Plain,
        RExpr::Metric { metric, .. } => metric_unit(*metric),
        RExpr::Measure { measure, .. } => s
            .report
            .measures
            .get(*measure)
            .map_or(Unit::Plain, |m| of(&m.expr)),
        RExpr::Neg(x) => of(x),
        RExpr::Call(f, args) => match f {
            Func::Recovery { .. } | Func::PeakTick { .. } => Unit::Ticks,
            Func::Peak { .. } => Unit::PerTick,
            Func::Seconds => Unit::Seconds,
            Func::Minutes => Unit::Minutes,
            Func::PerSecond => Unit::PerSecond,
            Func::Min | Func::Max | Func::Abs => {
                let mut units = args.iter().map(of);
                let first = units.next().unwrap_or(Unit::Plain);
                if units.all(|u| u == first) {
                    first
                } else {
                    Unit::Plain
                }
            }
            _ => Unit::Plain,
        },
        RExpr::Binary(op, a, b) => {
            use squall_lang::ast::BinOp;
            let (ua, ub) = (of(a), of(b));
            match op {
                BinOp::Add | BinOp::Sub if ua == ub => ua,
                BinOp::Mul if ua == Unit::Plain => ub,
                BinOp::Mul | BinOp::Div if ub == Unit::Plain => ua,
                _ => Unit::Plain,
            }
        }
    }
}

/// `value` (in `unit`) as it reads under a wall clock: durations in
/// seconds from a second up (in ms below, under `clock ms`), rates per
/// second; with the unit's symbol (`s`, `ms`, `/s`, `min`; empty for a
/// plain number). `None` under `clock round`, where a value is read as it
/// is.
pub fn on_wall_clock(value: f64, unit: Unit, clock: Clock) -> Option<(f64, &'static str)> {
    let ms = clock.tick_millis()?;
    let per_second = 1000.0 / ms as f64;
    Some(match unit {
        Unit::Plain => (value, ""),
        Unit::Ticks => {
            let secs = value / per_second;
            if ms < 1000 && secs.abs() < 1.0 {
                (value, "ms")
            } else {
                (secs, "s")
            }
        }
        Unit::PerTick => (value * per_second, "/s"),
        Unit::Seconds => (value, "s"),
        Unit::Minutes => (value, "min"),
        Unit::PerSecond => (value, "/s"),
    })
}

/// The symbol of `unit`'s raw values under `clock` (`ms`, `/ms`, `s`,
/// `/s`, `min`; empty for a plain number, and for ticks and rates under
/// `clock round`, where a table says rounds in its own words).
pub fn raw_symbol(unit: Unit, clock: Clock) -> &'static str {
    let wall = clock.tick_millis().is_some();
    match unit {
        Unit::Plain => "",
        Unit::Ticks if wall => clock.unit_name(),
        Unit::PerTick if wall => match clock {
            Clock::Ms => "/ms",
            _ => "/s",
        },
        Unit::Ticks | Unit::PerTick => "",
        Unit::Seconds => "s",
        Unit::Minutes => "min",
        Unit::PerSecond => "/s",
    }
}

/// The symbol of measure `m`'s unit under `scenario`'s clock
/// ([`raw_symbol`]; empty for none), and the heading a sweep's measures
/// table gives it: its name, then the symbol in brackets when it has one
/// (`recovery [ms]`).
pub fn measure_heading(
    m: &squall_lang::MeasureSpec,
    scenario: &Scenario,
) -> (String, &'static str) {
    match raw_symbol(unit_of(&m.expr, scenario), scenario.clock) {
        "" => (m.name.clone(), ""),
        symbol => (format!("{} [{symbol}]", m.name), symbol),
    }
}

/// Measure `m` as column `column` of a sweep's table, when its values are
/// ticks or per tick of a wall clock: scaled to seconds (or ms) and per
/// second when shown ([`crate::sweep::WallColumn`]). `None` for any other
/// unit or clock.
pub fn wall_column(
    m: &squall_lang::MeasureSpec,
    scenario: &Scenario,
    column: usize,
) -> Option<crate::sweep::WallColumn> {
    let tick_ms = scenario.clock.tick_millis()?;
    let per_tick = match unit_of(&m.expr, scenario) {
        Unit::Ticks => false,
        Unit::PerTick => true,
        _ => return None,
    };
    Some(crate::sweep::WallColumn {
        column,
        per_tick,
        tick_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `clock ms`: a 1 s recovery (1000 ticks) reads 1 s, half a second
    /// 500 ms, 0.826 calls a tick 826/s; `clock s` keeps seconds; rounds
    /// read as they are.
    #[test]
    fn wall_clock_values() {
        assert_eq!(
            on_wall_clock(1000.0, Unit::Ticks, Clock::Ms),
            Some((1.0, "s"))
        );
        assert_eq!(
            on_wall_clock(500.0, Unit::Ticks, Clock::Ms),
            Some((500.0, "ms"))
        );
        let (v, u) = on_wall_clock(0.826, Unit::PerTick, Clock::Ms).unwrap_or_default();
        assert!((v - 826.0).abs() < 1e-9 && u == "/s");
        assert_eq!(on_wall_clock(3.0, Unit::Ticks, Clock::S), Some((3.0, "s")));
        assert_eq!(on_wall_clock(0.5, Unit::Ticks, Clock::S), Some((0.5, "s")));
        assert_eq!(on_wall_clock(1000.0, Unit::Ticks, Clock::Round), None);
        assert_eq!(raw_symbol(Unit::Ticks, Clock::Ms), "ms");
        assert_eq!(raw_symbol(Unit::PerTick, Clock::Ms), "/ms");
        assert_eq!(raw_symbol(Unit::Ticks, Clock::Round), "");
    }
}
