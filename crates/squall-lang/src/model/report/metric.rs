//! Metrics: the values measured per window (and node, for node metrics).

use serde::Serialize;

/// Values measured per window (and node, for node metrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Metric {
    /// Calls the node saw.
    Calls,
    /// Calls the node answered with success.
    Served,
    /// Calls the node answered with failure.
    Failed,
    /// Calls refused by the node's own capacity.
    Refused,
    /// Distinct request ids the node saw in the window.
    Unique,
    /// Ticks in which the node refused a call for capacity.
    SaturatedTicks,
    /// Calls per tick.
    CallRate,
    /// Served calls per tick.
    ServedRate,
    /// Unique ids per tick of the window.
    UniqueRate,
    /// Calls per unique id.
    Amplification,
    /// Served calls / calls.
    SuccessRate,
    /// New requests that entered the system.
    Arrivals,
    /// New requests per tick (the rate at the edge).
    EdgeRate,
    /// Requests that failed after their last try.
    Dropped,
    /// Dropped requests per tick.
    DroppedRate,
    /// Requests answered with success.
    Completed,
    /// Ticks in the window.
    Ticks,
    /// Calls the node's circuit breaker did not send.
    Blocked,
    /// Composite responses answered (full or reduced).
    Answered,
    /// Composite responses with every field fresh.
    Full,
    /// Composite responses answered with some field stale or missing.
    Reduced,
    /// Fresh fields in answered composite responses.
    FreshFields,
    /// Fields served from the ledger in answered composite responses.
    StaleFields,
    /// Fields left out of answered composite responses.
    MissingFields,
    /// Bytes of answered composite responses.
    Bytes,
    /// Bytes per answered composite response.
    AvgBytes,
    /// Requests completed without a retry anywhere on their path.
    FirstTryOk,
    /// `first_try_ok` / requests that ended (completed or dropped): the
    /// share that succeeded at the first try.
    FirstTryRate,
    /// `completed` / requests that ended: the share that succeeded at all.
    CompletionRate,
    /// Retries the node's retry budget refused.
    RetriesRefused,
    /// The most calls the node saw in one tick of the window.
    PeakCalls,
    /// The last tick of the window with an answered composite response,
    /// counted from the window's start (1 = its first tick); 0 if none.
    LastAnswered,
}

impl Metric {
    /// Every metric with its name in the language.
    pub const ALL: [(&'static str, Metric); 32] = [
        ("calls", Metric::Calls),
        ("served", Metric::Served),
        ("failed", Metric::Failed),
        ("refused", Metric::Refused),
        ("unique", Metric::Unique),
        ("saturated_ticks", Metric::SaturatedTicks),
        ("call_rate", Metric::CallRate),
        ("served_rate", Metric::ServedRate),
        ("unique_rate", Metric::UniqueRate),
        ("amplification", Metric::Amplification),
        ("success_rate", Metric::SuccessRate),
        ("arrivals", Metric::Arrivals),
        ("edge_rate", Metric::EdgeRate),
        ("dropped", Metric::Dropped),
        ("dropped_rate", Metric::DroppedRate),
        ("completed", Metric::Completed),
        ("ticks", Metric::Ticks),
        ("blocked", Metric::Blocked),
        ("answered", Metric::Answered),
        ("full", Metric::Full),
        ("reduced", Metric::Reduced),
        ("fresh_fields", Metric::FreshFields),
        ("stale_fields", Metric::StaleFields),
        ("missing_fields", Metric::MissingFields),
        ("bytes", Metric::Bytes),
        ("avg_bytes", Metric::AvgBytes),
        ("last_answered", Metric::LastAnswered),
        ("first_try_ok", Metric::FirstTryOk),
        ("first_try_rate", Metric::FirstTryRate),
        ("completion_rate", Metric::CompletionRate),
        ("retries_refused", Metric::RetriesRefused),
        ("peak_calls", Metric::PeakCalls),
    ];

    /// Looks a metric up by name.
    pub fn parse(name: &str) -> Option<Metric> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
    }

    /// The metric's name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }

    /// True for metrics measured at a node; false for whole-system ones.
    pub fn needs_node(self) -> bool {
        !matches!(
            self,
            Metric::Arrivals
                | Metric::EdgeRate
                | Metric::Dropped
                | Metric::DroppedRate
                | Metric::Completed
                | Metric::Ticks
                | Metric::FirstTryOk
                | Metric::FirstTryRate
                | Metric::CompletionRate
        )
    }
}
