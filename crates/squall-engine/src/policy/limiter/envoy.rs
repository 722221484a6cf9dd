//! Envoy's adaptive concurrency filter, its gradient controller
//! (`envoyproxy/envoy:source/extensions/filters/http/adaptive_concurrency/controller/gradient_controller.cc`,
//! commit c35f67f; defaults from
//! `api/envoy/extensions/filters/http/adaptive_concurrency/v3/adaptive_concurrency.proto`).
//!
//! * A try goes while the tries outstanding are under the limit
//!   (`forwardingDecision`); its round trip is a sample when it ends
//!   (`recordLatencySample`), unless it was sent before the current
//!   minRTT window opened; a try given up without an answer is only
//!   uncounted (`cancelLatencySample`).
//! * **minRTT window.** At the start, and `interval + U[0, ceil(interval x
//!   jitter))` after each minRTT is taken, the limit is pinned at
//!   `min_concurrency` (the old limit kept aside) and the samples are
//!   cleared. At the `request_count`-th sample since, minRTT = the samples'
//!   `sample_aggregate_percentile`, the old limit comes back, and the
//!   update timer starts again.
//! * **Update**, every `concurrency_update_interval` outside a minRTT
//!   window, when any sample came in: `sampleRTT` = the percentile of the
//!   samples (then cleared), `gradient = clamp((minRTT x (1 + buffer)) /
//!   sampleRTT, 0.5, 2)`, `L = trunc(L x gradient + sqrt(L x gradient))`
//!   clamped to `[min_concurrency, max_concurrency_limit]`. An update
//!   timer that falls inside a minRTT window is dropped.
//! * When the limit is set to `min_concurrency` from `min_concurrency` for
//!   the 5th time in a row outside a minRTT window, a new minRTT window
//!   opens at once.
//!
//! **Timers are evaluated lazily, and exactly.** Envoy runs its two timers
//! on the dispatcher; here they are kept as due times and fired, in the
//! order they fall due (the update first at a tie), at the next moment
//! the controller is asked or told anything, each at its own due time.
//! Between two such moments nothing the timers read (the samples, the
//! limit, the window) changes, and each timer sets its next due time from
//! its own due time, so the result is the one an event at each due time
//! would give; only the limit nobody asks for in a quiet stretch is not
//! updated until the next try.
//!
//! **Percentile.** Envoy takes it from a circllhist histogram (two
//! significant digits, interpolated in a bucket); squall takes it exactly
//! from the samples (the nearest rank, `ceil(q x n)`-th smallest): the two
//! differ by at most a bucket's width (a few percent).

use squall_lang::EnvoySpec;

use crate::rng::Stream;

/// The state of one gradient controller.
#[derive(Debug, Clone)]
pub struct Envoy {
    /// Its settings, the two intervals in engine units.
    cfg: EnvoySpec,
    limit: u32,
    /// The limit kept aside during a minRTT window; 0 outside one.
    deferred: u32,
    min_rtt: u64,
    sample_rtt: u64,
    /// When the current minRTT window opened: tries sent before are not
    /// sampled.
    epoch: u64,
    samples: Vec<u64>,
    /// Due times of the update timer and the minRTT timer.
    update_at: Option<u64>,
    min_rtt_at: Option<u64>,
    /// Updates in a row that set `min_concurrency` over `min_concurrency`.
    at_min: u32,
}

impl Envoy {
    /// A controller created at time 0: it opens a minRTT window at once
    /// and sets its update timer.
    pub fn new(cfg: EnvoySpec) -> Self {
        let mut e = Envoy {
            limit: cfg.min_concurrency,
            deferred: 0,
            min_rtt: 0,
            sample_rtt: 0,
            epoch: 0,
            samples: Vec::new(),
            update_at: None,
            min_rtt_at: None,
            at_min: 0,
            cfg,
        };
        e.enter_window(0);
        e.update_at = Some(e.cfg.update_interval);
        e
    }

    /// The current limit (after [`Self::advance`] to the moment asked).
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// The last minRTT and sampleRTT \[units\].
    pub fn rtts(&self) -> (u64, u64) {
        (self.min_rtt, self.sample_rtt)
    }

    /// True inside a minRTT window.
    pub fn in_window(&self) -> bool {
        self.deferred > 0
    }

    /// Fires every timer due at or before `now`, each at its own time.
    pub fn advance(&mut self, now: u64) {
        loop {
            let update = self.update_at.filter(|&t| t <= now);
            let min_rtt = self.min_rtt_at.filter(|&t| t <= now);
            match (update, min_rtt) {
                (Some(u), m) if m.is_none_or(|m| u <= m) => {
                    self.update_at = None;
                    if !self.in_window() {
                        self.reset_sample_window(u);
                        self.update_at = Some(u.saturating_add(self.cfg.update_interval));
                    }
                }
                (_, Some(m)) => {
                    self.min_rtt_at = None;
                    self.enter_window(m);
                }
                _ => return,
            }
        }
    }

    /// A try sent at `sent` ended at `now` with an answer (or a timeout):
    /// its round trip is a sample.
    pub fn record(&mut self, now: u64, sent: u64, stream: &mut Stream) {
        if sent < self.epoch {
            return;
        }
        self.samples.push(now.saturating_sub(sent).max(1));
        if self.in_window() && self.samples.len() >= self.cfg.request_count as usize {
            self.min_rtt = self.percentile();
            let deferred = self.deferred;
            self.set_limit(deferred, now);
            self.deferred = 0;
            let range = (self.cfg.min_rtt_interval as f64 * self.cfg.jitter).ceil() as u64;
            let jitter = if range == 0 {
                0
            } else {
                ((stream.next_f64() * range as f64) as u64).min(range - 1)
            };
            self.min_rtt_at = Some(now.saturating_add(self.cfg.min_rtt_interval + jitter));
            self.update_at = Some(now.saturating_add(self.cfg.update_interval));
        }
    }

    /// `enterMinRTTSamplingWindow` at `t`.
    fn enter_window(&mut self, t: u64) {
        if self.in_window() {
            return;
        }
        self.deferred = self.limit;
        self.set_limit(self.cfg.min_concurrency, t);
        self.samples.clear();
        self.epoch = t;
    }

    /// `resetSampleWindow` at `t`.
    fn reset_sample_window(&mut self, t: u64) {
        if self.samples.is_empty() {
            return;
        }
        self.sample_rtt = self.percentile();
        let buffered = self.min_rtt as f64 + self.min_rtt as f64 * self.cfg.buffer;
        let gradient = (buffered / self.sample_rtt as f64).clamp(0.5, 2.0);
        let limit = f64::from(self.limit) * gradient;
        // `const uint32_t new_limit = limit + burst_headroom`: truncation.
        let next = (limit + limit.sqrt()) as u32;
        let next = next.min(self.cfg.max_limit).max(self.cfg.min_concurrency);
        self.set_limit(next, t);
    }

    /// `updateConcurrencyLimit` at `t`.
    fn set_limit(&mut self, limit: u32, t: u64) {
        let (old, min) = (self.limit, self.cfg.min_concurrency);
        self.limit = limit;
        if !self.in_window() && old == min && limit == min {
            self.at_min += 1;
        } else {
            self.at_min = 0;
        }
        if self.at_min >= 5 {
            self.min_rtt_at = Some(t);
        }
    }

    /// The samples' percentile (nearest rank), and the samples cleared.
    fn percentile(&mut self) -> u64 {
        self.samples.sort_unstable();
        let n = self.samples.len();
        let rank = ((self.cfg.percentile * n as f64).ceil() as usize).clamp(1, n);
        let q = self.samples[rank - 1];
        self.samples.clear();
        q
    }
}
