//! Telling demand from a retry storm.
//!
//! When the calls a node sees rise between a baseline window and a window
//! under suspicion, two causes give the same symptom:
//!
//! * **demand** — more requests arrive at the edge, and the node sees more
//!   distinct request ids; calls per id (amplification) stay flat;
//! * **retry storm** — the edge rate and the distinct ids stay flat, the
//!   amplification rises and the success rate falls: the same requests come
//!   back again and again.
//!
//! A rise is a change of more than [`TOLERANCE`] (10 %). Separately, the node
//! sits at its **capacity limit** when it refused calls for capacity in at
//! least [`SATURATED_SHARE`] of the window's ticks: served calls per tick
//! (call rate x success) then cannot grow, and extra tries only take a share
//! from other requests. On a run that takes time the window is read in the
//! bins of its series that start in it, and the node is at its limit in a
//! bin when its workers are all busy, its queue grows, or it refuses calls
//! for capacity (see [`saturation`](crate::saturation)); the clause then
//! names the bottleneck of the request's path when it is another node. With `against V`, the served rate is compared with
//! variant `V`'s in the same window.

use squall_lang::{DiagnoseSpec, Metric, RunKey};

use crate::eval::run_window_metric;
use crate::number::to_fixed;
use crate::study::Study;

pub use crate::bins::TOLERANCE;
pub use crate::saturation::SATURATED_SHARE;

/// The cause a diagnosis names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// Calls did not rise.
    NoRise,
    /// More requests.
    Demand,
    /// The same requests, retried.
    RetryStorm,
    /// Both more requests and more calls per request.
    Both,
    /// Calls rose, but neither pattern fits.
    Unclear,
}

impl Cause {
    /// Words for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Cause::NoRise => "no rise in calls",
            Cause::Demand => "demand (more requests, not more calls per request)",
            Cause::RetryStorm => "retry storm (the same requests, called again and again)",
            Cause::Both => "demand and retries together",
            Cause::Unclear => "calls rose, but neither demand nor retries explain it",
        }
    }
}

/// Classifies a change from the ratios of window to baseline.
pub fn classify(calls: f64, edge: f64, unique: f64, amplification: f64) -> Cause {
    let rose = |r: f64| r > 1.0 + TOLERANCE;
    if !rose(calls) {
        return Cause::NoRise;
    }
    match (rose(unique) || rose(edge), rose(amplification)) {
        (true, false) => Cause::Demand,
        (false, true) => Cause::RetryStorm,
        (true, true) => Cause::Both,
        (false, false) => Cause::Unclear,
    }
}

struct Side {
    /// On a run that takes time: how the node stood against its capacity
    /// in the window's bins.
    saturation: Option<crate::saturation::Saturation>,
    edge: f64,
    unique: f64,
    calls: f64,
    amplification: Option<f64>,
    success: Option<f64>,
    served: f64,
    saturated: f64,
    ticks: f64,
}

impl Study<'_> {
    fn side(&self, key: RunKey, window: usize, node: usize) -> Option<Side> {
        let run = self.runs.get(&key)?;
        let w = run.model.windows.get(window)?;
        let m = |metric| run_window_metric(run, metric, window, Some(node));
        Some(Side {
            saturation: crate::saturation::saturation(run, w.from, w.to, node),
            edge: m(Metric::EdgeRate)?,
            unique: m(Metric::UniqueRate)?,
            calls: m(Metric::CallRate)?,
            amplification: m(Metric::Amplification),
            success: m(Metric::SuccessRate),
            served: m(Metric::ServedRate)?,
            saturated: m(Metric::SaturatedTicks)?,
            ticks: m(Metric::Ticks)?,
        })
    }

    /// One verdict line per selected variant.
    pub fn diagnose(&self, d: &DiagnoseSpec) -> Vec<String> {
        let s = self.scenario;
        let node = &s.nodes[d.node].name;
        let (wname, bname) = (&s.windows[d.window].0, &s.windows[d.baseline].0);
        let tick_unit = s.clock.unit_name();
        // Only a round has a plural; `ms` and `s` are symbols.
        let units = plural_unit(s.clock);
        let mut out = Vec::new();
        for v in (0..s.variants.len()).filter(|&v| self.includes_variant(v)) {
            let key = RunKey::Variant(v);
            let (Some(mut w), Some(mut b)) = (
                self.side(key, d.window, d.node),
                self.side(key, d.baseline, d.node),
            ) else {
                continue;
            };
            // A run that takes time at a clock finer than a second holds
            // a few calls per tick: its rates read per second.
            let timed = self.runs.get(&key).is_some_and(|r| r.obs.timed.is_some());
            let per_second = match s.clock.tick_millis() {
                Some(ms) if timed && ms < 1000 => Some(1000.0 / ms as f64),
                _ => None,
            };
            let unit = if per_second.is_some() { "s" } else { tick_unit };
            if let Some(k) = per_second {
                for side in [&mut w, &mut b] {
                    side.scale(k);
                }
            }
            let r = |a: f64, b: f64| {
                if b == 0.0 {
                    if a == 0.0 {
                        1.0
                    } else {
                        f64::INFINITY
                    }
                } else {
                    a / b
                }
            };
            let amp_ratio = match (w.amplification, b.amplification) {
                (Some(a), Some(bb)) => r(a, bb),
                _ => 1.0,
            };
            let cause = classify(
                r(w.calls, b.calls),
                r(w.edge, b.edge),
                r(w.unique, b.unique),
                amp_ratio,
            );
            let f2 = |x: f64| to_fixed(x, 2);
            let opt = |x: Option<f64>, d: usize| x.map_or("—".to_string(), |x| to_fixed(x, d));
            let run = self.runs.get(&key);
            let (saturated, refused) = match (w.saturation, run) {
                (Some(sat), Some(run)) => (sat.saturated(), sat.describe(&bin_width(run))),
                _ => (
                    w.saturated >= SATURATED_SHARE * w.ticks,
                    format!("calls refused in {} of {} {units}", w.saturated, w.ticks),
                ),
            };
            let mut capacity = if saturated {
                format!(
                    "`{node}` is at its capacity limit ({refused}): it serves {}/{unit} however many calls arrive",
                    f2(w.served)
                )
            } else {
                format!(
                    "`{node}` is not at its capacity limit ({refused}); it serves {}/{unit}",
                    f2(w.served)
                )
            };
            if let Some(run) = run {
                capacity.push_str(&bottleneck_clause(run, d.window, d.node));
                capacity.push_str(&crate::shed::shed_clause(run, d.window, d.node, saturated));
            }
            if let Some(a) = d.against {
                if a != v && saturated {
                    if let Some(mut other) = self.side(RunKey::Variant(a), d.window, d.node) {
                        if let Some(k) = per_second {
                            other.scale(k);
                        }
                        let same =
                            (w.served - other.served).abs() <= TOLERANCE * other.served.max(1e-12);
                        capacity.push_str(&format!(
                            "; {} served {}/{unit} with {} calls/{unit}{}",
                            s.variants[a].label,
                            f2(other.served),
                            f2(other.calls),
                            if same && w.calls > other.calls * (1.0 + TOLERANCE) {
                                ": the extra calls served nothing"
                            } else {
                                ""
                            }
                        ));
                    }
                }
            }
            out.push(format!(
                "diagnosis, {}: {wname} vs {bname} at `{node}`: {}. edge {} -> {}/{unit}, unique ids {} -> {}/{unit}, calls {} -> {}/{unit}, amplification {} -> {}, success {} -> {}. {}.",
                s.variants[v].label,
                cause.describe(),
                f2(b.edge),
                f2(w.edge),
                f2(b.unique),
                f2(w.unique),
                f2(b.calls),
                f2(w.calls),
                opt(b.amplification, 2),
                opt(w.amplification, 2),
                opt(b.success, 4),
                opt(w.success, 4),
                capacity
            ));
            if timed {
                if let Some(line) = self.outlived(key, d, &b, per_second) {
                    out.push(line);
                }
            }
        }
        out
    }

    /// Whether the overload at the node outlived the last fault that ended
    /// before the window's end: read on bins from the fault's end, a bin is
    /// overloaded while its calls exceed the baseline's by more than
    /// [`TOLERANCE`].
    fn outlived(
        &self,
        key: RunKey,
        d: &DiagnoseSpec,
        baseline: &Side,
        per_second: Option<f64>,
    ) -> Option<String> {
        let s = self.scenario;
        let run = self.runs.get(&key)?;
        let window = run.model.windows.get(d.window)?;
        let fault = run
            .model
            .faults
            .iter()
            .filter(|f| f.to < window.to)
            .max_by_key(|f| f.to)?;
        let bin = crate::eval::bin_ticks(run);
        // The baseline's calls per tick (the side is per second when scaled).
        let base = baseline.calls / per_second.unwrap_or(1.0);
        let threshold = (1.0 + TOLERANCE) * base;
        let node = &s.nodes[d.node].name;
        let label = &s.variants[key_variant(key)?].label;
        let bins = format!("bins of {}", span(s.clock, bin));
        let (bname, fname) = (&s.windows[d.baseline].0, &fault.name);
        let verdict = crate::recovery::node_verdict(
            &run.model,
            &run.obs,
            d.node,
            (fault.from, fault.to),
            threshold,
        )?;
        let pct = TOLERANCE * 100.0;
        Some(match verdict {
            crate::bins::Recovery::After(t) => format!(
                "recovery, {label}: `{node}` recovered {} after `{fname}` ended ({bins}): calls back within {pct:.0} % of {bname} and requests completing at their share before the fault, less {pct:.0} % (counted from the fault's end to the start of the first bin back to normal).",
                span(s.clock, t),
            ),
            crate::bins::Recovery::Overloaded { bins: n } => format!(
                "recovery, {label}: `{node}` is still overloaded {n} bins after `{fname}` ended, to the end of the run ({bins}): the overload outlived its trigger (metastable)."
            ),
            crate::bins::Recovery::Starved {
                calm,
                share,
                normal,
            } => format!(
                "recovery, {label}: `{node}` is starved, not recovered: its calls are back within {pct:.0} % of {bname} from {} after `{fname}` ended, but the requests that end from then to the end of the run complete at a share of {}, against {} before the fault ({bins}): too little gets through it.",
                span(s.clock, calm),
                to_fixed(share, 3),
                to_fixed(normal, 3),
            ),
        })
    }
}

/// On a run that takes time, where the bottleneck of the paths through
/// `node` in window `window` is another node: `; the bottleneck on its
/// path is ...`, naming it and its evidence. Empty otherwise.
fn bottleneck_clause(run: &crate::study::Run, window: usize, node: usize) -> String {
    let Some(w) = run.model.windows.get(window) else {
        return String::new();
    };
    match crate::saturation::bottleneck(run, w.from, w.to, node) {
        Some(b) if b.node != node => {
            let name = run.model.nodes.get(b.node).map_or("?", |n| n.name.as_str());
            let path = crate::saturation::path(&run.model, node);
            let at = |n: usize| path.iter().position(|&p| p == n);
            let where_ = if at(b.node) > at(node) {
                "below it: its workers wait on it"
            } else {
                "above it: it refuses or holds the calls before they arrive"
            };
            format!(
                "; the bottleneck on its path is `{name}`, {where_}, at its capacity limit ({})",
                b.describe(&bin_width(run))
            )
        }
        _ => String::new(),
    }
}

/// The width of a run's series bins in the clock's words (`1 s`).
fn bin_width(run: &crate::study::Run) -> String {
    let width = run.obs.timed.as_ref().map_or(1, |t| t.bin_ticks);
    span(run.model.clock, width)
}

fn key_variant(key: RunKey) -> Option<usize> {
    match key {
        RunKey::Variant(v) => Some(v),
        _ => None,
    }
}

/// A stretch of `ticks` in the clock's words: seconds where the clock is
/// a wall clock (`12 s`, `0.5 s`), rounds otherwise.
pub(crate) fn span(clock: squall_lang::Clock, ticks: u64) -> String {
    match clock.tick_millis() {
        Some(ms) => {
            let secs = (ticks * ms) as f64 / 1000.0;
            let digits = if secs.fract() == 0.0 { 0 } else { 3 };
            format!("{} s", to_fixed(secs, digits))
        }
        None if ticks == 1 => "1 round".to_string(),
        None => format!("{ticks} rounds"),
    }
}

impl Side {
    /// Rates per tick to rates per `k` ticks.
    fn scale(&mut self, k: f64) {
        self.edge *= k;
        self.unique *= k;
        self.calls *= k;
        self.served *= k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        assert_eq!(classify(1.0, 1.0, 1.0, 1.0), Cause::NoRise);
        assert_eq!(classify(2.0, 2.0, 2.0, 1.0), Cause::Demand);
        assert_eq!(classify(6.25, 1.0, 1.0, 6.25), Cause::RetryStorm);
        assert_eq!(classify(4.0, 2.0, 2.0, 2.0), Cause::Both);
        assert_eq!(classify(1.5, 1.0, 1.0, 1.05), Cause::Unclear);
    }
}

/// The unit of `clock` after a count other than one: `rounds`, but `ms` and
/// `s` (symbols take no plural).
pub(crate) fn plural_unit(clock: squall_lang::Clock) -> &'static str {
    match clock {
        squall_lang::Clock::Round => "rounds",
        other => other.unit_name(),
    }
}

#[cfg(test)]
mod unit_tests {
    use super::plural_unit;
    use squall_lang::Clock;

    #[test]
    fn only_rounds_take_a_plural() {
        assert_eq!(plural_unit(Clock::Round), "rounds");
        assert_eq!(plural_unit(Clock::Ms), "ms");
        assert_eq!(plural_unit(Clock::S), "s");
    }
}
