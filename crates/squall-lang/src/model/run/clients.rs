//! The clients a source stands for: how many, and (for a closed loop)
//! how long each thinks between an answer and its next request.

use serde::Serialize;

use super::LatencySpec;

/// `clients N` on a source, with `think ...` for a closed loop.
///
/// An open-loop source (`rate ...  clients N`) sends at its rate and each
/// request belongs to one of its N clients; a closed-loop one (`clients N
/// think ...`) has N clients that each send a request, wait for its end
/// (success, failure, timeout, deadline) and think before the next. Either
/// way the entry node keeps its breaker per client.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientsSpec {
    /// How many clients.
    pub count: u32,
    /// Think time between an answer and the next request, in (fractional)
    /// ticks; `None` for an open-loop source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<LatencySpec>,
}
