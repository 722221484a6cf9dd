//! Classification as data: which provider codes are success, terminal,
//! retryable, and what is left unknown.
//!
//! A [`Classifier`] is a list of rules read top to bottom; the first rule
//! whose codes contain the answer's code decides its [`CodeClass`]. A code
//! no rule names is [`CodeClass::Unknown`]: retried like a retryable one,
//! but under its own low attempt cap (and counted on its own in the
//! report, so it can be moved to the right class in a release or two).
//!
//! HTTP statuses and protocol status codes (SMPP's `0x58` throttling,
//! `0x14` message queue full) are different namespaces: HTTP 88 is not
//! SMPP `0x58`. [`ProviderCode`] keeps them apart.

use serde::Serialize;

/// What a provider answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum ProviderCode {
    /// An HTTP status (`200`, `429`, `503`).
    Http(u16),
    /// A protocol status code, written in hex (`0x58`).
    Protocol(u32),
}

/// What a code means to the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CodeClass {
    /// Accepted.
    Success,
    /// Will never succeed as it is: mark failed, keep the reason, stop.
    Terminal,
    /// Right request, wrong moment: wait and retry.
    Retryable,
    /// Not classified yet: retried under the low cap.
    Unknown,
}

/// A set of codes a rule names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CodeMatch {
    /// One code.
    Exact(ProviderCode),
    /// HTTP statuses `lo..=hi` (`5xx` is `500..=599`).
    HttpRange(u16, u16),
}

impl CodeMatch {
    /// True when `code` is in the set.
    pub fn contains(self, code: ProviderCode) -> bool {
        match (self, code) {
            (CodeMatch::Exact(c), code) => c == code,
            (CodeMatch::HttpRange(lo, hi), ProviderCode::Http(s)) => (lo..=hi).contains(&s),
            (CodeMatch::HttpRange(..), ProviderCode::Protocol(_)) => false,
        }
    }
}

/// Rules, first match wins.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Classifier {
    /// `(codes, class)` in the order written.
    pub rules: Vec<(CodeMatch, CodeClass)>,
}

impl Classifier {
    /// The class of `code`: the first rule that names it, else unknown.
    pub fn classify(&self, code: ProviderCode) -> CodeClass {
        self.rules
            .iter()
            .find(|(m, _)| m.contains(code))
            .map_or(CodeClass::Unknown, |&(_, class)| class)
    }
}
