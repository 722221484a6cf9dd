//! Which of a run's timed measures each metric reads ([`needs`]), and the
//! check a reader makes before it takes a measure from a run
//! ([`recorded`]): a run reduced for its report records only what the
//! report reads (the planner's `observes`), and what it did not record
//! holds zeros, which must never be printed as numbers. The same holds
//! for distinct request ids, counted only at the nodes the report reads
//! them at (the planner's `distinct_reads`; [`counted_distinct`]).

use squall_engine::observe::timed::TimedObservations;
use squall_engine::{Observations, Observe};
use squall_lang::Metric;

/// Whether run `t` recorded what `metric` reads ([`needs`]),
/// and its per-bin stretches when `bins`. A measure a run did not record
/// reads as zero or as nothing; asking for one is the planner's mistake
/// (the planner's `observes` left out what the report reads): a debug
/// build stops on it, a release build answers n/a, never that zero.
pub(crate) fn recorded(t: &TimedObservations, metric: Metric, bins: bool) -> bool {
    let mut need = needs(metric);
    need.bins |= bins;
    let ok = t.observed.covers(need);
    debug_assert!(
        ok,
        "`{metric:?}` read from a run that did not record it (it recorded {:?})",
        t.observed
    );
    ok
}

/// Whether run `obs` counted the distinct request ids at `node`: as for
/// [`recorded`], asking where they were not is the planner's mistake (a
/// debug build stops, a release build answers n/a).
pub(crate) fn counted_distinct(obs: &Observations, node: usize) -> bool {
    let ok = obs
        .distinct_at
        .as_ref()
        .is_none_or(|at| at.binary_search(&node).is_ok());
    debug_assert!(
        ok,
        "distinct ids at node {node} read from a run that counted them only at {:?}",
        obs.distinct_at
    );
    ok
}

/// What `metric` reads of a run's timed measures over a named window
/// (`crate::eval`): the node latency histograms, the gauges, the
/// counters read as shares, the
/// end-to-end histograms, or only counters (which are always recorded).
/// Every metric is listed, so a new one needs a decision here.
pub(crate) fn needs(metric: Metric) -> Observe {
    let only = |f: fn(&mut Observe)| {
        let mut o = Observe::COUNTS;
        f(&mut o);
        o
    };
    match metric {
        Metric::P50
        | Metric::P90
        | Metric::P99
        | Metric::P999
        | Metric::LatencyMax
        | Metric::LatencyMean => only(|o| o.node_latency = true),
        Metric::QueueMean
        | Metric::QueueMax
        | Metric::InService
        | Metric::InServiceMax
        | Metric::QueueEnd
        | Metric::InFlight
        | Metric::Utilisation => only(|o| o.gauges = true),
        // The queue's mean level over the calls that reached the workers.
        Metric::Wq => only(|o| {
            o.gauges = true;
            o.shares = true;
        }),
        Metric::PWait | Metric::SuccessRate => only(|o| o.shares = true),
        Metric::E2eP50
        | Metric::E2eP99
        | Metric::E2eMean
        | Metric::E2eFailedP50
        | Metric::E2eFailedP99
        | Metric::E2eFailedMean => only(|o| o.e2e_latency = true),
        // Reads the bins of the run's series (and makes `reads_ticks`
        // true, so such a report keeps everything anyway).
        Metric::PeakToMean => only(|o| o.bins = true),
        Metric::Calls
        | Metric::Served
        | Metric::Failed
        | Metric::Refused
        // Distinct ids: counted where the report reads them (the
        // planner's `distinct_reads`), not a timed measure.
        | Metric::Unique
        | Metric::UniqueRate
        | Metric::Amplification
        | Metric::SaturatedTicks
        | Metric::CallRate
        | Metric::ServedRate
        | Metric::Arrivals
        | Metric::EdgeRate
        | Metric::Dropped
        | Metric::DroppedRate
        | Metric::Completed
        | Metric::Ticks
        | Metric::Blocked
        | Metric::Answered
        | Metric::Full
        | Metric::Reduced
        | Metric::FreshFields
        | Metric::StaleFields
        | Metric::MissingFields
        | Metric::Bytes
        | Metric::AvgBytes
        | Metric::FirstTryOk
        | Metric::FirstTryRate
        | Metric::CompletionRate
        | Metric::RetriesRefused
        | Metric::Hedged
        | Metric::RejectedLocally
        | Metric::Retries
        | Metric::PeakCalls
        | Metric::LastAnswered
        | Metric::Timeouts
        | Metric::Overflow
        | Metric::QueueTimeouts
        | Metric::Throttled
        | Metric::Limited
        | Metric::Cancelled
        | Metric::Wasted
        | Metric::WastedBusy
        | Metric::Receives
        | Metric::Redeliveries
        | Metric::DeadLetters
        | Metric::Done
        | Metric::OldestAge => Observe::COUNTS,
    }
}
