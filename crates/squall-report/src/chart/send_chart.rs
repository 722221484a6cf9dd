//! A sender's series over time: one line per variant of the run's bins
//! (a minute for the document's query), from [`SendObservations::bins`].
//!
//! The counts (`attempts`, `throttles`, `delivered`) are drawn per second
//! — the bin's count over its seconds — so that they read against the send
//! rate and the provider's ceiling, which the per-second series mark as a
//! dashed level. `send_rate` is the rate gating attempts at the end of the
//! bin, `throttle_ratio` the bin's throttled attempts over its attempts
//! (no value in a bin without attempts), `oldest_waiting` the age of the
//! oldest record not yet final at the end of the bin. The time axis is in
//! minutes when the bins are whole minutes, in seconds otherwise, counted
//! from the scenario's `epoch` (`min from 09:00 UTC`) when it has one.

use squall_engine::sending::{SendBin, SendObservations};
use squall_lang::SendSeries;

use super::binned_series::{BinnedSeries, Level, SeriesLine};
use crate::sending::utc::utc_text;
use crate::study::Study;

/// A bin's value of `series`, `secs` seconds wide.
fn bin_value(series: SendSeries, b: &SendBin, secs: f64) -> Option<f64> {
    let per_second = |n: u64| (secs > 0.0).then(|| n as f64 / secs);
    match series {
        SendSeries::SendRate => Some(b.rate),
        SendSeries::Attempts => per_second(b.attempts),
        SendSeries::Throttles => per_second(b.throttled),
        SendSeries::Delivered => per_second(b.delivered),
        SendSeries::ThrottleRatio => {
            (b.attempts > 0).then(|| b.throttled as f64 / b.attempts as f64)
        }
        SendSeries::OldestWaiting => Some(b.oldest_waiting),
    }
}

/// What a bin's value of `series` is, with its unit.
fn value_label(series: SendSeries) -> &'static str {
    match series {
        SendSeries::SendRate => "send rate at the end of each bin (per s)",
        SendSeries::Attempts => "attempts per s",
        SendSeries::Throttles => "throttled attempts per s",
        SendSeries::Delivered => "records delivered per s",
        SendSeries::ThrottleRatio => "throttled share of attempts",
        SendSeries::OldestWaiting => "oldest waiting record at the end of each bin (s)",
    }
}

/// Whether `series` is per second, read against the provider's ceiling.
fn against_ceiling(series: SendSeries) -> bool {
    matches!(
        series,
        SendSeries::SendRate | SendSeries::Attempts | SendSeries::Delivered
    )
}

impl Study<'_> {
    /// `series` of sender `sender` per bin, one line per selected variant,
    /// the provider's ceiling marked on the per-second series (when every
    /// variant has the same one).
    pub fn send_binned(&self, sender: usize, series: SendSeries) -> BinnedSeries {
        let name = self
            .scenario
            .senders
            .get(sender)
            .map_or("?", |b| b.name.name.as_str());
        let runs: Vec<_> = self
            .selected_sending()
            .into_iter()
            .filter(|r| r.sender == name)
            .collect();
        let tick_ms = runs
            .first()
            .map_or(1, |r| r.spec.clock.tick_millis().unwrap_or(1)) as f64;
        let bin_ms = runs
            .first()
            .map_or(60_000.0, |r| r.spec.bin as f64 * tick_ms);
        let (unit, per_unit) = if bin_ms > 0.0 && bin_ms % 60_000.0 == 0.0 {
            ("min", 60_000.0)
        } else {
            ("s", 1000.0)
        };
        // With an `epoch` the axis says when the run starts.
        let unit = match self.scenario.epoch {
            Some(ms) => format!("{unit} from {} UTC", utc_text(ms).get(11..16).unwrap_or("")),
            None => unit.to_string(),
        };
        let secs = bin_ms / 1000.0;
        let lines = runs
            .iter()
            .map(|r| SeriesLine {
                label: self.run_label(r.key),
                values: values(&r.obs, series, secs),
            })
            .collect();
        let ceilings: Vec<f64> = runs
            .iter()
            .map(|r| r.spec.provider.ceiling * 1000.0 / tick_ms)
            .collect();
        let levels = match ceilings.first() {
            Some(&c) if against_ceiling(series) && ceilings.iter().all(|&x| x == c) => {
                vec![Level {
                    value: c,
                    label: format!("provider ceiling ({c}/s)"),
                }]
            }
            _ => Vec::new(),
        };
        let what = value_label(series);
        BinnedSeries {
            title: format!("{}: {what} of `{name}`", self.scenario.name),
            value_label: what.to_string(),
            time_unit: unit,
            start: 0.0,
            bin_width: bin_ms / per_unit,
            lines,
            faults: Vec::new(),
            levels,
        }
    }
}

/// Every bin's value of `series` in a run.
fn values(obs: &SendObservations, series: SendSeries, secs: f64) -> Vec<Option<f64>> {
    obs.bins
        .iter()
        .map(|b| bin_value(series, b, secs))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_per_second_and_a_ratio_needs_attempts() {
        let b = SendBin {
            attempts: 600,
            throttled: 30,
            delivered: 540,
            rate: 11.5,
            oldest_waiting: 2.5,
        };
        assert_eq!(bin_value(SendSeries::Attempts, &b, 60.0), Some(10.0));
        assert_eq!(bin_value(SendSeries::Throttles, &b, 60.0), Some(0.5));
        assert_eq!(bin_value(SendSeries::Delivered, &b, 60.0), Some(9.0));
        assert_eq!(bin_value(SendSeries::SendRate, &b, 60.0), Some(11.5));
        assert_eq!(bin_value(SendSeries::ThrottleRatio, &b, 60.0), Some(0.05));
        assert_eq!(bin_value(SendSeries::OldestWaiting, &b, 60.0), Some(2.5));
        let empty = SendBin::default();
        assert_eq!(bin_value(SendSeries::ThrottleRatio, &empty, 60.0), None);
        assert_eq!(bin_value(SendSeries::Attempts, &empty, 0.0), None);
    }
}
