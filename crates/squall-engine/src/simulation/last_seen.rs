//! [`LastSeen`]: the last tick each request was seen at each node.
//!
//! One number per request and node, for distinct ids per tick, bin and
//! window (see `Runner::observe`): in a storm it is the slab's largest
//! array. A run shorter than 2^14 ticks (the documents' round models and
//! the benchmarked storms) keeps them as `u16`, a quarter of the bytes, as
//! the tick plus one (0: never), so that reading one back is a
//! subtraction, with never wrapping round to [`NEVER`]; a longer run keeps
//! `u64`. Two widths, not three: a `u32` width between them (runs up to
//! 2^30 ticks) made the match in [`LastSeen::replace`], on every call of a
//! round model, cost 1 % of the storm's instructions (3.424 G against
//! 3.395 G on `bench/instructions.sh`'s storm-1), while the runs it would
//! serve, long round models and runs that take time, keep few requests
//! in flight.

use super::NEVER;

/// The largest last tick kept short.
const SHORT_TICKS: u64 = (u16::MAX >> 1) as u64;

/// Last tick seen per `slot * nodes + node`, or [`NEVER`].
#[derive(Debug, Clone)]
pub(super) enum LastSeen {
    /// Ticks up to [`SHORT_TICKS`], plus one (0: never).
    Short(Vec<u16>),
    /// Any tick.
    Wide(Vec<u64>),
}

/// How a short [`LastSeen`] keeps tick `t`.
#[inline(always)]
pub(super) fn short(t: u64) -> u16 {
    t.min(SHORT_TICKS) as u16 + 1
}

impl LastSeen {
    /// Room for a run whose last tick is `ticks`.
    pub(super) fn for_ticks(ticks: u64) -> Self {
        // Calls answered a little after the last tick still fit.
        if ticks < SHORT_TICKS / 2 {
            LastSeen::Short(Vec::new())
        } else {
            LastSeen::Wide(Vec::new())
        }
    }

    /// Index `k` is seen at tick `t`: the last tick it was seen before,
    /// or [`NEVER`].
    #[inline(always)]
    pub(super) fn replace(&mut self, k: usize, t: u64) -> u64 {
        self.replace_short(k, t, short(t))
    }

    /// [`LastSeen::replace`] with `t`'s short form ([`short`]) at hand:
    /// the zero-time path finds it once a tick.
    #[inline(always)]
    pub(super) fn replace_short(&mut self, k: usize, t: u64, short: u16) -> u64 {
        match self {
            LastSeen::Short(v) => {
                let last = u64::from(v[k]).wrapping_sub(1);
                v[k] = short;
                last
            }
            LastSeen::Wide(v) => std::mem::replace(&mut v[k], t),
        }
    }

    /// Indices `from..to` were never seen. A request seen at no node or
    /// one (a run that counts distinct ids where a report reads them,
    /// often one node) clears with a store or none, not a call of
    /// `memset`.
    #[inline]
    pub(super) fn clear(&mut self, from: usize, to: usize) {
        match to - from {
            0 => return,
            1 => {
                match self {
                    LastSeen::Short(v) => v[from] = 0,
                    LastSeen::Wide(v) => v[from] = NEVER,
                }
                return;
            }
            _ => {}
        }
        match self {
            LastSeen::Short(v) => v[from..to].fill(0),
            LastSeen::Wide(v) => v[from..to].fill(NEVER),
        }
    }

    /// `n` more indices, never seen.
    pub(super) fn grow(&mut self, n: usize) {
        match self {
            LastSeen::Short(v) => v.resize(v.len() + n, 0),
            LastSeen::Wide(v) => v.extend(std::iter::repeat_n(NEVER, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_wide_read_back_what_they_kept() {
        let runs = [10_000, 1 << 40];
        for mut seen in runs.map(LastSeen::for_ticks) {
            seen.grow(3);
            assert_eq!(seen.replace(1, 9_999), NEVER);
            assert_eq!(seen.replace(0, 5), NEVER);
            assert_eq!(seen.replace(1, 10_000), 9_999);
            assert_eq!(seen.replace(0, 0), 5);
            seen.clear(0, 3);
            assert_eq!(seen.replace(1, 1), NEVER);
            // One index cleared (a store), and none: the others keep
            // their ticks.
            assert_eq!(seen.replace(2, 4), NEVER);
            seen.clear(1, 2);
            seen.clear(2, 2);
            assert_eq!(seen.replace(1, 6), NEVER);
            assert_eq!(seen.replace(2, 6), 4);
        }
        // 32 767 ticks is the most kept short: the run's last tick is
        // below half of it, so that answers a little after the end fit.
        assert!(matches!(LastSeen::for_ticks(16_382), LastSeen::Short(_)));
        assert!(matches!(LastSeen::for_ticks(16_383), LastSeen::Wide(_)));
        assert!(matches!(LastSeen::for_ticks(1 << 40), LastSeen::Wide(_)));
    }
}
