//! [`Observe`]: which of the timed path's own measures a run records.
//!
//! A run that takes time can record, beyond its counters, per node
//! latency histograms, queue and service gauges, the counters read as
//! shares of a node's calls, the distinct requests per node, end-to-end
//! latency per source, and all of these per bin of its series
//! ([`TimedObservations`](super::TimedObservations)). Each costs work per
//! call; a caller that reads only some of them (a report of window
//! totals) asks for those alone, and the recorder does no work and keeps
//! no memory for the others. The engine knows nothing of who reads what:
//! it takes the set as given. The default is everything.

use serde::Serialize;

/// What a run that takes time records beyond its counters (which it
/// always records, over the run and per named window).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Observe {
    /// Per node response time: histograms over the run and per named
    /// window, the run's distribution ([`TimedNode::distribution`]),
    /// and, with `bins`, quantiles per bin.
    ///
    /// [`TimedNode::distribution`]: super::timed::TimedNode::distribution
    pub node_latency: bool,
    /// Per node queue length and calls in service, time-weighted: means,
    /// highest and last levels over the run and per named window, and,
    /// with `bins`, per bin.
    pub gauges: bool,
    /// End-to-end latency per source (completed and failed requests) over
    /// the run and per named window, and, with `bins`, per bin.
    pub e2e_latency: bool,
    /// Per node, the counters read as shares of its calls: the calls
    /// that reached its workers and those of them that waited
    /// (`Stretch::admitted`, `Stretch::waited`: P(wait), Wq), and the
    /// calls answered with success, counted at their arrival
    /// (`Stretch::answered_ok`: a success rate). Two or three counts per
    /// call; without it these stay 0.
    pub shares: bool,
    /// The per-bin stretches of the series (`TimedNode::bins`,
    /// `TimedSource::bins`): counts, and per bin whatever else is
    /// observed. Without it those lists are empty.
    pub bins: bool,
}

impl Observe {
    /// Everything: what every caller gets unless it asks for less.
    pub const EVERYTHING: Observe = Observe {
        node_latency: true,
        gauges: true,
        e2e_latency: true,
        shares: true,
        bins: true,
    };

    /// Nothing beyond the counters over the run and per named window.
    pub const COUNTS: Observe = Observe {
        node_latency: false,
        gauges: false,
        e2e_latency: false,
        shares: false,
        bins: false,
    };

    /// Everything either of `self` and `other` observes.
    pub fn union(self, other: Observe) -> Observe {
        Observe {
            node_latency: self.node_latency || other.node_latency,
            gauges: self.gauges || other.gauges,
            e2e_latency: self.e2e_latency || other.e2e_latency,
            shares: self.shares || other.shares,
            bins: self.bins || other.bins,
        }
    }

    /// True when `self` observes everything `need` does.
    pub fn covers(self, need: Observe) -> bool {
        self.union(need) == self
    }
}

impl Default for Observe {
    fn default() -> Self {
        Observe::EVERYTHING
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `covers` is the subset order: everything covers every set, counts
    /// alone cover only themselves, and a set covers its own parts but
    /// not a part it lacks.
    #[test]
    fn covers_is_the_subset_order() {
        let latency = Observe {
            node_latency: true,
            ..Observe::COUNTS
        };
        let gauges = Observe {
            gauges: true,
            ..Observe::COUNTS
        };
        assert!(Observe::EVERYTHING.covers(latency));
        assert!(Observe::EVERYTHING.covers(Observe::EVERYTHING));
        assert!(latency.covers(Observe::COUNTS));
        assert!(!Observe::COUNTS.covers(latency));
        assert!(!latency.covers(gauges));
        assert!(latency.union(gauges).covers(gauges));
        assert_eq!(Observe::default(), Observe::EVERYTHING);
    }
}
