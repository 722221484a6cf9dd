//! Sources of new requests: their rates, their schedule, and the
//! operations of a sequential client.

use serde::Serialize;

use super::{RequestSpec, RetrySpec};

/// How a source spreads its arrivals over ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub enum Arrivals {
    /// A deterministic accumulator: the rate is added every tick and a
    /// request enters for every whole unit; fractions carry over.
    #[default]
    Uniform,
    /// A Poisson number of arrivals per tick with the rate as its mean,
    /// drawn from the run's random stream.
    Poisson,
}

/// A source of new requests.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SourceSpec {
    /// The source's name.
    pub name: String,
    /// The node its requests enter.
    pub entry: usize,
    /// How arrivals are spread.
    pub arrivals: Arrivals,
    /// Requests per tick outside any period.
    pub rate: f64,
    /// Periods with another rate; the last matching one wins.
    pub periods: Vec<RatePeriod>,
    /// When it sends (by rate unless `at` or `sequential`).
    pub schedule: Schedule,
    /// What its requests are (for `Schedule::Sequential`, each op says).
    pub request: RequestSpec,
    /// A deadline set on each request at its start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<super::DeadlineSpec>,
}

impl SourceSpec {
    /// The rate in force at tick `t` \[requests/tick\].
    pub fn rate_at(&self, t: u64) -> f64 {
        self.periods
            .iter()
            .rev()
            .find(|p| p.from <= t && t <= p.to)
            .map_or(self.rate, |p| p.rate)
    }
}

/// A rate that holds from tick `from` to tick `to`, inclusive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatePeriod {
    /// First tick.
    pub from: u64,
    /// Last tick.
    pub to: u64,
    /// Requests per tick.
    pub rate: f64,
}

/// One operation of a sequential client.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpSpec {
    /// Label in reports.
    pub label: String,
    /// The request.
    pub request: RequestSpec,
    /// Retry policy for this operation at the entry node, replacing the
    /// node's own.
    pub retry: Option<RetrySpec>,
}

/// When a source sends requests.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub enum Schedule {
    /// By its rate (`rate`, `periods`, `arrivals`).
    #[default]
    Rate,
    /// One request at each of these ticks.
    At(Vec<u64>),
    /// Operations one after another, each starting when the previous ends.
    Sequential(Vec<OpSpec>),
}
