//! Rate-window breakers named by library: `breaker resilience4j { ... }`
//! and `breaker polly { ... }` to a [`LibraryBreakerSpec`].
//!
//! | kind           | settings (default)                                              |
//! |----------------|-----------------------------------------------------------------|
//! | `resilience4j` | `window_calls` (100, COUNT_BASED) or `window` (TIME_BASED, in 1 s buckets, at most a day), `minimum_calls` (100), `failure_rate` (50), `slow_call_rate` (100), `slow_call_duration` (60 s), `wait_open` (60 s), `open_jitter` (0), `half_open_calls` (10), `automatic_half_open` (0) |
//! | `polly`        | `failure_ratio` (0.1), `minimum_throughput` (100, at least 2), `sampling` (30 s), `break_duration` (5 s), `open_jitter` (0) |
//!
//! Under `clock round` the wall-clock defaults do not exist: the durations
//! must be written.

use super::settings::Settings;
use super::Cx;
use crate::ast::KindBlockAst;
use crate::decl::Scenario;
use crate::model::LibraryBreakerSpec;

/// The most buckets a resilience4j time window keeps: a day of one-second
/// buckets (about 2.8 MB per breaker).
pub const MAX_WINDOW_BUCKETS: u64 = 86_400;

impl Scenario {
    pub(super) fn library_breaker(
        &self,
        b: &KindBlockAst,
        cx: &mut Cx<'_>,
    ) -> Option<LibraryBreakerSpec> {
        let set = Settings {
            scenario: self,
            block: b,
        };
        // Ticks in a second, for the libraries' defaults; none for rounds.
        let second = self.clock.tick_millis().map(|ms| 1000 / ms.max(1));
        let secs = |n: u64| second.map(|s| n * s);
        let percent = |x: f64| (0.0..=100.0).contains(&x);
        let factor = |x: f64| (0.0..=1.0).contains(&x);
        match b.kind.name.as_str() {
            "resilience4j" => {
                let window_calls = match (set.get("window_calls"), set.get("window")) {
                    (_, Some(_)) => None,
                    _ => Some(set.count(cx, "window_calls", 100, 1_000_000)?.max(1)),
                };
                let bucket = second.unwrap_or(1);
                let window = if window_calls.is_none() {
                    set.ticks(cx, "window", None)?.max(1)
                } else {
                    0
                };
                // One bucket per second (per round) is kept for the whole
                // window, per breaker: bounded before anything is built.
                let buckets = window.div_ceil(bucket);
                if buckets > MAX_WINDOW_BUCKETS {
                    let unit = if second.is_some() { "second" } else { "round" };
                    cx.errs.push(
                        crate::diagnostic::Diagnostic::new(
                            format!(
                                "a resilience4j time `window` is at most {MAX_WINDOW_BUCKETS} {unit}s (one bucket per {unit} is kept), found {buckets}"
                            ),
                            set.span_of("window"),
                        )
                        .label("window too long")
                        .help("shorten the window, or count calls instead: `window_calls 100`"),
                    );
                    return None;
                }
                Some(LibraryBreakerSpec::Resilience4j {
                    window_calls,
                    window,
                    bucket,
                    minimum_calls: set.count(cx, "minimum_calls", 100, 1_000_000)?.max(1),
                    failure_rate: set.real(
                        cx,
                        "failure_rate",
                        50.0,
                        percent,
                        "is a percent in 0..100",
                    )?,
                    slow_call_rate: set.real(
                        cx,
                        "slow_call_rate",
                        100.0,
                        percent,
                        "is a percent in 0..100",
                    )?,
                    slow_call_duration: set.ticks(cx, "slow_call_duration", secs(60))?,
                    wait_open: set.ticks(cx, "wait_open", secs(60))?,
                    open_jitter: set.real(cx, "open_jitter", 0.0, factor, "is a factor in 0..1")?,
                    half_open_calls: set.count(cx, "half_open_calls", 10, 1_000_000)?.max(1) as u32,
                    automatic: set.count(cx, "automatic_half_open", 0, 1)? == 1,
                })
            }
            "polly" => {
                let minimum_throughput = set.count(cx, "minimum_throughput", 100, 1_000_000_000)?;
                if minimum_throughput < 2 {
                    cx.errs.push(
                        crate::diagnostic::Diagnostic::new(
                            "Polly's `minimum_throughput` is at least 2",
                            set.span_of("minimum_throughput"),
                        )
                        .label("below 2"),
                    );
                    return None;
                }
                Some(LibraryBreakerSpec::Polly {
                    failure_ratio: set.real(
                        cx,
                        "failure_ratio",
                        0.1,
                        factor,
                        "is a ratio in 0..1",
                    )?,
                    minimum_throughput,
                    sampling: set.ticks(cx, "sampling", secs(30))?.max(1),
                    // Polly: a sampling duration under 200 ms is one window.
                    short_sampling: second.map_or(0, |s| s / 5),
                    break_duration: set.ticks(cx, "break_duration", secs(5))?,
                    open_jitter: set.real(cx, "open_jitter", 0.0, factor, "is a factor in 0..1")?,
                })
            }
            _ => None,
        }
    }
}
