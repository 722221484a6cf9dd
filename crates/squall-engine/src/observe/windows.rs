//! [`Windows`]: counting distinct request ids per named window.
//!
//! A window counts each request once per node, however many calls it makes
//! there. No set of ids is kept: the request slab remembers the last tick
//! each request was seen at each node, and a call at tick `t` is new for a
//! window starting at `w` when the request was last seen at that node
//! before `w` (or never). This tracker knows which windows hold the
//! current tick, worked out once per tick rather than on every call.

use crate::time::NEVER;

/// The named windows of a run, and which of them hold the current tick.
#[derive(Debug, Clone)]
pub(crate) struct Windows {
    /// Window bounds (first tick, last tick), inclusive.
    bounds: Vec<(u64, u64)>,
    /// The windows that hold tick `open_at`: (window, first tick).
    open: Vec<(usize, u64)>,
    open_at: u64,
}

impl Windows {
    /// Windows with these bounds, none open yet.
    pub(crate) fn new(bounds: Vec<(u64, u64)>) -> Self {
        Windows {
            open: Vec::with_capacity(bounds.len()),
            bounds,
            open_at: NEVER,
        }
    }

    /// The windows that hold tick `t`: (window, first tick), latest
    /// first tick first, so that a request seen since a window began,
    /// seen since every window after it in the list began too, ends the
    /// walk over them (`Runner::observe_at`).
    #[inline]
    pub(crate) fn open_at(&mut self, t: u64) -> &[(usize, u64)] {
        if self.open_at != t {
            self.open_windows(t);
        }
        &self.open
    }

    /// Finds the windows that hold tick `t`.
    #[cold]
    fn open_windows(&mut self, t: u64) {
        self.open.clear();
        for (w, &(from, to)) in self.bounds.iter().enumerate() {
            if from <= t && t <= to {
                self.open.push((w, from));
            }
        }
        self.open.sort_by_key(|&(_, from)| std::cmp::Reverse(from));
        self.open_at = t;
    }
}
