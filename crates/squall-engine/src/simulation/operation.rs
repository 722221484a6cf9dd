//! [`Operations`]: the running operation of each sequential source.
//!
//! A `sequential` source has at most one operation in flight. While it
//! runs, this keeps the tick it started and the waits its entry node chose
//! before each retry; when it ends, both go into its
//! [`OpRecord`](crate::OpRecord).

/// The running operation of each sequential source.
pub(super) struct Operations {
    /// Waits of the running operation of each source \[ticks\].
    pub(super) waits: Vec<Vec<u64>>,
    /// Start tick of the running operation of each source.
    pub(super) start: Vec<u64>,
}

impl Operations {
    /// No operation running, for `count` sources.
    pub(super) fn new(count: usize) -> Self {
        Operations {
            waits: vec![Vec::new(); count],
            start: vec![0; count],
        }
    }

    /// Source `s` starts an operation at tick `t`.
    pub(super) fn start(&mut self, s: usize, t: u64) {
        self.waits[s].clear();
        self.start[s] = t;
    }
}
