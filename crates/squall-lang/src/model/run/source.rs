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
    /// The clients it stands for (`clients N`, `think ...`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clients: Option<super::ClientsSpec>,
    /// `priority N`: a node's queue serves the waiting calls of a source
    /// of higher priority first (0 when not written; left out of the
    /// model's JSON then, so a model without it serializes as before).
    #[serde(skip_serializing_if = "is_zero")]
    pub priority: u32,
}

fn is_zero(p: &u32) -> bool {
    *p == 0
}

impl SourceSpec {
    /// The rate in force at tick `t` \[requests/tick\].
    pub fn rate_at(&self, t: u64) -> f64 {
        self.periods
            .iter()
            .rev()
            .find(|p| p.from <= t && t <= p.to)
            .map_or(self.rate, |p| p.rate_at(t))
    }

    /// True when some period ramps (its rate changes every tick).
    pub fn ramps(&self) -> bool {
        self.periods.iter().any(|p| p.to_rate.is_some())
    }

    /// True for a closed-loop source: its clients send when their last
    /// request allows (`clients N  think ...` or `clients N  serial every
    /// ...`), not at a rate.
    pub fn closed(&self) -> bool {
        self.clients
            .as_ref()
            .is_some_and(|c| c.think.is_some() || c.serial.is_some())
    }
}

/// A rate that holds from tick `from` to tick `to`, inclusive, or (with
/// `to_rate`) a linear ramp from `rate` at `from` to `to_rate` at `to`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatePeriod {
    /// First tick.
    pub from: u64,
    /// Last tick.
    pub to: u64,
    /// Requests per tick (at `from`, for a ramp).
    pub rate: f64,
    /// A ramp's rate at `to` \[requests/tick\] (`rate A to B during ..`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_rate: Option<f64>,
}

impl RatePeriod {
    /// The period's rate at tick `t` (within it): a ramp's is
    /// `rate + (to_rate - rate) (t - from) / (to - from)`, so it is `rate`
    /// at its first tick and `to_rate` at its last.
    pub fn rate_at(&self, t: u64) -> f64 {
        match self.to_rate {
            None => self.rate,
            Some(end) if self.to <= self.from => end,
            Some(end) => {
                let f = t.saturating_sub(self.from) as f64 / (self.to - self.from) as f64;
                self.rate + (end - self.rate) * f.min(1.0)
            }
        }
    }
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
