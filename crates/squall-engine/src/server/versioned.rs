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
//! One item per node by default: every call to the node writes the same
//! item (the study's single row). With `optimistic items N` the node
//! holds N items, each with its own version, and each call writes one,
//! picked uniformly when its service starts from its own draw: the
//! node's stream `optimistic/<node>` (in the order calls start), or under
//! `draws common` the call's key ([`Purpose::Item`]), as its other keyed
//! draws. A write conflicts only with commits to its own item, so two
//! writes in service together conflict with probability 1/N of one
//! item's. With one item nothing is drawn.

use crate::outcome::{Answer, FailKind, Failure};
use crate::rng::{Purpose, Stream};

/// No read recorded for a call.
const NO_READ: u64 = u64::MAX;

/// One node's versioned item, and the version each call in service read.
#[derive(Debug, Clone)]
pub(crate) struct Versioned {
    /// Each item's version: the number of its commits so far.
    versions: Vec<u64>,
    /// The stream that picks an item (without `draws common`).
    stream: Stream,
    /// The item call `c` writes (indexed as `reads`; kept only with more
    /// than one item).
    items: Vec<u32>,
    /// The answer of a write that lost the race.
    conflict: Answer,
    /// The version call `c` read when its service started (indexed by the
    /// event loop's call index; [`NO_READ`] when none is in service).
    reads: Vec<u64>,
}

impl Versioned {
    /// `items` items at version 0 (at least one), picked from `stream`,
    /// whose losing writes answer status `conflict`.
    pub(crate) fn new(conflict: u32, items: u32, stream: Stream) -> Self {
        Versioned {
            versions: vec![0; items.max(1) as usize],
            stream,
            items: Vec::new(),
            conflict: Answer::Fail(Failure {
                kind: FailKind::Conflict(conflict),
                not_before: None,
            }),
            reads: Vec::new(),
        }
    }

    /// Call `c` starts its service: it picks its item (from its `key`
    /// under `draws common`, else the node's stream) and reads the item's
    /// version.
    pub(crate) fn read(&mut self, c: u32, key: Option<u64>) {
        let i = c as usize;
        if self.reads.len() <= i {
            self.reads.resize(i + 1, NO_READ);
        }
        let item = match self.versions.len() {
            1 => 0,
            n => {
                let u = match key {
                    Some(k) => Stream::keyed(k, Purpose::Item).next_f64(),
                    None => self.stream.next_f64(),
                };
                let item = ((u * n as f64) as usize).min(n - 1);
                if self.items.len() <= i {
                    self.items.resize(i + 1, 0);
                }
                self.items[i] = item as u32;
                item
            }
        };
        self.reads[i] = self.versions[item];
    }

    /// The item call `c` writes.
    fn item_of(&self, c: u32) -> usize {
        self.items.get(c as usize).map_or(0, |&k| k as usize)
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
        let item = self.item_of(c);
        if seen == self.versions[item] {
            self.versions[item] += 1;
            Answer::Ok
        } else {
            self.conflict
        }
    }

    /// The commits so far, over every item.
    #[cfg(test)]
    pub(crate) fn version(&self) -> u64 {
        self.versions.iter().sum()
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
        let mut v = Versioned::new(409, 1, Stream::new(1, "optimistic/test"));
        v.read(0, None);
        v.read(1, None);
        assert_eq!(v.commit(0, Answer::Ok), Answer::Ok);
        assert_eq!(
            v.commit(1, Answer::Ok),
            Answer::Fail(Failure {
                kind: FailKind::Conflict(409),
                not_before: None
            })
        );
        v.read(2, None);
        assert_eq!(v.commit(2, Answer::Ok), Answer::Ok);
        assert_eq!(v.version(), 2);
    }

    /// A failing answer commits nothing; a call that never read commits
    /// nothing either (the version stays 0 in both cases).
    #[test]
    fn failures_and_unread_calls_leave_the_version() {
        let mut v = Versioned::new(409, 1, Stream::new(1, "optimistic/test"));
        v.read(0, None);
        let failed = Answer::Fail(Failure {
            kind: FailKind::Status(503),
            not_before: None,
        });
        assert_eq!(v.commit(0, failed), failed);
        assert_eq!(v.commit(5, Answer::Ok), Answer::Ok);
        assert_eq!(v.version(), 0);
    }
}
