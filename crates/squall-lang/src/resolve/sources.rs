//! Sources: base rates and rate periods, send times, and the operations a
//! sequential client sends.

use super::Cx;
use crate::ast::{RequestAst, Timed};
use crate::decl::{Overrides, Scenario, SourceDecl};
use crate::diagnostic::Diagnostic;
use crate::model::{
    Backoff, ClientsSpec, Method, OpSpec, RatePeriod, RequestSpec, Schedule, SourceSpec,
};
use crate::units;

impl Scenario {
    /// Source number `i` of the run (its rates possibly replaced).
    pub(super) fn source(
        &self,
        i: usize,
        s: &SourceDecl,
        cx: &mut Cx<'_>,
        backoffs: &[(String, Backoff)],
    ) -> SourceSpec {
        let o = cx.o;
        let rates = o
            .sources
            .iter()
            .rev()
            .find(|(j, _)| *j == i)
            .map_or(&s.rates, |(_, r)| r);
        let mut base = None;
        let mut periods = Vec::new();
        // A replacement without a base rate keeps the source's own base rate.
        let base_lines = if rates.iter().any(|r| r.during.is_none()) {
            rates
        } else {
            &s.rates
        };
        for r in base_lines.iter().filter(|r| r.during.is_none()) {
            if let Some(x) = cx.keep(self.conv(&r.value, o, |v| {
                units::per_tick(v, self.clock, "a source rate")
            })) {
                base = Some(x);
            }
        }
        for r in rates.iter() {
            if let Some(d) = &r.during {
                let rate = cx.keep(self.conv(&r.value, o, |v| {
                    units::per_tick(v, self.clock, "a source rate")
                }));
                let to_rate = match &r.to {
                    Some(v) => cx
                        .keep(self.conv(v, o, |v| {
                            units::per_tick(v, self.clock, "a ramp's end rate")
                        }))
                        .map(Some),
                    None => Some(None),
                };
                let span = self.range(d, cx, "the rate's range");
                if let (Some(rate), Some(to_rate), Some((from, to))) = (rate, to_rate, span) {
                    periods.push(RatePeriod {
                        from,
                        to,
                        rate,
                        to_rate,
                    });
                }
            }
        }
        let schedule = if !s.ops.is_empty() {
            let mut ops = Vec::new();
            for op in &s.ops {
                let retry = self.op_retry(op, s.entry, cx, backoffs);
                ops.push(OpSpec {
                    label: op.label.clone(),
                    request: request_spec(&op.request),
                    retry,
                });
            }
            Schedule::Sequential(ops)
        } else if !s.times.is_empty() {
            let mut times = Vec::new();
            for a in &s.times {
                let v = &a.time;
                let n = match &a.count {
                    None => Some(1),
                    Some(c) => self.send_count(c, times.len(), cx),
                };
                if let (Some(t), Some(n)) = (
                    cx.keep(self.conv(v, o, |v| units::tick(v, self.clock, "a send time"))),
                    n,
                ) {
                    if t < cx.start || t > cx.ticks {
                        cx.errs.push(
                            Diagnostic::new(
                                format!(
                                    "a send time of {t} is outside the run {}..{}",
                                    cx.start, cx.ticks
                                ),
                                v.span,
                            )
                            .label("outside the run"),
                        );
                    } else {
                        times.extend(std::iter::repeat_n(t, n as usize));
                    }
                }
            }
            times.sort_unstable();
            Schedule::At(times)
        } else {
            Schedule::Rate
        };
        SourceSpec {
            name: s.name.clone(),
            entry: s.entry,
            arrivals: s.arrivals,
            rate: base.unwrap_or(0.0),
            periods,
            schedule,
            request: s.request.as_ref().map(request_spec).unwrap_or_default(),
            deadline: setting(o, i, "deadline", &s.deadline).and_then(|t| self.deadline(t, cx)),
            clients: self.clients(
                setting(o, i, "clients", &s.clients),
                setting(o, i, "think", &s.think),
                s.serial.as_ref(),
                cx,
            ),
            priority: self.priority(setting(o, i, "priority", &s.priority), cx),
        }
    }
}

/// Source `i`'s `key` setting (`deadline`, `clients`, `think` or
/// `priority`) in this run: the last a variant gives, or the source's
/// `own`.
pub(super) fn setting<'a>(
    o: &'a Overrides,
    i: usize,
    key: &str,
    own: &'a Option<Timed>,
) -> Option<&'a Timed> {
    o.source_settings
        .iter()
        .rev()
        .filter(|(j, _)| *j == i)
        .find_map(|(_, ts)| ts.iter().rev().find(|t| t.key.name == key))
        .or(own.as_ref())
}

/// The most clients a source may stand for: each keeps its own breaker and
/// budget state (a few hundred bytes), so a million is a few hundred MB.
pub const MAX_CLIENTS: u32 = 1_000_000;

impl Scenario {
    /// A source's `clients N`, `think ...` and `serial every ...`, as the
    /// run gives them.
    fn clients(
        &self,
        clients: Option<&Timed>,
        think: Option<&Timed>,
        serial: Option<&Timed>,
        cx: &mut Cx<'_>,
    ) -> Option<ClientsSpec> {
        let t = clients?;
        let v = t.value_after("")?;
        let count = cx.keep(self.conv(v, cx.o, |v| units::count(v, "a number of clients")))?;
        let Ok(count @ 1..=MAX_CLIENTS) = u32::try_from(count) else {
            cx.errs.push(
                Diagnostic::new(
                    format!("a source stands for 1 to {MAX_CLIENTS} clients, not {count}"),
                    v.span,
                )
                .label("not a number of clients")
                .help("each client keeps its own breaker and budget; model fewer, larger clients"),
            );
            return None;
        };
        let think = match think {
            Some(t) => Some(self.latency(t, cx)?),
            None => None,
        };
        let serial = match serial {
            // `serial every <distribution>`: the distribution follows `every`.
            Some(t) => Some(self.latency(
                &Timed {
                    parts: t.parts.get(1..).unwrap_or_default().to_vec(),
                    ..t.clone()
                },
                cx,
            )?),
            None => None,
        };
        Some(ClientsSpec {
            count,
            think,
            serial,
        })
    }
}

fn request_spec(r: &RequestAst) -> RequestSpec {
    RequestSpec {
        method: Method::parse(&r.method).unwrap_or(Method::Get),
        path: r.path.clone(),
        key: r.key,
    }
}

/// The most send times an `at [...]` list may add up to (`x N` included):
/// each is a tick kept in the run model until the run starts, as many as
/// [`MAX_CLIENTS`].
pub const MAX_SEND_TIMES: u64 = MAX_CLIENTS as u64;

impl Scenario {
    /// The `N` of `at [t x N]`, with `so_far` send times before it: at
    /// least 1, and the list at most [`MAX_SEND_TIMES`] in all.
    fn send_count(&self, v: &crate::ast::Value, so_far: usize, cx: &mut Cx<'_>) -> Option<u64> {
        let n = cx.keep(self.conv(v, cx.o, |v| {
            units::count(v, "a number of requests at a send time")
        }))?;
        if n == 0 || n.saturating_add(so_far as u64) > MAX_SEND_TIMES {
            cx.errs.push(
                Diagnostic::new(
                    format!(
                        "`x {n}`: a send time sends 1 or more requests, and a source's `at` list at most {MAX_SEND_TIMES} in all"
                    ),
                    v.span,
                )
                .label("not a number of requests")
                .help("`at [1ms x 100]` sends 100 requests at 1 ms"),
            );
            return None;
        }
        Some(n)
    }
}
