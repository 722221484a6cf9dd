//! [`ChartSeries`]: what a `chart` item draws over time that is not a
//! window metric — a node's breaker state, a sender's series.

use serde::Serialize;

use super::SendSeries;

/// A per-bin series a `chart` draws besides the window metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ChartSeries {
    /// `breaker_open at NODE`: the share of each bin the node's breaker was
    /// open (with several breakers, per path or per client, the mean share
    /// of them that was open).
    BreakerOpen,
    /// `breaker_half_open at NODE`: the same for half-open.
    BreakerHalfOpen,
    /// `breaker_state at NODE`: both, one line each per variant.
    BreakerState,
    /// `SERIES at SENDER`: one of a sender's series per bin.
    Send {
        /// The sender, by index into the scenario's senders.
        sender: usize,
        /// Which series.
        series: SendSeries,
    },
}

impl ChartSeries {
    /// The chart-only words for a node's breaker state, with their series.
    pub const BREAKER: [(&'static str, ChartSeries); 3] = [
        ("breaker_state", ChartSeries::BreakerState),
        ("breaker_open", ChartSeries::BreakerOpen),
        ("breaker_half_open", ChartSeries::BreakerHalfOpen),
    ];
}
