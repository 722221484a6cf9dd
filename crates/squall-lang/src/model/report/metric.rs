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
    /// Hedged tries the node sent (beyond each call's first try).
    Hedged,
    /// Tries the node's client-side throttle rejected locally.
    RejectedLocally,
    /// Retries the node's retry policy made (tries after each call's
    /// first), counted when the failure that decided each happened.
    Retries,
    /// The most calls the node saw in one tick of the window.
    PeakCalls,
    /// The busiest bin of the window's calls over their mean: calls per
    /// bin of the run's series width (one tick when nothing takes time),
    /// the highest bin's mean per tick divided by the window's.
    PeakToMean,
    /// The last tick of the window with an answered composite response,
    /// counted from the window's start (1 = its first tick); 0 if none.
    LastAnswered,
    /// Median response time at the node of the calls it served \[ticks\].
    P50,
    /// 90th percentile response time at the node \[ticks\].
    P90,
    /// 99th percentile response time at the node \[ticks\].
    P99,
    /// 99.9th percentile response time at the node \[ticks\].
    P999,
    /// Longest response time at the node \[ticks\].
    LatencyMax,
    /// Mean response time at the node \[ticks\].
    LatencyMean,
    /// Tries of the node downstream that timed out.
    Timeouts,
    /// Calls refused because every worker was busy and the queue full.
    Overflow,
    /// Calls that waited in the queue past the queue timeout.
    QueueTimeouts,
    /// Calls refused by the node's rate limit.
    Throttled,
    /// Tries of the node downstream its concurrency limiter did not send.
    Limited,
    /// Calls stopped by a cancellation or a propagated deadline.
    Cancelled,
    /// Calls that finished for a caller that had already given up.
    Wasted,
    /// Worker time spent for callers that had already given up \[ticks\].
    WastedBusy,
    /// Time-weighted mean queue length.
    QueueMean,
    /// Longest queue.
    QueueMax,
    /// Time-weighted mean of calls holding a worker.
    InService,
    /// Most calls holding a worker at once.
    InServiceMax,
    /// Of the calls that reached the node's workers, the share that found
    /// every worker busy and waited in the queue (Erlang C's P(wait)).
    PWait,
    /// Mean wait in the queue per call that reached the workers \[ticks\]:
    /// the queue's time-weighted length over their arrival rate (Little's
    /// law, `Lq = λ Wq`).
    Wq,
    /// Time-weighted calls holding a worker over the node's workers.
    Utilisation,
    /// Time-weighted calls at the node: queued or holding a worker.
    InFlight,
    /// Queue length at the stretch's end.
    QueueEnd,
    /// Median end-to-end latency of completed requests \[ticks\].
    E2eP50,
    /// 99th percentile end-to-end latency of completed requests \[ticks\].
    E2eP99,
    /// Mean end-to-end latency of completed requests \[ticks\].
    E2eMean,
    /// Median end-to-end latency of failed requests (to the failure the
    /// source saw) \[ticks\].
    E2eFailedP50,
    /// 99th percentile end-to-end latency of failed requests \[ticks\].
    E2eFailedP99,
    /// Mean end-to-end latency of failed requests \[ticks\].
    E2eFailedMean,
    /// Messages a work queue's consumers took (redeliveries included).
    Receives,
    /// Failed receives after which the message came back to the queue.
    Redeliveries,
    /// Messages moved to the dead-letter queue.
    DeadLetters,
    /// Messages a work queue's consumers worked successfully.
    Done,
    /// The highest age of a work queue's oldest message not yet done or
    /// dead-lettered \[ticks\].
    OldestAge,
}

impl Metric {
    /// Every metric with its name in the language.
    pub const ALL: [(&'static str, Metric); 70] = [
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
        ("p50", Metric::P50),
        ("p90", Metric::P90),
        ("p99", Metric::P99),
        ("p999", Metric::P999),
        ("latency_max", Metric::LatencyMax),
        ("latency_mean", Metric::LatencyMean),
        ("timeouts", Metric::Timeouts),
        ("overflow", Metric::Overflow),
        ("queue_timeouts", Metric::QueueTimeouts),
        ("throttled", Metric::Throttled),
        ("limited", Metric::Limited),
        ("cancelled", Metric::Cancelled),
        ("wasted", Metric::Wasted),
        ("wasted_busy", Metric::WastedBusy),
        ("queue_mean", Metric::QueueMean),
        ("queue_max", Metric::QueueMax),
        ("in_service", Metric::InService),
        ("in_service_max", Metric::InServiceMax),
        ("p_wait", Metric::PWait),
        ("wq", Metric::Wq),
        ("utilisation", Metric::Utilisation),
        ("in_flight", Metric::InFlight),
        ("queue_end", Metric::QueueEnd),
        ("e2e_p50", Metric::E2eP50),
        ("e2e_p99", Metric::E2eP99),
        ("e2e_mean", Metric::E2eMean),
        ("e2e_failed_p50", Metric::E2eFailedP50),
        ("e2e_failed_p99", Metric::E2eFailedP99),
        ("e2e_failed_mean", Metric::E2eFailedMean),
        ("retries_refused", Metric::RetriesRefused),
        ("hedged", Metric::Hedged),
        ("rejected_locally", Metric::RejectedLocally),
        ("retries", Metric::Retries),
        ("peak_calls", Metric::PeakCalls),
        ("peak_to_mean", Metric::PeakToMean),
        ("receives", Metric::Receives),
        ("redeliveries", Metric::Redeliveries),
        ("dead_letters", Metric::DeadLetters),
        ("done", Metric::Done),
        ("oldest_age", Metric::OldestAge),
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

    /// The metrics a path may read of one replica (`api[1].calls`): the
    /// counts a replicated node keeps per replica and named window, their
    /// rates, its share of answers with success, the latency of the
    /// calls it served ([`Self::REPLICA_LATENCY`]) and its queue
    /// ([`Self::REPLICA_QUEUE`]).
    pub const PER_REPLICA: [Metric; 16] = [
        Metric::Calls,
        Metric::CallRate,
        Metric::Served,
        Metric::ServedRate,
        Metric::Failed,
        Metric::Refused,
        Metric::SuccessRate,
        Metric::P50,
        Metric::P90,
        Metric::P99,
        Metric::P999,
        Metric::LatencyMax,
        Metric::LatencyMean,
        Metric::QueueMean,
        Metric::QueueMax,
        Metric::QueueEnd,
    ];

    /// The metrics of [`Self::PER_REPLICA`] read from the replica's queue
    /// gauge, which a run records only when a report reads one of them.
    pub const REPLICA_QUEUE: [Metric; 3] = [Metric::QueueMean, Metric::QueueMax, Metric::QueueEnd];

    /// The metrics of [`Self::PER_REPLICA`] read from the replica's
    /// latency histograms, which a run records only when a report reads
    /// one of them.
    pub const REPLICA_LATENCY: [Metric; 6] = [
        Metric::P50,
        Metric::P90,
        Metric::P99,
        Metric::P999,
        Metric::LatencyMax,
        Metric::LatencyMean,
    ];

    /// True for a metric of [`Self::PER_REPLICA`].
    pub fn per_replica(self) -> bool {
        Self::PER_REPLICA.contains(&self)
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
                | Metric::E2eP50
                | Metric::E2eP99
                | Metric::E2eMean
                | Metric::E2eFailedP50
                | Metric::E2eFailedP99
                | Metric::E2eFailedMean
        )
    }
}
