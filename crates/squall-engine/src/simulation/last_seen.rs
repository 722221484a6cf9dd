//! [`LastSeen`]: the last tick each request was seen at each node.
//!
//! One number per request and node, for distinct ids per tick, bin and
//! window (see `Runner::observe`): in a storm it is the slab's largest
//! array. A run shorter than 2^30 ticks (every round model: the per-tick
//! series of a longer one would not fit in memory) keeps them as `u32`,
//! half the bytes, as the tick plus one (0: never), so that reading one
//! back is a subtraction, with never wrapping round to [`NEVER`]; a longer
//! run that takes time keeps `u64`.

use super::NEVER;

/// The largest last tick kept narrow.
const NARROW_TICKS: u64 = (u32::MAX >> 1) as u64;

/// Last tick seen per `slot * nodes + node`, or [`NEVER`].
#[derive(Debug, Clone)]
pub(super) enum LastSeen {
    /// Ticks up to [`NARROW_TICKS`], plus one (0: never).
    Narrow(Vec<u32>),
    /// Any tick.
    Wide(Vec<u64>),
}

impl LastSeen {
    /// Room for a run whose last tick is `ticks`.
    pub(super) fn for_ticks(ticks: u64) -> Self {
        // Calls answered a little after the last tick still fit.
        if ticks < NARROW_TICKS / 2 {
            LastSeen::Narrow(Vec::new())
        } else {
            LastSeen::Wide(Vec::new())
        }
    }

    /// Index `k` is seen at tick `t`: the last tick it was seen before,
    /// or [`NEVER`].
    #[inline(always)]
    pub(super) fn replace(&mut self, k: usize, t: u64) -> u64 {
        match self {
            LastSeen::Narrow(v) => {
                let last = u64::from(v[k]).wrapping_sub(1);
                v[k] = t.min(NARROW_TICKS) as u32 + 1;
                last
            }
            LastSeen::Wide(v) => std::mem::replace(&mut v[k], t),
        }
    }

    /// Indices `from..to` were never seen.
    #[inline]
    pub(super) fn clear(&mut self, from: usize, to: usize) {
        match self {
            LastSeen::Narrow(v) => v[from..to].fill(0),
            LastSeen::Wide(v) => v[from..to].fill(NEVER),
        }
    }

    /// `n` more indices, never seen.
    pub(super) fn grow(&mut self, n: usize) {
        match self {
            LastSeen::Narrow(v) => v.resize(v.len() + n, 0),
            LastSeen::Wide(v) => v.extend(std::iter::repeat_n(NEVER, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_and_wide_read_back_what_they_kept() {
        for mut seen in [LastSeen::for_ticks(10_000), LastSeen::for_ticks(1 << 40)] {
            seen.grow(3);
            assert_eq!(seen.replace(1, 9_999), NEVER);
            assert_eq!(seen.replace(0, 5), NEVER);
            assert_eq!(seen.replace(1, 10_000), 9_999);
            seen.clear(0, 3);
            assert_eq!(seen.replace(1, 1), NEVER);
        }
        assert!(matches!(LastSeen::for_ticks(10_000), LastSeen::Narrow(_)));
        assert!(matches!(LastSeen::for_ticks(1 << 40), LastSeen::Wide(_)));
    }
}
