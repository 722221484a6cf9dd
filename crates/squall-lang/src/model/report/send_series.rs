//! [`SendSeries`]: a sender's values per bin, as a `chart` draws them
//! (`chart send_rate at outbox`).

use serde::Serialize;

/// A sender's value per bin of its series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SendSeries {
    /// The send rate gating attempts at the end of the bin \[per s\].
    SendRate,
    /// Attempts sent in the bin, per second.
    Attempts,
    /// Attempts the provider throttled in the bin, per second.
    Throttles,
    /// Records submitted in the bin, per second.
    Delivered,
    /// Throttled attempts / attempts in the bin.
    ThrottleRatio,
    /// Age of the oldest record not yet final at the end of the bin \[s\].
    OldestWaiting,
}

impl SendSeries {
    /// Every series with its name in the language (the whole-run values'
    /// names where one exists: `attempts`, `throttles`, `delivered`).
    pub const ALL: [(&'static str, SendSeries); 6] = [
        ("send_rate", SendSeries::SendRate),
        ("attempts", SendSeries::Attempts),
        ("throttles", SendSeries::Throttles),
        ("delivered", SendSeries::Delivered),
        ("throttle_ratio", SendSeries::ThrottleRatio),
        ("oldest_waiting", SendSeries::OldestWaiting),
    ];

    /// Looks a series up by name.
    pub fn parse(name: &str) -> Option<SendSeries> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// The series' name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("?", |(n, _)| n)
    }
}
