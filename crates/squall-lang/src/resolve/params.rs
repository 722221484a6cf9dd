//! Params: following a `$param` use through the overrides to its value,
//! and pointing a value's diagnostic at the use it reached.

use crate::ast::{Value, ValueKind};
use crate::decl::{Overrides, Scenario};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::units;

/// How deep `$a = $b` chains of params may go.
const PARAM_DEPTH: usize = 16;
/// A value after param substitution, remembering where it came from.
struct Resolved<'a> {
    value: &'a Value,
    /// The `$param` use in the file, when the value came through a param.
    via: Option<(Span, &'a str)>,
    /// Where the value was set outside the file (`--set x=1`).
    origin: Option<&'a str>,
}

impl Scenario {
    /// The value of a param in a run (after all overrides).
    pub fn param_value(&self, name: &str, o: &Overrides) -> Option<Value> {
        o.sets
            .iter()
            .rev()
            .find(|s| s.name == name)
            .map(|s| s.value.clone())
            .or_else(|| self.params.get(name).cloned())
    }

    /// The numeric value of a param in a run, for reports: a plain number as
    /// is, a duration in ticks, a rate per tick.
    pub fn param_number(&self, name: &str, o: &Overrides) -> Option<f64> {
        let mut v = self.param_value(name, o)?;
        for _ in 0..PARAM_DEPTH {
            match &v.kind {
                ValueKind::Param(p) => v = self.param_value(p, o)?,
                ValueKind::ParamRate(_) => {
                    return self
                        .conv(&v, o, |r| units::per_tick(r, self.clock, "a value"))
                        .ok()
                }
                ValueKind::Number(n) => return Some(*n),
                // In ticks, fractions kept: `0.5ms` under `clock ms` is 0.5
                // (whole ticks only would make it no number at all).
                ValueKind::Duration { .. } => {
                    return units::fine_ticks(&v, self.clock, "a value").ok()
                }
                ValueKind::Rate { .. } => return units::per_tick(&v, self.clock, "a value").ok(),
                ValueKind::Size { bytes } => return Some(*bytes),
                // A share: `10%` is 0.1.
                ValueKind::Percent(p) => return Some(*p / 100.0),
                ValueKind::Word(_) | ValueKind::Mark(_) => return None,
            }
        }
        None
    }

    fn resolve<'a>(&'a self, v: &'a Value, o: &'a Overrides) -> Result<Resolved<'a>, Diagnostic> {
        let mut cur = Resolved {
            value: v,
            via: None,
            origin: None,
        };
        for _ in 0..PARAM_DEPTH {
            let ValueKind::Param(name) = &cur.value.kind else {
                return Ok(cur);
            };
            let via = cur.via.or(Some((cur.value.span, name.as_str())));
            if let Some(s) = o.sets.iter().rev().find(|s| s.name == *name) {
                cur = Resolved {
                    value: &s.value,
                    via,
                    origin: s.origin.as_deref().or(cur.origin),
                };
            } else if let Some(p) = self.params.get(name) {
                cur = Resolved {
                    value: p,
                    via,
                    origin: cur.origin,
                };
            } else {
                return Err(
                    Diagnostic::new(format!("unknown param `${name}`"), cur.value.span)
                        .label("no param of this name"),
                );
            }
        }
        Err(Diagnostic::new(
            "params refer to each other too deeply (or in a circle)",
            v.span,
        )
        .label("here"))
    }

    /// Converts a value with `f`, re-pointing errors at the `$param` use when
    /// the value came from outside the file.
    pub(super) fn conv<T>(
        &self,
        v: &Value,
        o: &Overrides,
        f: impl FnOnce(&Value) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        let r = self.resolve(v, o)?;
        if let ValueKind::ParamRate(_) = &r.value.kind {
            let rate = self.param_rate(r.value, o)?;
            return f(&rate);
        }
        f(r.value).map_err(|mut d| {
            if let Some(origin) = r.origin {
                if let Some((use_span, name)) = r.via {
                    d.span = use_span;
                    d.label = format!("`${name}` gets its value from `{origin}`");
                }
                let extra = format!("the value comes from `{origin}`");
                d.help = Some(match d.help.take() {
                    Some(h) => format!("{h}; {extra}"),
                    None => extra,
                });
            } else if let Some((use_span, name)) = r.via {
                let (line, _) = use_span.line_col(&self.source);
                let extra = format!("`${name}` is used on line {line}");
                d.help = Some(match d.help.take() {
                    Some(h) => format!("{h}; {extra}"),
                    None => extra,
                });
            }
            d
        })
    }
}

impl Scenario {
    /// `$n/unit` as the rate it stands for: `n` per `unit`, where `$n`
    /// must come to a plain number (a count); `$n` holding a rate, a
    /// duration or anything else is refused at the use, naming what it
    /// holds. The unit is checked against the clock by whoever reads the
    /// rate, as for a written `4/round`.
    fn param_rate(&self, v: &Value, o: &Overrides) -> Result<Value, Diagnostic> {
        let ValueKind::ParamRate(r) = &v.kind else {
            return Ok(v.clone());
        };
        let (name, unit) = (&r.name, &r.unit);
        let param = Value {
            kind: ValueKind::Param(name.clone()),
            span: Span::new(v.span.start, v.span.start + 1 + name.len()),
        };
        let n = self.conv(&param, o, |x| match &x.kind {
            ValueKind::Number(n) => Ok(*n),
            other => Err(Diagnostic::new(
                format!(
                    "`${name}/{unit}` takes a plain number in `${name}`, and `${name}` is {}",
                    units::describe_kind(other)
                ),
                v.span,
            )
            .label("not a plain number")
            .help(format!(
                "write `param {name} = 100` to use `${name}/{unit}`, or use `${name}` alone when it holds the rate"
            ))),
        })?;
        Ok(Value {
            kind: ValueKind::Rate {
                n,
                unit: unit.clone(),
                unit_span: r.unit_span,
            },
            span: v.span,
        })
    }
}
