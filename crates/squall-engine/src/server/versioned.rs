//! [`Versioned`]: a node that holds one versioned item and takes every call
//! as an optimistic-concurrency write of it (`optimistic` on a service).
//!
//! # The rule
//!
//! A call **reads** the item's version when its own service starts (it
//! holds a worker, after the error shares, faults, capacity, rate limit and
//! queue) and **commits** when that service ends: the commit succeeds, and
//! the version goes up by one, iff no other call committed since the read;
//! otherwise the call answers the conflict status (409 by default), which
//! its caller may retry like any other failure. A call that is answered
//! before its service starts (refused, throttled, overflow) reads nothing
//! and commits nothing; a call cancelled in service (its caller gave up)
//! never commits; a call whose scripted answer is a failure commits
//! nothing and answers that failure.
//!
//! This is the server of AWS's backoff study (Marc Brooker, "Exponential
//! Backoff and Jitter", 2015; `aws-samples/aws-arch-backoff-simulator`,
//! `src/backoff_simulator.py`, `OccServer`): a read returns the version, a
//! write carrying that version succeeds and bumps it, any other fails. Here
//! the read and the write are the two ends of one call's service time, so
//! the window in which another write makes a call conflict is that service
//! time. With a service time of zero nothing can commit in between, so a
//! node must have a `latency` (the language refuses `optimistic` without
//! one).
//!
//! One item per node: every call to the node writes the same item (the
//! study's single row).

use crate::outcome::{Answer, FailKind, Failure};

/// No read recorded for a call.
const NO_READ: u64 = u64::MAX;

/// One node's versioned item, and the version each call in service read.
#[derive(Debug, Clone)]
pub(crate) struct Versioned {
    /// The item's version: the number of commits so far.
    version: u64,
    /// The answer of a write that lost the race.
    conflict: Answer,
    /// The version call `c` read when its service started (indexed by the
    /// event loop's call index; [`NO_READ`] when none is in service).
    reads: Vec<u64>,
}

impl Versioned {
    /// An item at version 0 whose losing writes answer status `conflict`.
    pub(crate) fn new(conflict: u32) -> Self {
        Versioned {
            version: 0,
            conflict: Answer::Fail(Failure {
                kind: FailKind::Conflict(conflict),
                not_before: None,
            }),
            reads: Vec::new(),
        }
    }

    /// Call `c` starts its service: it reads the version.
    pub(crate) fn read(&mut self, c: u32) {
        let i = c as usize;
        if self.reads.len() <= i {
            self.reads.resize(i + 1, NO_READ);
        }
        self.reads[i] = self.version;
    }

    /// Call `c` ends its service with `answer` (its scripted answer, or
    /// success): a success commits iff the version is the one `c` read,
    /// else it becomes the conflict; a failure is answered as it is. A call
    /// with no read (none recorded) answers `answer`.
    pub(crate) fn commit(&mut self, c: u32, answer: Answer) -> Answer {
        let Some(read) = self.reads.get_mut(c as usize) else {
            return answer;
        };
        let seen = std::mem::replace(read, NO_READ);
        if seen == NO_READ || answer != Answer::Ok {
            return answer;
        }
        if seen == self.version {
            self.version += 1;
            Answer::Ok
        } else {
            self.conflict
        }
    }

    /// The item's version: the commits so far.
    #[cfg(test)]
    pub(crate) fn version(&self) -> u64 {
        self.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: calls 0 and 1 read version 0; 0 commits first (version
    /// 1), so 1 conflicts; 1's retry (as call 2) reads 1 and commits
    /// (version 2).
    #[test]
    fn the_second_of_two_overlapping_writes_conflicts() {
        let mut v = Versioned::new(409);
        v.read(0);
        v.read(1);
        assert_eq!(v.commit(0, Answer::Ok), Answer::Ok);
        assert_eq!(
            v.commit(1, Answer::Ok),
            Answer::Fail(Failure {
                kind: FailKind::Conflict(409),
                not_before: None
            })
        );
        v.read(2);
        assert_eq!(v.commit(2, Answer::Ok), Answer::Ok);
        assert_eq!(v.version(), 2);
    }

    /// A failing answer commits nothing; a call that never read commits
    /// nothing either (the version stays 0 in both cases).
    #[test]
    fn failures_and_unread_calls_leave_the_version() {
        let mut v = Versioned::new(409);
        v.read(0);
        let failed = Answer::Fail(Failure {
            kind: FailKind::Status(503),
            not_before: None,
        });
        assert_eq!(v.commit(0, failed), failed);
        assert_eq!(v.commit(5, Answer::Ok), Answer::Ok);
        assert_eq!(v.version(), 0);
    }
}
