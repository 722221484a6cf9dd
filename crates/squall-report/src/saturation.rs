//! Whether a node of a run that takes time is at its capacity limit, and
//! which node on a request's path is the bottleneck.
//!
//! A node is at its limit in a bin of the run's series when one of these
//! holds there:
//!
//! * **its workers are all busy**: calls holding a worker, time-weighted
//!   over the bin, are at least [`BUSY_SHARE`] of its workers (those a
//!   fault in force at the bin's start leaves it, else its own);
//! * **its queue grows**: the bin's mean queue length is above the bin
//!   before's (above 0 for the run's first bin);
//! * **it refuses calls for capacity**: a full queue (`overflow`), the rate
//!   limit (`throttled`), a queue timeout, or the per-tick `capacity`.
//!
//! It is **saturated** over a window when it is at its limit in at least
//! [`SATURATED_SHARE`] of the bins that start in the window. A node holds
//! its worker while it waits for its downstream (a thread-per-request
//! server), so a slow node saturates the pools above it too: the
//! **bottleneck** of a path is the saturated node farthest down it, the
//! one the others wait on.

use crate::run::Run;

/// Share of a node's workers that, busy on average over a bin, counts as
/// all of them busy (a pool at 90 % has no room for a burst).
pub const BUSY_SHARE: f64 = 0.90;
/// Share of a window's bins at the limit that marks a node saturated.
pub const SATURATED_SHARE: f64 = 0.90;

/// How a node stood against its capacity in a window's bins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Saturation {
    /// The node.
    pub node: usize,
    /// Its workers, if it has a limit.
    pub workers: Option<u32>,
    /// Bins of the series that start in the window.
    pub bins: usize,
    /// Of those, bins with every worker busy.
    pub busy: usize,
    /// Bins in which the queue grew.
    pub growing: usize,
    /// Bins with a call refused for capacity.
    pub refused: usize,
    /// Bins with any of the three.
    pub at_limit: usize,
}

impl Saturation {
    /// True when the node is at its limit in most of the window's bins.
    pub fn saturated(&self) -> bool {
        self.bins > 0 && self.at_limit as f64 >= SATURATED_SHARE * self.bins as f64
    }

    /// The evidence in words, for a report line, with the bins' width in
    /// words (`1 s`): `all 4 workers busy in 15 of 15 bins of 1 s, its
    /// queue growing in 14, calls refused for capacity — queue full, rate
    /// limit, queue timeout — in 0`.
    pub fn describe(&self, width: &str) -> String {
        let of = format!("of {} bins of {width}", self.bins);
        let refused = "calls refused for capacity — queue full, rate limit, queue timeout — in";
        match self.workers {
            Some(w) => format!(
                "all {w} workers busy in {} {of}, its queue growing in {}, {refused} {}",
                self.busy, self.growing, self.refused
            ),
            None => format!("{refused} {} {of}", self.refused),
        }
    }
}

/// How `node` stood against its capacity in the bins of the run's series
/// that start in ticks `from..=to`; `None` on a run that takes no time.
pub fn saturation(run: &Run, from: u64, to: u64, node: usize) -> Option<Saturation> {
    let t = run.obs.timed.as_ref()?;
    // Levels and refusals per bin.
    if !crate::observed::recorded(t, squall_lang::Metric::InService, true) {
        return None;
    }
    let bins = &t.nodes.get(node)?.bins;
    let spec = run.model.nodes.get(node)?;
    let own = spec.server.as_ref().and_then(|s| s.workers);
    let refused = &run.obs.nodes.get(node)?.refused;
    let width = t.bin_ticks.max(1);
    let mut s = Saturation {
        node,
        workers: own,
        bins: 0,
        busy: 0,
        growing: 0,
        refused: 0,
        at_limit: 0,
    };
    for (b, bin) in bins.iter().enumerate() {
        let first = run.model.start + b as u64 * width;
        if first < from || first > to {
            continue;
        }
        let last = (first + width - 1).min(run.model.ticks);
        s.bins += 1;
        let workers = run
            .model
            .faults
            .iter()
            .filter(|f| f.node == node && f.from <= first && first <= f.to)
            .find_map(|f| f.timed.workers)
            .or(own);
        let busy =
            workers.is_some_and(|w| w > 0 && bin.in_service_mean >= BUSY_SHARE * f64::from(w));
        let before = b.checked_sub(1).map_or(0.0, |p| bins[p].queue_mean);
        let growing = bin.queue_mean > before;
        let n =
            run.obs.total(refused, first, last) + bin.overflow + bin.throttled + bin.queue_timeouts;
        s.busy += usize::from(busy);
        s.growing += usize::from(growing);
        s.refused += usize::from(n > 0);
        s.at_limit += usize::from(busy || growing || n > 0);
    }
    Some(s)
}

/// The nodes on the paths of requests through `node`, from the top down:
/// the nodes that call it (directly or through others; the farthest up
/// first), `node`, then the nodes it calls, in order.
pub fn path(model: &squall_lang::Model, node: usize) -> Vec<usize> {
    let below = |n: usize| model.nodes.get(n).and_then(|s| s.downstream);
    // Each node above `node`, with how many calls down it is from it.
    let mut above: Vec<(usize, usize)> = (0..model.nodes.len())
        .filter(|&n| n != node)
        .filter_map(|n| {
            let mut cur = n;
            for depth in 1..=model.nodes.len() {
                cur = below(cur)?;
                if cur == node {
                    return Some((depth, n));
                }
            }
            None
        })
        .collect();
    above.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<usize> = above.into_iter().map(|(_, n)| n).collect();
    out.push(node);
    let mut cur = node;
    while let Some(d) = below(cur) {
        if out.contains(&d) {
            break;
        }
        out.push(d);
        cur = d;
    }
    out
}

/// The bottleneck on the paths through `node` in ticks `from..=to`: the
/// saturated node farthest down them, if any is saturated.
pub fn bottleneck(run: &Run, from: u64, to: u64, node: usize) -> Option<Saturation> {
    path(&run.model, node)
        .into_iter()
        .rev()
        .filter_map(|n| saturation(run, from, to, n))
        .find(Saturation::saturated)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(downstream: &[Option<usize>]) -> squall_lang::Model {
        squall_lang::Model {
            nodes: downstream
                .iter()
                .enumerate()
                .map(|(i, &d)| squall_lang::NodeSpec {
                    name: format!("n{i}"),
                    downstream: d,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// A chain 0 -> 1 -> 2 -> 3 and a second caller 4 -> 2: the path
    /// through 2 is its callers, farthest first (0, then 1 and 4 one call
    /// up, in node order), 2, then 3.
    #[test]
    fn paths_run_from_the_top_down() {
        let m = model(&[Some(1), Some(2), Some(3), None, Some(2)]);
        assert_eq!(path(&m, 2), vec![0, 1, 4, 2, 3]);
        assert_eq!(path(&m, 0), vec![0, 1, 2, 3]);
        assert_eq!(path(&m, 3), vec![0, 1, 4, 2, 3]);
    }

    /// 90 % of ten bins is nine.
    #[test]
    fn saturated_is_most_bins() {
        let s = |at_limit| Saturation {
            node: 0,
            workers: Some(4),
            bins: 10,
            busy: 0,
            growing: 0,
            refused: 0,
            at_limit,
        };
        assert!(s(9).saturated());
        assert!(!s(8).saturated());
        assert!(!Saturation { bins: 0, ..s(0) }.saturated());
    }
}
