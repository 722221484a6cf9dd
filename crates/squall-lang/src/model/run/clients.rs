//! The clients a source stands for: how many, and (for a closed loop)
//! how long each thinks between an answer and its next request, or (for
//! serial clients) the gap between one start and the next.

use serde::Serialize;

use super::LatencySpec;

/// `clients N` on a source, with `think ...` for a closed loop.
///
/// An open-loop source (`rate ...  clients N`) sends at its rate and each
/// request belongs to one of its N clients; a closed-loop one (`clients N
/// think ...`) has N clients that each send a request, wait for its end
/// (success, failure, timeout, deadline) and think before the next. Either
/// way the entry node keeps its breaker per client. Serial clients
/// (`clients N  serial every ...`) each keep one request in flight and
/// start the next at max(the last one's end, the last one's start + a
/// drawn gap), the rule of mbrooker's retry_sim `SerialClient`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientsSpec {
    /// How many clients.
    pub count: u32,
    /// Think time between an answer and the next request, in (fractional)
    /// ticks; `None` for an open-loop source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<LatencySpec>,
    /// Serial clients (`serial every ...`): the gap drawn between one
    /// request's start and the next one's earliest start, in (fractional)
    /// ticks; `None` unless the clients are serial.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial: Option<LatencySpec>,
}
