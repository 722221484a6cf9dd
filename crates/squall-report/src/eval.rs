//! Evaluating report expressions against finished runs.
//!
//! A value is `Some(x)` or `None` ("n/a": a ratio with a zero denominator, a
//! recovery from a fault the run does not have, a value that never came).
//! Arithmetic on `None` gives `None`.

use squall_engine::Observations;
use squall_lang::ast::BinOp;
use squall_lang::{Func, Metric, RExpr, RunKey};

use crate::document::Cell;
use crate::interval::Interval;
use crate::study::{Run, Study};

/// Where an expression is evaluated: a run, and optionally a window and node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ctx {
    /// The run.
    pub run: RunKey,
    /// The window, by index.
    pub window: Option<usize>,
    /// The node, by index.
    pub node: Option<usize>,
}

/// Deepest nesting of measures (guards a measure that refers to itself).
const DEPTH: usize = 64;

impl Study<'_> {
    /// The value of `e` in `ctx`, in the first replication.
    pub fn eval(&self, e: &RExpr, ctx: Ctx) -> Option<f64> {
        self.eval_depth(e, ctx, 0, 0)
    }

    /// The value of `e` in `ctx` in replication `r` (0-based; 0 is `runs`).
    pub fn eval_replica(&self, r: usize, e: &RExpr, ctx: Ctx) -> Option<f64> {
        self.eval_depth(e, ctx, 0, r)
    }

    /// The value of `e` in `ctx` in every replication, in order.
    pub fn eval_replicas(&self, e: &RExpr, ctx: Ctx) -> Vec<Option<f64>> {
        (0..self.replications())
            .map(|r| self.eval_replica(r, e, ctx))
            .collect()
    }

    /// The value of `e` in `ctx` as a table cell with `digits` digits: a
    /// number, or with replications a mean and its 95 % interval.
    pub fn value_cell(&self, e: &RExpr, ctx: Ctx, digits: usize) -> Cell {
        if self.replicas.is_empty() {
            return Cell::number(self.eval(e, ctx), digits);
        }
        Interval::of(&self.eval_replicas(e, ctx))
            .map_or(Cell::Missing, |i| Cell::Interval(i, digits))
    }

    /// The value of `e` in `ctx`, or with replications the mean over the
    /// replications that have one: what `expect` lines check.
    pub fn eval_mean(&self, e: &RExpr, ctx: Ctx) -> Option<f64> {
        if self.replicas.is_empty() {
            return self.eval(e, ctx);
        }
        Interval::of(&self.eval_replicas(e, ctx)).map(|i| i.mean)
    }

    fn run_of(&self, key: RunKey, r: usize) -> Option<&Run> {
        match r.checked_sub(1) {
            None => self.runs.get(&key),
            Some(i) => self.replicas.get(i)?.get(&key),
        }
    }

    fn eval_depth(&self, e: &RExpr, ctx: Ctx, depth: usize, r: usize) -> Option<f64> {
        if depth > DEPTH {
            return None;
        }
        match e {
            RExpr::Number(x) => Some(*x),
            RExpr::Param(name) => {
                let run = self.run_of(ctx.run, r)?;
                self.scenario.param_number(name, &run.overrides)
            }
            RExpr::Metric {
                variant,
                window,
                node,
                metric,
            } => {
                let key = variant.map_or(ctx.run, RunKey::Variant);
                let run = self.run_of(key, r)?;
                let w = window.or(ctx.window)?;
                let spec = run.model.windows.get(w)?;
                let n = if metric.needs_node() {
                    Some(node.or(ctx.node)?)
                } else {
                    None
                };
                window_metric(&run.obs, *metric, spec.from, spec.to, w, n)
            }
            RExpr::Measure { variant, measure } => {
                let m = self.scenario.report.measures.get(*measure)?;
                let run = variant.map_or(ctx.run, RunKey::Variant);
                self.eval_depth(&m.expr, Ctx { run, ..ctx }, depth + 1, r)
            }
            RExpr::Neg(x) => self.eval_depth(x, ctx, depth + 1, r).map(|v| -v),
            RExpr::Binary(op, a, b) => {
                let a = self.eval_depth(a, ctx, depth + 1, r)?;
                let b = self.eval_depth(b, ctx, depth + 1, r)?;
                let v = match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => {
                        if b == 0.0 {
                            return None;
                        }
                        a / b
                    }
                    BinOp::Pow => a.powf(b),
                };
                v.is_finite().then_some(v)
            }
            RExpr::Call(f, args) => self.call(f, args, ctx, depth, r),
        }
    }

    fn call(&self, f: &Func, args: &[RExpr], ctx: Ctx, depth: usize, r: usize) -> Option<f64> {
        let run = self.run_of(ctx.run, r)?;
        match f {
            Func::Recovery { node, fault } => {
                let threshold = self.eval_depth(args.first()?, ctx, depth + 1, r)?;
                let name = &self.scenario.faults.get(*fault)?.name;
                let spec = run.model.faults.iter().find(|x| x.name == *name)?;
                let calls = &run.obs.nodes.get(*node)?.calls;
                crate::bins::recovery(calls, spec.to, run.obs.ticks, bin_ticks(run), threshold)
                    .map(|t| t as f64)
            }
            Func::Peak { node } => {
                let calls = &run.obs.nodes.get(*node)?.calls;
                crate::bins::peak(calls, run.obs.ticks, bin_ticks(run))
            }
            Func::PeakTick { node } => {
                let calls = &run.obs.nodes.get(*node)?.calls;
                let max = calls.iter().skip(1).max()?;
                calls
                    .iter()
                    .skip(1)
                    .position(|c| c == max)
                    .map(|i| (i + 1) as f64)
            }
            Func::CallBound { node } => call_bound(&run.model, *node),
            Func::Fields { node } => composite(&run.model, *node).map(|c| c.fields.len() as f64),
            Func::Marker { node } => composite(&run.model, *node).map(|c| c.marker as f64),
            Func::ResponseBytes { node } => composite(&run.model, *node)
                .map(|c| c.fields.iter().map(|f| f.bytes).sum::<u64>() as f64),
            Func::LedgerEntries { node } => composite(&run.model, *node)
                .and_then(|c| c.ledger.as_ref())
                .map(|l| l.entries as f64),
            Func::Minutes | Func::Seconds => {
                let ticks = self.eval_depth(args.first()?, ctx, depth + 1, r)?;
                let ms = run.model.clock.tick_millis()? as f64;
                let per = if matches!(f, Func::Minutes) {
                    60_000.0
                } else {
                    1_000.0
                };
                Some(ticks * ms / per)
            }
            Func::RouteCalls { node, route } => run
                .obs
                .route_calls
                .get(*node)?
                .get(*route)
                .map(|&c| c as f64),
            Func::Min | Func::Max | Func::Abs => {
                let vals: Option<Vec<f64>> = args
                    .iter()
                    .map(|a| self.eval_depth(a, ctx, depth + 1, r))
                    .collect();
                let vals = vals?;
                match f {
                    Func::Min => vals.into_iter().reduce(f64::min),
                    Func::Max => vals.into_iter().reduce(f64::max),
                    _ => vals.first().map(|v| v.abs()),
                }
            }
        }
    }
}

/// The width of the run's series bins \[ticks\]: one tick on a run that
/// takes no time.
pub fn bin_ticks(run: &crate::run::Run) -> u64 {
    run.obs.timed.as_ref().map_or(1, |t| t.bin_ticks.max(1))
}

/// The most calls one request can make at `node`: the product of the tries
/// of every service above it on a source's path (the largest over sources).
pub fn call_bound(model: &squall_lang::Model, node: usize) -> Option<f64> {
    let mut best: Option<f64> = None;
    for s in &model.sources {
        let mut product = 1.0;
        let mut cur = s.entry;
        let mut steps = 0;
        loop {
            if cur == node {
                best = Some(best.map_or(product, |b: f64| b.max(product)));
                break;
            }
            let n = model.nodes.get(cur)?;
            product *= n.retry.as_ref().map_or(1.0, |r| f64::from(r.attempts));
            match n.downstream {
                Some(d) if steps < model.nodes.len() => {
                    cur = d;
                    steps += 1;
                }
                _ => break,
            }
        }
    }
    best
}

/// A window metric: `w` is the window's index (for unique counts), `node`
/// the node for node metrics.
pub fn window_metric(
    obs: &Observations,
    metric: Metric,
    from: u64,
    to: u64,
    w: usize,
    node: Option<usize>,
) -> Option<f64> {
    let ticks = (to + 1 - from) as f64;
    let sum = Observations::sum;
    let ratio = |a: f64, b: f64| if b == 0.0 { None } else { Some(a / b) };
    if !metric.needs_node() {
        return match metric {
            Metric::Arrivals => Some(sum(&obs.arrivals, from, to) as f64),
            Metric::EdgeRate => Some(sum(&obs.arrivals, from, to) as f64 / ticks),
            Metric::Dropped => Some(sum(&obs.dropped, from, to) as f64),
            Metric::DroppedRate => Some(sum(&obs.dropped, from, to) as f64 / ticks),
            Metric::Completed => Some(sum(&obs.completed, from, to) as f64),
            Metric::FirstTryOk => Some(sum(&obs.first_try, from, to) as f64),
            Metric::FirstTryRate | Metric::CompletionRate => {
                let ended = (sum(&obs.completed, from, to) + sum(&obs.dropped, from, to)) as f64;
                let part = if metric == Metric::FirstTryRate {
                    sum(&obs.first_try, from, to)
                } else {
                    sum(&obs.completed, from, to)
                } as f64;
                return ratio(part, ended);
            }
            Metric::E2eP50 | Metric::E2eP99 | Metric::E2eMean => timed_window(obs, metric, w, None),
            _ => Some(ticks),
        };
    }
    if let Some(v) = timed_window(obs, metric, w, node) {
        return Some(v);
    }
    let s = obs.nodes.get(node?)?;
    let calls = sum(&s.calls, from, to) as f64;
    let served = sum(&s.ok, from, to) as f64;
    // Only the unique-id metrics need the window's distinct ids.
    let unique = || obs.window_unique.get(w)?.get(node?).map(|&u| u as f64);
    Some(match metric {
        Metric::Calls => calls,
        Metric::Served => served,
        Metric::Failed => sum(&s.failed, from, to) as f64,
        Metric::Refused => sum(&s.refused, from, to) as f64,
        Metric::Blocked => sum(&s.blocked, from, to) as f64,
        Metric::RetriesRefused => sum(&s.retries_refused, from, to) as f64,
        Metric::PeakCalls => {
            let to = (to as usize).min(s.calls.len().saturating_sub(1));
            let from = (from as usize).min(to + 1);
            f64::from(s.calls[from..=to].iter().max().copied().unwrap_or(0))
        }
        Metric::Answered => served,
        Metric::Full => sum(&s.composite.as_ref()?.full, from, to) as f64,
        Metric::Reduced => sum(&s.composite.as_ref()?.reduced, from, to) as f64,
        Metric::FreshFields => sum(&s.composite.as_ref()?.fresh, from, to) as f64,
        Metric::StaleFields => sum(&s.composite.as_ref()?.stale, from, to) as f64,
        Metric::MissingFields => sum(&s.composite.as_ref()?.missing, from, to) as f64,
        Metric::Bytes => composite_bytes(s, from, to)? as f64,
        // As the degradation document prints it: 0 when nothing was answered.
        Metric::AvgBytes => {
            let b = composite_bytes(s, from, to)? as f64;
            if served == 0.0 {
                0.0
            } else {
                b / served
            }
        }
        Metric::LastAnswered => {
            let to_i = (to as usize).min(s.ok.len().saturating_sub(1));
            (from as usize..=to_i)
                .rev()
                .find(|&t| s.ok[t] > 0)
                .map_or(0.0, |t| (t as u64 + 1 - from) as f64)
        }
        Metric::Unique => unique()?,
        Metric::SaturatedTicks => {
            let to_i = (to as usize).min(s.refused.len().saturating_sub(1));
            s.refused[from as usize..=to_i]
                .iter()
                .filter(|&&r| r > 0)
                .count() as f64
        }
        Metric::CallRate => calls / ticks,
        Metric::ServedRate => served / ticks,
        Metric::UniqueRate => unique()? / ticks,
        Metric::Amplification => return ratio(calls, unique()?),
        Metric::SuccessRate => return ratio(served, calls),
        _ => return None,
    })
}

/// A metric of a run that takes time, in named window `w`: latency in
/// ticks of the file's clock, counts, time-weighted levels. `None` for a
/// metric that is not one of these, or a run in which nothing takes time.
fn timed_window(obs: &Observations, metric: Metric, w: usize, node: Option<usize>) -> Option<f64> {
    let t = obs.timed.as_ref()?;
    let per = t.units_per_tick as f64;
    let ticks = |units: u64| units as f64 / per;
    if let Some(e) = match metric {
        Metric::E2eP50 | Metric::E2eP99 | Metric::E2eMean => t.all.windows.get(w),
        _ => None,
    } {
        return Some(match metric {
            Metric::E2eP50 => ticks(e.p50),
            Metric::E2eP99 => ticks(e.p99),
            _ => e.mean / per,
        });
    }
    let n = t.nodes.get(node?)?;
    if let Some(q) = match metric {
        Metric::Receives
        | Metric::Redeliveries
        | Metric::DeadLetters
        | Metric::Done
        | Metric::OldestAge => n.queue.as_ref()?.windows.get(w),
        _ => None,
    } {
        return Some(match metric {
            Metric::Receives => q.receives as f64,
            Metric::Redeliveries => q.redeliveries as f64,
            Metric::DeadLetters => q.dead_letters as f64,
            Metric::Done => q.done as f64,
            _ => ticks(q.oldest_age),
        });
    }
    let s = n.windows.get(w)?;
    let l = &s.latency;
    Some(match metric {
        Metric::P50 => ticks(l.p50),
        Metric::P90 => ticks(l.p90),
        Metric::P99 => ticks(l.p99),
        Metric::P999 => ticks(l.p999),
        Metric::LatencyMax => ticks(l.max),
        Metric::LatencyMean => l.mean / per,
        Metric::Timeouts => s.timeouts as f64,
        Metric::Overflow => s.overflow as f64,
        Metric::QueueTimeouts => s.queue_timeouts as f64,
        Metric::Throttled => s.throttled as f64,
        Metric::Cancelled => s.cancelled as f64,
        Metric::Wasted => s.wasted_calls as f64,
        Metric::WastedBusy => ticks(s.wasted_busy),
        Metric::QueueMean => s.queue_mean,
        Metric::QueueMax => s.queue_max as f64,
        Metric::InService => s.in_service_mean,
        Metric::InServiceMax => s.in_service_max as f64,
        _ => return None,
    })
}

fn composite(model: &squall_lang::Model, node: usize) -> Option<&squall_lang::CompositeSpec> {
    model.nodes.get(node)?.composite.as_ref()
}

fn composite_bytes(s: &squall_engine::NodeSeries, from: u64, to: u64) -> Option<u64> {
    let c = s.composite.as_ref()?;
    let to = (to as usize).min(c.bytes.len().saturating_sub(1));
    Some(c.bytes[(from as usize).min(to + 1)..=to].iter().sum())
}
