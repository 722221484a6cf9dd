//! A link's steady latency (`link api -> db { latency 2ms }`): what every
//! try the caller sends the callee takes on its way down, and every answer
//! on its way back, in a run that takes time. Faults on the link add to it.

use serde::Serialize;

use super::LatencySpec;

/// The steady latency of the link from `caller` to `callee` \[ticks\].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSpec {
    /// The node that sends the tries.
    pub caller: usize,
    /// The node that receives them and answers.
    pub callee: usize,
    /// The request leg's latency (`latency ...`); none: no time.
    pub latency: Option<LatencySpec>,
    /// The answer leg's latency (`answer latency ...`); none: no time.
    pub answer: Option<LatencySpec>,
}
