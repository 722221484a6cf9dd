//! Values a sending study measures, named in paths as
//! `VARIANT.SENDER.METRIC` (`fixed.outbox.delivered`).

use serde::Serialize;

/// A value measured over a sender's whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SendMetric {
    /// Records created.
    Records,
    /// Send attempts.
    Attempts,
    /// Attempts the provider throttled.
    Throttles,
    /// Records in a terminal failure: `FAILED` plus the naive client's
    /// `REJECTED`.
    PermanentFailures,
    /// `FAILED` records.
    Failed,
    /// `REJECTED` records.
    Rejected,
    /// `SUBMITTED` records.
    Delivered,
    /// `DEFERRED` records.
    Deferred,
    /// `PENDING` records at the end.
    Pending,
    /// `QUEUED` records at the end.
    Queued,
    /// `IN_FLIGHT` records at the end.
    InFlight,
    /// Records created minus the records in some state: 0 when nothing
    /// is lost.
    Unaccounted,
    /// The genuinely bad records among those created.
    BadRecords,
    /// Throttles / attempts.
    ThrottleRatio,
    /// Age of the oldest record not yet final at the end \[s\].
    OldestWaiting,
    /// Most deliveries in one bin.
    MaxBinDelivered,
    /// Most throttles in one bin.
    MaxBinThrottles,
    /// Fewest throttles in one bin, the first bin left out (the run's
    /// start, before a rate has settled).
    MinBinThrottles,
}

impl SendMetric {
    /// Every metric with its name, in documentation order.
    pub const ALL: [(&'static str, SendMetric); 18] = [
        ("records", SendMetric::Records),
        ("attempts", SendMetric::Attempts),
        ("throttles", SendMetric::Throttles),
        ("permanent_failures", SendMetric::PermanentFailures),
        ("failed", SendMetric::Failed),
        ("rejected", SendMetric::Rejected),
        ("delivered", SendMetric::Delivered),
        ("deferred", SendMetric::Deferred),
        ("pending", SendMetric::Pending),
        ("queued", SendMetric::Queued),
        ("in_flight", SendMetric::InFlight),
        ("unaccounted", SendMetric::Unaccounted),
        ("bad_records", SendMetric::BadRecords),
        ("throttle_ratio", SendMetric::ThrottleRatio),
        ("oldest_waiting", SendMetric::OldestWaiting),
        ("max_bin_delivered", SendMetric::MaxBinDelivered),
        ("max_bin_throttles", SendMetric::MaxBinThrottles),
        ("min_bin_throttles", SendMetric::MinBinThrottles),
    ];

    /// The metric of this name.
    pub fn parse(name: &str) -> Option<SendMetric> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, m)| m)
    }
}
