//! Breaker state over time: the share of each bin a node's breaker spent
//! open and half-open, from the engine's [`BreakerLog`].
//!
//! A breaker's state holds from the tick it changed to until its next
//! change; the tick of a change counts in the new state (on a run that
//! takes no time the change happens inside that tick; on one that takes
//! time, some time within it). A bin's value is the ticks in the state
//! over the bin's ticks, so 1 is a bin the breaker was open throughout.
//! A node with several breakers gives their mean: with `clients N` at the
//! node, the share of the clients' breakers that were open (the node's own
//! breaker, which guards only the sources without clients, is left out);
//! with `per path`, the share of its per-path breakers. Both engine paths
//! log the same changes in ticks, so one rule draws both.

use squall_engine::observe::BreakerLog;
use squall_engine::policy::breaker::State;
use squall_lang::ChartSeries;

use super::binned_series::{BinnedSeries, SeriesLine};
use super::from_study::{axis_unit, fault_windows, ticks_per_second, Grid, MAX_BINS};
use crate::study::Study;

/// The breakers of a log a chart averages over: `(first, count)`.
fn charted(log: &BreakerLog) -> (u32, u32) {
    if log.total > log.shared {
        (log.shared, log.total - log.shared)
    } else {
        (0, log.total)
    }
}

/// Per bin of `grid`, the mean over the charted breakers of the share of
/// the bin's ticks they spent in `state`, for a run of `ticks` ticks.
pub(super) fn state_share(
    log: &BreakerLog,
    state: State,
    grid: &Grid,
    ticks: u64,
) -> Vec<Option<f64>> {
    let (first, count) = charted(log);
    let mut held = vec![0u64; grid.bins as usize];
    // Adds ticks `a..=b` in the state to the bins they fall in.
    let mut add = |a: u64, b: u64| {
        let (a, b) = (a.max(grid.start), b.min(ticks));
        if a > b {
            return;
        }
        let mut t = a;
        while t <= b {
            let bin = (t - grid.start) / grid.width;
            let bin_end = (grid.start + (bin + 1) * grid.width - 1).min(b);
            if let Some(h) = held.get_mut(bin as usize) {
                *h += bin_end + 1 - t;
            }
            t = bin_end + 1;
        }
    };
    // Since when each charted breaker has been in `state` (`None`: not in it).
    let mut since: Vec<Option<u64>> = vec![None; count as usize];
    for c in &log.changes {
        let Some(k) = c.breaker.checked_sub(first).filter(|&k| k < count) else {
            continue;
        };
        let k = k as usize;
        if c.from == state {
            if let Some(s) = since[k].take() {
                add(s, c.tick.saturating_sub(1));
            }
        }
        if c.to == state {
            since[k] = Some(c.tick);
        }
    }
    for s in since.into_iter().flatten() {
        add(s, ticks);
    }
    (0..grid.bins)
        .map(|b| {
            let (from, to) = grid.ticks(b, ticks)?;
            let span = (to + 1 - from) as f64 * f64::from(count.max(1));
            Some(held[b as usize] as f64 / span)
        })
        .collect()
}

impl Study<'_> {
    /// The share of each bin `node`'s breaker spent open, half-open, or
    /// (`BreakerState`) each of the two, one line per variant run and
    /// state, fault windows shaded.
    pub fn breaker_binned(&self, series: ChartSeries, node: usize) -> BinnedSeries {
        let runs = self.chart_runs();
        let grid = Grid::of(&runs, MAX_BINS);
        let states: &[(State, &str)] = match series {
            ChartSeries::BreakerOpen => &[(State::Open, "open")],
            ChartSeries::BreakerHalfOpen => &[(State::HalfOpen, "half-open")],
            _ => &[(State::Open, "open"), (State::HalfOpen, "half-open")],
        };
        let both = states.len() > 1;
        let mut of = String::new();
        let mut lines = Vec::new();
        for r in &runs {
            let log = r.obs.breakers.get(node);
            if let Some(log) = log {
                let (_, count) = charted(log);
                if count > 1 && of.is_empty() {
                    of = if log.total > log.shared {
                        format!(" of {count} clients' breakers")
                    } else {
                        format!(" of {count} per-path breakers")
                    };
                }
            }
            let variant = self.run_label(r.key);
            for &(state, word) in states {
                let label = match (both, runs.len() > 1) {
                    (true, true) => format!("{variant}: {word}"),
                    (true, false) => word.to_string(),
                    (false, _) => variant.clone(),
                };
                let values = match log {
                    Some(log) => state_share(log, state, &grid, r.model.ticks),
                    None => (0..grid.bins)
                        .map(|b| grid.ticks(b, r.model.ticks).map(|_| 0.0))
                        .collect(),
                };
                lines.push(SeriesLine { label, values });
            }
        }
        let word = if both { "state" } else { states[0].1 };
        let what = if both {
            format!("share{of} in the state")
        } else {
            format!("share{of} {word}")
        };
        // Under a clock finer than a second the time axis reads in
        // seconds, as the other charts do (a share needs no scaling).
        let clock = self.scenario.clock;
        let per_second = ticks_per_second(clock);
        let bin = match per_second {
            Some(_) => crate::diagnose::span(clock, grid.width),
            None => format!("{}-{}", grid.width, clock.unit_name()),
        };
        let title = format!(
            "{}: breaker {word} at `{}`, share of each {bin} bin",
            self.scenario.name,
            self.node_name(node),
        );
        let series = grid.series(title, what, axis_unit(clock), lines, fault_windows(&runs));
        match per_second {
            Some(k) => series.in_seconds(k, false),
            None => series,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_engine::observe::BreakerChange;

    fn change(tick: u64, breaker: u32, from: State, to: State) -> BreakerChange {
        BreakerChange {
            tick,
            breaker,
            from,
            to,
        }
    }

    #[test]
    fn the_share_of_each_bin_a_breaker_was_open() {
        use State::*;
        let log = BreakerLog {
            shared: 1,
            total: 1,
            changes: vec![
                change(3, 0, Closed, Open),
                change(8, 0, Open, HalfOpen),
                change(8, 0, HalfOpen, Open),
                change(13, 0, Open, HalfOpen),
                change(13, 0, HalfOpen, Closed),
            ],
        };
        // Ticks 1..=20 in bins of 5: open on ticks 3..=12.
        let grid = Grid {
            start: 1,
            width: 5,
            bins: 4,
            engine: 1,
            per: 1,
        };
        let open = state_share(&log, Open, &grid, 20);
        assert_eq!(open, vec![Some(0.6), Some(1.0), Some(0.4), Some(0.0)]);
        // Half-open only within ticks that turned open again: no time.
        let half = state_share(&log, HalfOpen, &grid, 20);
        assert_eq!(half, vec![Some(0.0); 4]);
    }

    #[test]
    fn clients_breakers_are_averaged_and_the_last_bin_is_partial() {
        use State::*;
        // Breaker 0 is the node's own; 1 and 2 are two clients'.
        let log = BreakerLog {
            shared: 1,
            total: 3,
            changes: vec![
                change(1, 0, Closed, Open),
                change(2, 1, Closed, Open),
                change(5, 2, Closed, Open),
                change(6, 2, Open, HalfOpen),
            ],
        };
        let grid = Grid {
            start: 1,
            width: 4,
            bins: 2,
            engine: 1,
            per: 1,
        };
        // Ticks 1..=4: client 1 open on 2..=4 (3 of 8 client-ticks);
        // ticks 5..=6: client 1 on both, client 2 on 5 (3 of 4).
        let open = state_share(&log, Open, &grid, 6);
        assert_eq!(open, vec![Some(3.0 / 8.0), Some(0.75)]);
        let half = state_share(&log, HalfOpen, &grid, 6);
        assert_eq!(half, vec![Some(0.0), Some(0.25)]);
    }
}
