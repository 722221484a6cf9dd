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

/// A latency `add` with jitter `jitter` (ticks or units: the result is
/// in theirs): `add + jitter (2u -
/// 1)`, `u` one uniform number from `stream`, or under `draws common` from
/// the call's `key` for `purpose`; never below 0. Without jitter (or a
/// jitter of 0): `add`, and nothing is drawn. This is Toxiproxy's latency
/// toxic (`toxics/latency.go`: `delay += rand.Int63n(jitter*2) -
/// jitter`, a whole number of ms in `[-jitter, jitter)`, slept with
/// `time.After`, which waits no time for a negative duration), drawn
/// continuously in squall's finer time.
#[inline(always)]
pub(crate) fn jittered(
    add: f64,
    jitter: f64,
    stream: &mut Stream,
    key: Option<u64>,
    purpose: Purpose,
) -> f64 {
    if jitter <= 0.0 {
        return add;
    }
    jitter_draw(add, jitter, stream, key, purpose)
}

/// [`jittered`]'s draw (kept out of line: most faults have no jitter).
#[inline(never)]
fn jitter_draw(
    add: f64,
    jitter: f64,
    stream: &mut Stream,
    key: Option<u64>,
    purpose: Purpose,
) -> f64 {
    let u = match key {
        None => stream.next_f64(),
        Some(key) => Stream::keyed(key, purpose).next_f64(),
    };
    (add + jitter * (2.0 * u - 1.0)).max(0.0)
}

/// A service time drawn from a call's key under `draws common` (kept out
/// of line, as [`keyed_draw`]).
#[inline(never)]
pub(super) fn keyed_service(latency: &Latency, key: u64, others: u32) -> f64 {
    latency.sample_units(&mut Stream::keyed(key, Purpose::Service), others)
}
