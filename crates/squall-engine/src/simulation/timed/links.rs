//! Faults on a link between two nodes (`fault cut { on api -> db ... }`)
//! and on the answer leg (`answer latency + D`): the component that
//! decides what happens to a try on its way down and to an answer on its
//! way back. The event loop (`flow/`) asks it only at a node whose flag
//! is set, so a model without such faults pays one test per try sent and
//! one per answer given.
//!
//! # The request leg (a try `api` sends `db`)
//!
//! The faults on the link `api -> db` in force at the tick the try is
//! sent act in declaration order; every `errors` fault in force draws once
//! per try from its own stream (`fault/<index>`), or under `draws common`
//! from the try's key (`server/keyed.rs`), and the first fault that
//! fails or loses the try decides:
//!
//! - `partition` or `fail timeout`: the try is *lost*; the caller hears
//!   nothing and its per-try timeout or the deadline it knows ends it;
//! - `fail RESPONSE`: the caller hears RESPONSE after the link's delay,
//!   and the callee never sees the try;
//! - `errors P% as C`: with probability P the same, with C;
//! - otherwise the try reaches the callee after the link's delay: the sum
//!   of the `latency + D` of the link's faults in force (0: at once).
//!
//! # The answer leg (an answer `db` gives `api`)
//!
//! At the tick the answer is given: a `partition` of `api -> db` in force
//! loses it; otherwise it reaches the caller after the sum of the `answer
//! latency + D` of the faults in force on the link and on `db` itself (on
//! the replica that answers, for `on db[1]`). An entry node's answer to its
//! source is never delayed (a source is not a node).

use squall_lang::{FaultSpec, Model, ResponseSpec};

use crate::outcome::{answer_of, Answer, FailKind, Failure};
use crate::rng::Stream;
use crate::server::keyed;
use crate::time::{Duration, Resolution};

/// What a link does to a try or an answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Leg {
    /// It goes on after this delay (zero: at once).
    After(Duration),
    /// The caller hears this answer after this delay, the callee nothing.
    Fail(Answer, Duration),
    /// Nobody hears anything.
    Lost,
}

/// The link faults of a run and the nodes whose tries or answers they
/// touch.
#[derive(Debug, Default)]
pub(super) struct Links {
    /// Per node: some link fault acts on the tries it sends.
    sends: Vec<bool>,
    /// Per node: some fault acts on the answers it gives.
    answers: Vec<bool>,
    /// The faults concerned (index in the model's faults) with their
    /// streams: link faults, and node faults with `answer latency`.
    faults: Vec<(usize, Stream)>,
}

impl Links {
    /// The links of `model`, their streams under `seed`.
    pub(super) fn new(model: &Model, seed: u64) -> Self {
        let n = model.nodes.len();
        let mut links = Links::default();
        for (k, f) in model.faults.iter().enumerate() {
            let answers = f.timed.answer_add.is_some() || (f.link.is_some() && f.timed.partition);
            if f.link.is_none() && !answers {
                continue;
            }
            if links.sends.is_empty() {
                links.sends = vec![false; n];
                links.answers = vec![false; n];
            }
            if let Some(caller) = f.link {
                links.sends[caller] = true;
            }
            if answers {
                links.answers[f.node] = true;
            }
            links
                .faults
                .push((k, Stream::new(seed, &format!("fault/{k}"))));
        }
        links
    }

    /// True when some link fault acts on the tries `node` sends.
    #[inline(always)]
    pub(super) fn sends(&self, node: usize) -> bool {
        self.sends.get(node).copied().unwrap_or(false)
    }

    /// True when some fault acts on the answers `node` gives.
    #[inline(always)]
    pub(super) fn answers(&self, node: usize) -> bool {
        self.answers.get(node).copied().unwrap_or(false)
    }

    /// A try `caller` sends `callee` at tick `t`.
    pub(super) fn request(
        &mut self,
        faults: &[FaultSpec],
        t: u64,
        caller: usize,
        callee: usize,
        res: Resolution,
        key: Option<u64>,
    ) -> Leg {
        let on_link = |f: &FaultSpec| f.link == Some(caller) && f.node == callee && f.in_force(t);
        let mut delay = 0.0;
        for (k, _) in &self.faults {
            let f = &faults[*k];
            if on_link(f) {
                delay += f.timed.latency_add.unwrap_or(0.0);
            }
        }
        let delay = res.duration(delay);
        let mut out = Leg::After(delay);
        for (k, stream) in &mut self.faults {
            let f = &faults[*k];
            if !on_link(f) {
                continue;
            }
            let hit = f.timed.errors.and_then(|(share, code)| {
                (keyed::draw(stream, key, *k) < share).then_some(Answer::Fail(Failure {
                    kind: FailKind::Status(code),
                    not_before: None,
                }))
            });
            if out != Leg::After(delay) {
                continue;
            }
            out = match (&f.fail, hit) {
                _ if f.timed.partition => Leg::Lost,
                (Some(ResponseSpec::Timeout), _) => Leg::Lost,
                (Some(r), _) => Leg::Fail(answer_of(r, t), delay),
                (None, Some(a)) => Leg::Fail(a, delay),
                (None, None) => out,
            };
        }
        out
    }

    /// An answer replica `replica` of `callee` gives `caller` at tick `t`:
    /// [`Leg::After`] or [`Leg::Lost`].
    pub(super) fn answer(
        &self,
        faults: &[FaultSpec],
        t: u64,
        caller: usize,
        callee: usize,
        replica: usize,
        res: Resolution,
    ) -> Leg {
        let mut delay = 0.0;
        for (k, _) in &self.faults {
            let f = &faults[*k];
            if f.node != callee || !f.in_force(t) {
                continue;
            }
            let here = match f.link {
                Some(c) => c == caller,
                None => f.strikes_replica(replica),
            };
            if !here {
                continue;
            }
            if f.link.is_some() && f.timed.partition {
                return Leg::Lost;
            }
            delay += f.timed.answer_add.unwrap_or(0.0);
        }
        Leg::After(res.duration(delay))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use squall_lang::{NodeSpec, TimedFault};

    fn model(faults: Vec<FaultSpec>) -> Model {
        Model {
            nodes: vec![
                NodeSpec {
                    name: "api".into(),
                    downstream: Some(1),
                    ..Default::default()
                },
                NodeSpec {
                    name: "db".into(),
                    ..Default::default()
                },
            ],
            faults,
            ..Default::default()
        }
    }

    fn link(timed: TimedFault, fail: Option<ResponseSpec>) -> FaultSpec {
        FaultSpec {
            name: "cut".into(),
            node: 1,
            link: Some(0),
            from: 10,
            to: 20,
            fail,
            timed,
            ..Default::default()
        }
    }

    /// Out of its ticks a link fault does nothing; in them its delays add
    /// up, a partition loses the try and the answer, `fail 503` answers
    /// after the delay; only the caller's node sends over a link.
    #[test]
    fn legs() {
        let res = Resolution::fine(squall_lang::Clock::Ms);
        let slow = TimedFault {
            latency_add: Some(20.0),
            answer_add: Some(5.0),
            ..Default::default()
        };
        let cut = TimedFault {
            partition: true,
            ..Default::default()
        };
        let m = model(vec![link(slow.clone(), None), link(slow, None)]);
        let mut l = Links::new(&m, 1);
        assert!(l.sends(0) && !l.sends(1) && l.answers(1) && !l.answers(0));
        assert_eq!(
            l.request(&m.faults, 9, 0, 1, res, None),
            Leg::After(res.duration(0.0))
        );
        assert_eq!(
            l.request(&m.faults, 10, 0, 1, res, None),
            Leg::After(res.duration(40.0))
        );
        assert_eq!(
            l.answer(&m.faults, 20, 0, 1, 0, res),
            Leg::After(res.duration(10.0))
        );
        let m = model(vec![link(cut, None)]);
        let mut l = Links::new(&m, 1);
        assert_eq!(l.request(&m.faults, 15, 0, 1, res, None), Leg::Lost);
        assert_eq!(l.answer(&m.faults, 15, 0, 1, 0, res), Leg::Lost);
        let fail = Some(ResponseSpec::Status {
            code: 503,
            retry_after: None,
        });
        let m = model(vec![link(TimedFault::default(), fail)]);
        let mut l = Links::new(&m, 1);
        assert!(!l.answers(1));
        assert!(matches!(
            l.request(&m.faults, 15, 0, 1, res, None),
            Leg::Fail(Answer::Fail(_), _)
        ));
    }
}
