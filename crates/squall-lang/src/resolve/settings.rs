//! Reading the settings of a block named by its kind (`budget grpc { ... }`,
//! `breaker polly { ... }`): each by name, converted, checked against its
//! library's range, its default when it is not written.

use super::Cx;
use crate::ast::{KindBlockAst, Value};
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::units;

/// The settings of one block, read against one scenario.
pub(super) struct Settings<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) block: &'a KindBlockAst,
}

impl Settings<'_> {
    /// The value written for `name`, if any.
    pub(super) fn get(&self, name: &str) -> Option<&Value> {
        self.block
            .fields
            .iter()
            .find(|(n, _)| n.name == name)
            .map(|(_, v)| v)
    }

    /// Where to point a problem with `name`: its value, or the block.
    pub(super) fn span_of(&self, name: &str) -> crate::span::Span {
        self.get(name).map_or(self.block.span, |v| v.span)
    }

    /// A real number; `ok` says whether it is in range (`what` says the range).
    pub(super) fn real(
        &self,
        cx: &mut Cx<'_>,
        name: &str,
        default: f64,
        ok: fn(f64) -> bool,
        what: &str,
    ) -> Option<f64> {
        let Some(v) = self.get(name) else {
            return Some(default);
        };
        let o = cx.o;
        cx.keep(self.scenario.conv(v, o, |v| {
            let x = units::real(v, name)?;
            if ok(x) {
                Ok(x)
            } else {
                Err(
                    Diagnostic::new(format!("`{name}` {what}, found {x}"), v.span)
                        .label("out of range"),
                )
            }
        }))
    }

    /// A whole count, at most `max`.
    pub(super) fn count(&self, cx: &mut Cx<'_>, name: &str, default: u64, max: u64) -> Option<u64> {
        let Some(v) = self.get(name) else {
            return Some(default);
        };
        let o = cx.o;
        cx.keep(self.scenario.conv(v, o, |v| {
            let n = units::count(v, name)?;
            if n > max {
                return Err(Diagnostic::new(
                    format!("`{name}` is at most {max}, found {n}"),
                    v.span,
                )
                .label("too large"));
            }
            Ok(n)
        }))
    }

    /// A duration in ticks; `default` in ticks, `None` when the setting
    /// has no default under this clock (then it is required).
    pub(super) fn ticks(&self, cx: &mut Cx<'_>, name: &str, default: Option<u64>) -> Option<u64> {
        let Some(v) = self.get(name) else {
            if default.is_none() {
                cx.errs.push(
                    Diagnostic::new(
                        format!(
                            "`{name}` has no default under `clock round`: its library's default is wall-clock time"
                        ),
                        self.block.span,
                    )
                    .label(format!("no `{name}`"))
                    .help(format!("write it in rounds, e.g. `{name} 10 rounds`")),
                );
            }
            return default;
        };
        let o = cx.o;
        let clock = self.scenario.clock;
        cx.keep(self.scenario.conv(v, o, |v| units::ticks(v, clock, name)))
    }
}
