//! Evaluating report expressions against finished runs.
//!
//! A value is `Some(x)` or `None` ("n/a": a ratio with a zero denominator, a
//! recovery from a fault the run does not have, a value that never came).
//! Arithmetic on `None` gives `None`.

use squall_engine::observe::histogram::Quantiles;
use squall_engine::observe::timed::{TimedObservations, TimedSource};
use squall_engine::Observations;
use squall_lang::ast::BinOp;
use squall_lang::{Func, Metric, RExpr, RunKey};

pub use crate::call_bound::call_bound;
use crate::counts::Counter;
use crate::document::Cell;
use crate::interval::Interval;
use crate::stretch::stretch_metric;
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
pub(crate) const DEPTH: usize = 64;

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
        let values = self.eval_replicas(e, ctx);
        let never = (0..values.len())
            .filter(|&r| values[r].is_none() && self.never_reached(e, ctx, 0, r))
            .count();
        match Interval::of(&values) {
            Some(i) => Cell::Interval(Interval { never, ..i }, digits),
            // No replication has a value, and some never reached it:
            // `never (k of n)`.
            None if never > 0 => Cell::Interval(
                Interval {
                    mean: 0.0,
                    half_width: None,
                    n: 0,
                    replications: values.len(),
                    never,
                    values,
                },
                digits,
            ),
            None => Cell::Missing,
        }
    }

    /// The value of `e` in `ctx`, or with replications the mean over the
    /// replications that have one: what `expect` lines check.
    pub fn eval_mean(&self, e: &RExpr, ctx: Ctx) -> Option<f64> {
        if self.replicas.is_empty() {
            return self.eval(e, ctx);
        }
        Interval::of(&self.eval_replicas(e, ctx)).map(|i| i.mean)
    }

    pub(crate) fn run_of(&self, key: RunKey, r: usize) -> Option<&Run> {
        match r.checked_sub(1) {
            None => self.runs.get(&key),
            Some(i) => self.replicas.get(i)?.get(&key),
        }
    }

    pub(crate) fn eval_depth(&self, e: &RExpr, ctx: Ctx, depth: usize, r: usize) -> Option<f64> {
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
                replica,
                metric,
            } => {
                let key = variant.map_or(ctx.run, RunKey::Variant);
                let run = self.run_of(key, r)?;
                let w = window.or(ctx.window)?;
                let n = if metric.needs_node() {
                    Some(node.or(ctx.node)?)
                } else {
                    None
                };
                if let (Some(x), Some(n)) = (*replica, n) {
                    return crate::replica::replica_metric(run, *metric, w, n, x);
                }
                run_window_metric(run, *metric, w, n)
            }
            RExpr::Sending {
                variant,
                sender,
                metric,
            } => {
                // Every replication has its own senders' run: the first
                // replication's are in the study, the others' in their runs.
                let key = variant.map_or(ctx.run, RunKey::Variant);
                let name = &self.scenario.senders.get(*sender)?.name.name;
                let runs = match r {
                    0 => &self.sending,
                    _ => &self.run_of(key, r)?.sending,
                };
                runs.iter()
                    .find(|s| s.key == key && s.sender == *name)?
                    .value(*metric)
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
                match self.recovery_verdict(*node, *fault, args, ctx, depth, r)? {
                    crate::bins::Recovery::After(t) => Some(t as f64),
                    _ => None,
                }
            }
            Func::Peak { node } => {
                let calls = &run.obs.nodes.get(*node)?.calls;
                crate::bins::peak(&run.obs.slots, calls)
            }
            Func::PeakTick { node } => {
                // The first tick of the busiest slot (tick, or bin).
                let calls = &run.obs.nodes.get(*node)?.calls;
                let max = calls.iter().skip(1).max()?;
                calls
                    .iter()
                    .skip(1)
                    .position(|c| c == max)
                    .map(|i| run.obs.slots.first_tick(i + 1) as f64)
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
            Func::PerSecond => {
                let rate = self.eval_depth(args.first()?, ctx, depth + 1, r)?;
                let ms = run.model.clock.tick_millis()? as f64;
                Some(rate * 1000.0 / ms)
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
    run.obs.slots.bin.max(1)
}

/// A window metric over ticks `from..=to` of a run's per-tick series: `w`
/// is the window's index (for unique counts and timed stretches), `node`
/// the node for node metrics.
pub fn window_metric(
    obs: &Observations,
    metric: Metric,
    from: u64,
    to: u64,
    w: usize,
    node: Option<usize>,
) -> Option<f64> {
    let count = |c, n| crate::counts::count(obs, c, from, to, n);
    metric_of(obs, &count, metric, (from, to), w, node)
}

/// A metric of named window `w` of a run, read from its per-tick series or,
/// for a reduced run, from the totals it kept of the window.
pub fn run_window_metric(run: &Run, metric: Metric, w: usize, node: Option<usize>) -> Option<f64> {
    let spec = run.model.windows.get(w)?;
    if metric == Metric::Utilisation {
        // Calls holding a worker over the node's own workers (those a
        // fault sets while in force are not counted apart).
        let workers = run.model.nodes.get(node?)?.server.as_ref()?.workers?;
        let busy = run_window_metric(run, Metric::InService, w, node)?;
        return (workers > 0).then(|| busy / f64::from(workers));
    }
    match run.counts(w) {
        Some(kept) => {
            let count = |c, n| kept.get(c, n);
            metric_of(&run.obs, &count, metric, (spec.from, spec.to), w, node)
        }
        None => window_metric(&run.obs, metric, spec.from, spec.to, w, node),
    }
}

/// A metric from the counters of a stretch of `ticks` ticks (`count`), the
/// window's distinct ids and timed stretches in `obs`.
fn metric_of(
    obs: &Observations,
    count: &dyn Fn(Counter, Option<usize>) -> Option<u64>,
    metric: Metric,
    (from, to): (u64, u64),
    w: usize,
    node: Option<usize>,
) -> Option<f64> {
    let ticks = (to + 1 - from) as f64;
    let sys = |c| count(c, None).unwrap_or(0);
    let ratio = |a: f64, b: f64| if b == 0.0 { None } else { Some(a / b) };
    if !metric.needs_node() {
        return match metric {
            Metric::Arrivals => Some(sys(Counter::Arrivals) as f64),
            Metric::EdgeRate => Some(sys(Counter::Arrivals) as f64 / ticks),
            Metric::Dropped => Some(sys(Counter::Dropped) as f64),
            Metric::DroppedRate => Some(sys(Counter::Dropped) as f64 / ticks),
            Metric::Completed => Some(sys(Counter::Completed) as f64),
            Metric::FirstTryOk => Some(sys(Counter::FirstTry) as f64),
            Metric::FirstTryRate | Metric::CompletionRate => {
                let ended = (sys(Counter::Completed) + sys(Counter::Dropped)) as f64;
                let part = if metric == Metric::FirstTryRate {
                    sys(Counter::FirstTry)
                } else {
                    sys(Counter::Completed)
                } as f64;
                return ratio(part, ended);
            }
            m if is_e2e(m) => timed_window(obs, metric, (w, ticks), None),
            _ => Some(ticks),
        };
    }
    if let Some(v) = timed_window(obs, metric, (w, ticks), node) {
        return Some(v);
    }
    let node = Some(node?);
    let at = |c| count(c, node).map(|v| v as f64);
    let calls = at(Counter::Calls)?;
    let served = at(Counter::Ok)?;
    // Only the unique-id metrics need the window's distinct ids, which a
    // run counts only at the nodes its reader reads them at.
    let unique = || {
        let node = node?;
        crate::observed::counted_distinct(obs, node)
            .then(|| obs.window_unique.get(w)?.get(node).map(|&u| u as f64))
            .flatten()
    };
    Some(match metric {
        Metric::Calls => calls,
        Metric::Served => served,
        Metric::Failed => at(Counter::Failed)?,
        Metric::Refused => at(Counter::Refused)?,
        Metric::Blocked => at(Counter::Blocked)?,
        Metric::RetriesRefused => at(Counter::RetriesRefused)?,
        Metric::Hedged => at(Counter::Hedged)?,
        Metric::RejectedLocally => at(Counter::RejectedLocally)?,
        Metric::Retries => at(Counter::Retries)?,
        Metric::PeakCalls => at(Counter::PeakCalls)?,
        // Reads the run's per-tick calls: a report that uses it keeps every
        // run's series (`plan::reads_ticks`).
        // The busiest bin of the run's series inside the window (a tick on a
        // run that takes no time), in calls per tick, over the window's
        // mean. Bins cut by the window's edges count only when no whole bin
        // fits in it: a sliver of a bin is no bin's worth of load.
        Metric::PeakToMean => {
            let s = obs.nodes.get(node?)?;
            let per_bin = |b: usize| {
                let (b0, b1) = obs.slots.bin_ticks(b);
                let (a, z) = (b0.max(from), b1.min(to));
                let (i, j) = obs.slots.bin_slots(b);
                let n: u64 = (i..=j.min(s.calls.len().saturating_sub(1)))
                    .filter(|&k| obs.slots.first_tick(k) >= from && obs.slots.last_tick(k) <= to)
                    .map(|k| u64::from(s.calls[k]))
                    .sum();
                (
                    n as f64 / (z + 1).saturating_sub(a).max(1) as f64,
                    (a, z) == (b0, b1),
                )
            };
            let bins = obs.slots.bins();
            let touched: Vec<usize> = if obs.slots.is_per_tick() {
                (from.max(1) as usize - 1..(to as usize).min(bins)).collect()
            } else {
                let o = obs.slots.origin;
                let b0 = (from.saturating_sub(o) / obs.slots.bin) as usize;
                let b1 = (to.saturating_sub(o) / obs.slots.bin) as usize;
                (b0..=b1.min(bins.saturating_sub(1))).collect()
            };
            let means: Vec<(f64, bool)> = touched.into_iter().map(per_bin).collect();
            let whole = means.iter().any(|m| m.1);
            let peak = means
                .iter()
                .filter(|m| m.1 || !whole)
                .map(|m| m.0)
                .fold(0.0, f64::max);
            return ratio(peak, calls / ticks);
        }
        Metric::Answered => served,
        Metric::Full => at(Counter::Full)?,
        Metric::Reduced => at(Counter::Reduced)?,
        Metric::FreshFields => at(Counter::Fresh)?,
        Metric::StaleFields => at(Counter::Stale)?,
        Metric::MissingFields => at(Counter::Missing)?,
        Metric::Bytes => at(Counter::Bytes)?,
        // As the degradation document prints it: 0 when nothing was answered.
        Metric::AvgBytes => {
            let b = at(Counter::Bytes)?;
            if served == 0.0 {
                0.0
            } else {
                b / served
            }
        }
        Metric::LastAnswered => at(Counter::LastAnswered)?,
        Metric::Unique => unique()?,
        Metric::SaturatedTicks => at(Counter::SaturatedTicks)?,
        Metric::CallRate => calls / ticks,
        Metric::ServedRate => served / ticks,
        Metric::UniqueRate => unique()? / ticks,
        Metric::Amplification => return ratio(calls, unique()?),
        // Answers to the calls made in the stretch, over those calls: on a
        // run that takes time an answer can come after the stretch (or a
        // call before it be answered in it), so the answers counted there
        // are those of the stretch's calls; a share of them stays a share.
        Metric::SuccessRate => {
            let answered = answers_to_calls(obs, node?, w, from, to).unwrap_or(served);
            return ratio(answered, calls);
        }
        _ => return None,
    })
}

/// On a run that takes time: the calls that arrived at `node` in named
/// window `w` (or, for no such window, in the series bins that start in
/// ticks `from..=to`) and were answered with success, whenever. `None` on a
/// run that takes no time, where a call is answered in its own tick.
fn answers_to_calls(obs: &Observations, node: usize, w: usize, from: u64, to: u64) -> Option<f64> {
    let t = obs.timed.as_ref()?;
    let n = t.nodes.get(node)?;
    if let Some(s) = n.windows.get(w) {
        if !crate::observed::recorded(t, Metric::SuccessRate, false) {
            return None;
        }
        return Some(s.answered_ok as f64);
    }
    if !crate::observed::recorded(t, Metric::SuccessRate, true) {
        return None;
    }
    let slots = &obs.slots;
    Some(
        (0..n.bins.len().min(slots.bins()))
            .filter(|&b| (from..=to).contains(&slots.bin_ticks(b).0))
            .map(|b| n.bins[b].answered_ok as f64)
            .sum(),
    )
}

/// A metric of a run that takes time, in named window `w` (`span` ticks
/// long): latency in
/// ticks of the file's clock, counts, time-weighted levels. `None` for a
/// metric that is not one of these, or a run in which nothing takes time.
fn timed_window(
    obs: &Observations,
    metric: Metric,
    (w, span): (usize, f64),
    node: Option<usize>,
) -> Option<f64> {
    let t = obs.timed.as_ref()?;
    if !crate::observed::recorded(t, metric, false) {
        return None;
    }
    if is_e2e(metric) {
        return quantile_metric(
            e2e_source(t, metric).windows.get(w)?,
            metric,
            t.units_per_tick,
        );
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
            _ => q.oldest_age as f64 / t.units_per_tick as f64,
        });
    }
    stretch_metric(n.windows.get(w)?, metric, t.units_per_tick, span)
}

/// A metric of a run that takes time in bin `b` of its series (as
/// [`timed_window`] for a window).
pub fn timed_bin(obs: &Observations, metric: Metric, b: usize, node: Option<usize>) -> Option<f64> {
    let t = obs.timed.as_ref()?;
    if !crate::observed::recorded(t, metric, true) {
        return None;
    }
    if is_e2e(metric) {
        return quantile_metric(e2e_source(t, metric).bins.get(b)?, metric, t.units_per_tick);
    }
    stretch_metric(
        t.nodes.get(node?)?.bins.get(b)?,
        metric,
        t.units_per_tick,
        t.bin_ticks.max(1) as f64,
    )
}

/// True for the end-to-end latency metrics (of every source's requests).
pub(crate) fn is_e2e(metric: Metric) -> bool {
    matches!(
        metric,
        Metric::E2eP50
            | Metric::E2eP99
            | Metric::E2eMean
            | Metric::E2eFailedP50
            | Metric::E2eFailedP99
            | Metric::E2eFailedMean
    )
}

/// The requests an end-to-end metric reads: completed ones, or for the
/// `e2e_failed_*` metrics failed ones.
pub(crate) fn e2e_source(t: &TimedObservations, metric: Metric) -> &TimedSource {
    match metric {
        Metric::E2eFailedP50 | Metric::E2eFailedP99 | Metric::E2eFailedMean => &t.failed,
        _ => &t.all,
    }
}

/// An end-to-end latency metric from its quantiles, in ticks: n/a when no
/// request ended in the stretch (a percentile of nothing is no number, and
/// 0 would pass `expect e2e_p99 < 1` on a run that served nothing).
fn quantile_metric(q: &Quantiles, metric: Metric, per_tick: u64) -> Option<f64> {
    let per = per_tick as f64;
    if q.count == 0 {
        return None;
    }
    Some(match metric {
        Metric::E2eP50 | Metric::E2eFailedP50 => q.p50 as f64 / per,
        Metric::E2eP99 | Metric::E2eFailedP99 => q.p99 as f64 / per,
        Metric::E2eMean | Metric::E2eFailedMean => q.mean / per,
        _ => return None,
    })
}

fn composite(model: &squall_lang::Model, node: usize) -> Option<&squall_lang::CompositeSpec> {
    model.nodes.get(node)?.composite.as_ref()
}
