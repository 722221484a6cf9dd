//! One sender's finished run in a study: which variant, which sender, what
//! it ran and what it measured; and the values paths such as
//! `fixed.outbox.delivered` read from it.

use squall_engine::sending::{run_senders as run_all, SendObservations};
use squall_lang::model::sending::SendSpec;
use squall_lang::{Overrides, RunKey, Scenario, SendMetric};

use crate::error::StudyError;

/// A sender's run.
#[derive(Debug, Clone)]
pub struct SendRun {
    /// The variant.
    pub key: RunKey,
    /// The sender's name.
    pub sender: String,
    /// What ran.
    pub spec: SendSpec,
    /// What it measured.
    pub obs: SendObservations,
}

/// The senders of the run `o` (its overrides carry its seed), resolved:
/// `(name, study)` in declaration order; none without senders.
pub fn sender_specs(
    scenario: &Scenario,
    o: &Overrides,
) -> Result<Vec<(String, SendSpec)>, StudyError> {
    scenario
        .sending(o)
        .map_err(|l| StudyError::Invalid(scenario.diagnostics(l)))
}

/// Runs a run's senders together, in one run of the engine, so senders
/// naming one provider share it: one [`SendRun`] per sender, in order.
pub fn run_senders(
    key: RunKey,
    specs: Vec<(String, SendSpec)>,
) -> Result<Vec<SendRun>, StudyError> {
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let (names, specs): (Vec<String>, Vec<SendSpec>) = specs.into_iter().unzip();
    let observed = run_all(&specs)?;
    Ok(names
        .into_iter()
        .zip(specs)
        .zip(observed)
        .map(|((sender, spec), obs)| SendRun {
            key,
            sender,
            spec,
            obs,
        })
        .collect())
}

/// Bad records among the first `n` with `share` bad: the engine spreads
/// them evenly, record `i` bad when `floor((i+1) s) > floor(i s)`, so
/// `floor(n s)` of them (with the engine's rounding).
fn bad_records(n: u64, share: f64) -> u64 {
    let s = share.clamp(0.0, 1.0);
    (n as f64 * s).floor() as u64
}

impl SendRun {
    /// The value of `metric` over the run.
    pub fn value(&self, metric: SendMetric) -> Option<f64> {
        let o = &self.obs;
        let st = o.states;
        let throttles = o.attempts.iter().filter(|a| a.throttled).count() as u64;
        let n = |x: u64| Some(x as f64);
        match metric {
            SendMetric::Records => n(st.created),
            SendMetric::Attempts => n(o.attempts.len() as u64),
            SendMetric::Throttles => n(throttles),
            SendMetric::PermanentFailures => n(st.failed + st.rejected),
            SendMetric::Failed => n(st.failed),
            SendMetric::Rejected => n(st.rejected),
            SendMetric::Delivered => n(st.submitted),
            SendMetric::Deferred => n(st.deferred),
            SendMetric::Pending => n(st.pending),
            SendMetric::Queued => n(st.queued),
            SendMetric::InFlight => n(st.in_flight),
            SendMetric::Unaccounted => Some(st.created as f64 - st.accounted() as f64),
            SendMetric::BadRecords => {
                if self.spec.provider.bad_codes.is_empty() {
                    n(0)
                } else {
                    n(bad_records(st.created, self.spec.provider.bad_share))
                }
            }
            SendMetric::ThrottleRatio => {
                (!o.attempts.is_empty()).then(|| throttles as f64 / o.attempts.len() as f64)
            }
            SendMetric::OldestWaiting => Some(o.oldest_waiting),
            SendMetric::MaxBinDelivered => {
                o.bins.iter().map(|b| b.delivered).max().map(|x| x as f64)
            }
            SendMetric::MaxBinThrottles => {
                o.bins.iter().map(|b| b.throttled).max().map(|x| x as f64)
            }
            SendMetric::MinBinThrottles => o
                .bins
                .iter()
                .skip(1)
                .map(|b| b.throttled)
                .min()
                .map(|x| x as f64),
        }
    }
}
