//! A call's draws under `draws common` (common random numbers): from
//! streams keyed by the call ([`crate::rng::Stream::keyed`]) instead of the
//! node's or the fault's stream, which draw in the order calls arrive. The
//! keys are kept by the timed path (`simulation/timed/keys.rs`); the server
//! side only draws from them.

use super::latency::Latency;
use crate::rng::{Purpose, Stream};

/// A call's draw against fault `k`'s error share (at its node, or on the
/// link it is sent over): from the fault's own stream, or under `draws
/// common` from the call's `key`.
#[inline(always)]
pub(crate) fn draw(stream: &mut Stream, key: Option<u64>, k: usize) -> f64 {
    match key {
        None => stream.next_f64(),
        Some(key) => keyed_draw(key, k),
    }
}

/// [`draw`] from a call's key (kept out of line: most runs have no keys).
#[inline(never)]
fn keyed_draw(key: u64, k: usize) -> f64 {
    Stream::keyed(key, Purpose::Fault(k)).next_f64()
}

/// A service time drawn from a call's key under `draws common` (kept out
/// of line, as [`keyed_draw`]).
#[inline(never)]
pub(super) fn keyed_service(latency: &Latency, key: u64, others: u32) -> f64 {
    latency.sample_units(&mut Stream::keyed(key, Purpose::Service), others)
}
