//! Adaptive concurrency limits: a caller bounds the tries it has in flight
//! to its callee by a limit that adapts from each try's round-trip time
//! (`limiter KIND { ... }` on the calling service).
//!
//! | kind        | library and file | fields (default) |
//! |-------------|------------------|------------------|
//! | `aimd`      | Netflix concurrency-limits, `limit/AIMDLimit.java` | `initial_limit` (20), `min_limit` (20), `max_limit` (200), `backoff_ratio` (0.9, in [0.5, 1)), `timeout` (5 s) |
//! | `vegas`     | `limit/VegasLimit.java` | `initial_limit` (20), `max_concurrency` (1000), `smoothing` (1.0), `probe_multiplier` (30) |
//! | `gradient2` | `limit/Gradient2Limit.java` | `initial_limit` (20), `min_limit` (20), `max_concurrency` (200), `smoothing` (0.2), `queue_size` (4), `long_window` (600), `rtt_tolerance` (1.5) |
//! | `envoy`     | Envoy's adaptive concurrency filter, `controller/gradient_controller.cc` | `concurrency_update_interval` (required), `interval` (required: the minRTT recalculation), `request_count` (50), `jitter` (15, a percent), `min_concurrency` (3), `buffer` (25, a percent), `sample_aggregate_percentile` (50), `max_concurrency_limit` (1000) |
//!
//! Durations are in ticks of the file's clock; the engine gives the rules
//! (`squall_engine::policy::limiter`).

use serde::Serialize;

/// A node's adaptive concurrency limit on its tries downstream: one
/// struct per kind, which the engine's rule for that kind keeps as its
/// settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum LimiterSpec {
    /// Netflix `AIMDLimit`: +1 when a success finds the limit half used,
    /// `x backoff_ratio` on a drop or a round trip over `timeout`.
    Aimd(AimdSpec),
    /// Netflix `VegasLimit`: the queue `limit x (1 - rtt_noload / rtt)`
    /// against log10-scaled thresholds.
    Vegas(VegasSpec),
    /// Netflix `Gradient2Limit`: the gradient of a long exponential average
    /// of the round trip over the last one, smoothed.
    Gradient2(Gradient2Spec),
    /// Envoy's adaptive concurrency filter, gradient controller.
    Envoy(EnvoySpec),
}

/// The settings of `limiter aimd`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AimdSpec {
    /// `initialLimit`.
    pub initial_limit: u32,
    /// `minLimit`.
    pub min_limit: u32,
    /// `maxLimit`.
    pub max_limit: u32,
    /// `backoffRatio`.
    pub backoff_ratio: f64,
    /// `timeout` \[ticks\]: a round trip longer counts as a drop.
    pub timeout: u64,
}

/// The settings of `limiter vegas`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VegasSpec {
    /// `initialLimit`.
    pub initial_limit: u32,
    /// `maxConcurrency`.
    pub max_concurrency: u32,
    /// `smoothing`.
    pub smoothing: f64,
    /// `probeMultiplier`.
    pub probe_multiplier: u32,
}

/// The settings of `limiter gradient2`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Gradient2Spec {
    /// `initialLimit`.
    pub initial_limit: u32,
    /// `minLimit`.
    pub min_limit: u32,
    /// `maxConcurrency`.
    pub max_concurrency: u32,
    /// `smoothing`.
    pub smoothing: f64,
    /// `queueSize` (a constant).
    pub queue_size: u32,
    /// `longWindow` (samples).
    pub long_window: u32,
    /// `rttTolerance`.
    pub rtt_tolerance: f64,
}

/// The settings of `limiter envoy`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnvoySpec {
    /// `concurrency_update_interval` \[ticks\].
    pub update_interval: u64,
    /// `min_rtt_calc_params.interval` \[ticks\].
    pub min_rtt_interval: u64,
    /// `request_count`.
    pub request_count: u32,
    /// `jitter` as a share (0.15 for 15 %).
    pub jitter: f64,
    /// `min_concurrency`.
    pub min_concurrency: u32,
    /// `buffer` as a share (0.25 for 25 %).
    pub buffer: f64,
    /// `sample_aggregate_percentile` as a share (0.5 for p50).
    pub percentile: f64,
    /// `max_concurrency_limit`.
    pub max_limit: u32,
}

impl LimiterSpec {
    /// Each kind with its fields.
    pub const KINDS: &'static [(&'static str, &'static [&'static str])] = &[
        (
            "aimd",
            &[
                "initial_limit",
                "min_limit",
                "max_limit",
                "backoff_ratio",
                "timeout",
            ],
        ),
        (
            "vegas",
            &[
                "initial_limit",
                "max_concurrency",
                "smoothing",
                "probe_multiplier",
            ],
        ),
        (
            "gradient2",
            &[
                "initial_limit",
                "min_limit",
                "max_concurrency",
                "smoothing",
                "queue_size",
                "long_window",
                "rtt_tolerance",
            ],
        ),
        (
            "envoy",
            &[
                "concurrency_update_interval",
                "interval",
                "request_count",
                "jitter",
                "min_concurrency",
                "buffer",
                "sample_aggregate_percentile",
                "max_concurrency_limit",
            ],
        ),
    ];

    /// The fields a kind cannot do without (Envoy's two intervals: its
    /// proto requires them and gives no default).
    pub fn required_of(kind: &str) -> &'static [&'static str] {
        match kind {
            "envoy" => &["concurrency_update_interval", "interval"],
            _ => &[],
        }
    }

    /// The kind's word, as written.
    pub fn kind(&self) -> &'static str {
        match self {
            LimiterSpec::Aimd(_) => "aimd",
            LimiterSpec::Vegas(_) => "vegas",
            LimiterSpec::Gradient2(_) => "gradient2",
            LimiterSpec::Envoy(_) => "envoy",
        }
    }
}
