//! Words for what the engine measured: answers, breaker states and trace
//! rows, as the `operations` and `trace` report items print them.
//!
//! The engine holds these as enums and numbers
//! ([`squall_engine::outcome::Answer`], [`State`], [`TraceRow`]); this is
//! the one place that says them in English. Waits and cool-downs are
//! printed in the scenario's clock unit (`tick_unit`, e.g. `ms`).

use squall_engine::outcome::{Answer, FailKind};
use squall_engine::policy::breaker::State;
use squall_engine::TraceRow;

/// Words for an answer: `success`, `http 503`, `refused (no capacity)`,
/// `circuit open (5 ms left)`, ….
pub fn answer(answer: Answer, tick_unit: &str) -> String {
    match answer {
        Answer::Ok => "success".into(),
        Answer::Fail(f) => match f.kind {
            FailKind::Refused => "refused (no capacity)".into(),
            FailKind::Status(s) if (100..=599).contains(&s) => format!("http {s}"),
            FailKind::Status(s) => format!("code {s:#x}"),
            FailKind::Conflict(s) => format!("http {s} (write conflict)"),
            FailKind::Network => "network error".into(),
            FailKind::Timeout => "timeout".into(),
            FailKind::Body => "body error".into(),
            FailKind::Incomplete => "incomplete response".into(),
            FailKind::Overflow => "refused (queue full)".into(),
            FailKind::QueueTimeout => "queue timeout".into(),
            FailKind::Deadline => "deadline exceeded".into(),
            FailKind::DeadLettered => "dead-lettered".into(),
            FailKind::Limited => "limited (concurrency limit reached)".into(),
            FailKind::CircuitOpen { remaining } => {
                format!("circuit open ({remaining} {tick_unit} left)")
            }
            FailKind::Throttled => "throttled (not sent)".into(),
        },
    }
}

/// A breaker state's name: `closed`, `open`, `half-open`.
pub fn state(state: State) -> &'static str {
    match state {
        State::Closed => "closed",
        State::Open => "open",
        State::HalfOpen => "half-open",
    }
}

/// The outcome column of a trace row: the answer of a call sent; for a call
/// not sent, `not sent (N unit left)` or `not sent (probe in flight)`.
pub fn trace_outcome(row: &TraceRow, tick_unit: &str) -> String {
    if row.sent {
        return answer(row.answer, tick_unit);
    }
    match row.answer {
        Answer::Fail(f) => match f.kind {
            FailKind::CircuitOpen { remaining } if remaining > 0 => {
                format!("not sent ({remaining} {tick_unit} left)")
            }
            _ => "not sent (probe in flight)".into(),
        },
        Answer::Ok => "not sent (probe in flight)".into(),
    }
}

/// The request path a trace row's `per path` breaker guards, from the
/// run's distinct `paths`; empty for a breaker over all calls.
pub fn trace_scope<'a>(row: &TraceRow, paths: &'a [String]) -> &'a str {
    row.scope
        .and_then(|s| paths.get(s))
        .map_or("", String::as_str)
}
