//! A link's steady latency (`link api -> db { latency ... }`), faults on
//! a link between two nodes (`fault cut { on api -> db ... }`) and on the
//! answer leg (`answer latency + D`): the component that decides what
//! happens to a try on its way down and to an answer on its way back. The
//! event loop (`flow/`) asks it only at a node whose flag is set, so a
//! model without links or such faults pays one test per try sent and one
//! per answer given.
//!
//! # The request leg (a try `api` sends `db`)
//!
//! The link's delay is the sum of one draw from the link's `latency` (its
//! stream `link/<api>/<db>`, or under `draws common` the try's key for
//! [`Purpose::LinkRequest`]) and the `latency + D` of the link's faults
//! in force at the tick the try is sent, each `D` with its `jitter J`
//! drawn uniformly in `D - J .. D + J` and never below 0
//! ([`keyed::jittered`], Toxiproxy's latency toxic), from the fault's
//! stream (`fault/<index>`) or the try's key for [`Purpose::Delay`]. The
//! delay is drawn for every try sent, before the faults decide. The faults
//! then act in declaration order; every `errors` fault in force draws once
//! per try from its own stream, or under `draws common` from the try's key
//! (`server/keyed.rs`), and the first fault that fails or loses the try
//! decides:
//!
//! - `partition` or `fail timeout`: the try is *lost*; the caller hears
//!   nothing and its per-try timeout or the deadline it knows ends it;
//! - `fail RESPONSE`: the caller hears RESPONSE after the link's delay,
//!   and the callee never sees the try;
//! - `errors P% as C`: with probability P the same, with C;
//! - otherwise the try reaches the callee after the link's delay (0: at
//!   once).
//!
//! # The answer leg (an answer `db` gives `api`)
//!
//! At the tick the answer is given: a `partition` of `api -> db` in force
//! loses it; otherwise it reaches the caller after one draw from the
//! link's `answer latency` (stream `link/<api>/<db>/answer`, or the key for
//! [`Purpose::LinkAnswer`]) plus the `answer latency + D` (with its
//! jitter, stream `fault/<index>/answer` or [`Purpose::AnswerDelay`]) of
//! the faults in force on the link and on `db` itself (on the replica that
//! answers, for `on db[1]`). An entry node's answer to its source is never
//! delayed (a source is not a node).

use squall_lang::{FaultSpec, LatencySpec, Model, ResponseSpec};

use crate::outcome::{answer_of, Answer, FailKind, Failure};
use crate::rng::{Purpose, Stream};
use crate::server::keyed::{self, jittered};
use crate::server::latency::Latency;
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

/// One leg of a link with a steady latency: its distribution (in units)
/// and its stream.
#[derive(Debug)]
struct Steady {
    latency: Latency,
    stream: Stream,
    purpose: Purpose,
}

impl Steady {
    /// The leg of latency `spec` (none: no leg) at `res`, its stream
    /// `label` under `seed`, keyed for `purpose` under `draws common`.
    fn new(
        spec: Option<&LatencySpec>,
        res: Resolution,
        seed: u64,
        label: &str,
        purpose: Purpose,
    ) -> Option<Self> {
        spec.map(|s| Steady {
            latency: Latency::new(s, 0.0, res),
            stream: Stream::new(seed, label),
            purpose,
        })
    }

    /// One draw \[units\]: from the leg's stream, or from the call's
    /// `key` under `draws common`.
    fn draw(&mut self, key: Option<u64>) -> f64 {
        match key {
            None => self.latency.sample_units(&mut self.stream, 0),
            Some(k) => self
                .latency
                .sample_units(&mut Stream::keyed(k, self.purpose), 0),
        }
    }
}

/// A link's two legs (`caller -> callee`), each with its latency or none.
type Link = (usize, usize, Option<Steady>, Option<Steady>);

/// The link faults and link latencies of a run and the nodes whose tries
/// or answers they touch.
#[derive(Debug, Default)]
pub(super) struct Links {
    /// Per node: a link latency or a link fault acts on the tries it sends.
    sends: Vec<bool>,
    /// Per node: a link latency or a fault acts on the answers it gives.
    answers: Vec<bool>,
    /// The faults concerned (index in the model's faults) with their
    /// streams (the request leg's, `fault/<k>`, and the answer leg's,
    /// `fault/<k>/answer`): link faults, and node faults with `answer
    /// latency`.
    faults: Vec<(usize, Stream, Stream)>,
    /// The links with a steady latency.
    steady: Vec<Link>,
}

impl Links {
    /// The links of `model`, their streams under `seed`, their latencies
    /// at `res`.
    pub(super) fn new(model: &Model, seed: u64, res: Resolution) -> Self {
        let n = model.nodes.len();
        let mut links = Links::default();
        for l in &model.links {
            if links.sends.is_empty() {
                links.sends = vec![false; n];
                links.answers = vec![false; n];
            }
            links.sends[l.caller] |= l.latency.is_some();
            links.answers[l.callee] |= l.answer.is_some();
            let label = format!("link/{}/{}", l.caller, l.callee);
            let request = Steady::new(l.latency.as_ref(), res, seed, &label, Purpose::LinkRequest);
            let answer = Steady::new(
                l.answer.as_ref(),
                res,
                seed,
                &format!("{label}/answer"),
                Purpose::LinkAnswer,
            );
            links.steady.push((l.caller, l.callee, request, answer));
        }
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
            links.faults.push((
                k,
                Stream::new(seed, &format!("fault/{k}")),
                Stream::new(seed, &format!("fault/{k}/answer")),
            ));
        }
        links
    }

    /// True when a link latency or fault acts on the tries `node` sends.
    #[inline(always)]
    pub(super) fn sends(&self, node: usize) -> bool {
        self.sends.get(node).copied().unwrap_or(false)
    }

    /// True when a link latency or a fault acts on the answers `node` gives.
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
        for (k, stream, _) in &mut self.faults {
            let f = &faults[*k];
            if let (true, Some(a)) = (on_link(f), f.timed.latency_add) {
                let j = f.timed.latency_jitter.unwrap_or(0.0);
                delay += jittered(a, j, stream, key, Purpose::Delay(*k));
            }
        }
        let steady = self.steady_draw(caller, callee, key, false);
        let delay = plus_units(res.duration(delay), steady);
        let mut out = Leg::After(delay);
        for (k, stream, _) in &mut self.faults {
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

    /// An answer replica `replica` of `callee` gives `caller` at tick `t`
    /// (`key`: the answered try's under `draws common`): [`Leg::After`] or
    /// [`Leg::Lost`].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn answer(
        &mut self,
        faults: &[FaultSpec],
        t: u64,
        caller: usize,
        callee: usize,
        replica: usize,
        res: Resolution,
        key: Option<u64>,
    ) -> Leg {
        let mut delay = 0.0;
        for (k, _, stream) in &mut self.faults {
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
            if let Some(a) = f.timed.answer_add {
                let j = f.timed.answer_jitter.unwrap_or(0.0);
                delay += jittered(a, j, stream, key, Purpose::AnswerDelay(*k));
            }
        }
        let steady = self.steady_draw(caller, callee, key, true);
        Leg::After(plus_units(res.duration(delay), steady))
    }

    /// One draw from the steady latency of the link `caller -> callee`'s
    /// request leg (or its answer leg) \[units\]; 0 without one.
    fn steady_draw(&mut self, caller: usize, callee: usize, key: Option<u64>, answer: bool) -> f64 {
        let mut units = 0.0;
        for (a, b, request, back) in &mut self.steady {
            if *a == caller && *b == callee {
                let leg = if answer { back } else { request };
                if let Some(s) = leg {
                    units += s.draw(key);
                }
            }
        }
        units
    }
}

/// `d` plus `units` (a fraction of a unit rounds as a service time does);
/// `d` itself when `units` is 0.
fn plus_units(d: Duration, units: f64) -> Duration {
    if units == 0.0 {
        return d;
    }
    Resolution::TICKS.duration(d.units() as f64 + units)
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
        let mut l = Links::new(&m, 1, res);
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
            l.answer(&m.faults, 20, 0, 1, 0, res, None),
            Leg::After(res.duration(10.0))
        );
        let m = model(vec![link(cut, None)]);
        let mut l = Links::new(&m, 1, res);
        assert_eq!(l.request(&m.faults, 15, 0, 1, res, None), Leg::Lost);
        assert_eq!(l.answer(&m.faults, 15, 0, 1, 0, res, None), Leg::Lost);
        let fail = Some(ResponseSpec::Status {
            code: 503,
            retry_after: None,
        });
        let m = model(vec![link(TimedFault::default(), fail)]);
        let mut l = Links::new(&m, 1, res);
        assert!(!l.answers(1));
        assert!(matches!(
            l.request(&m.faults, 15, 0, 1, res, None),
            Leg::Fail(Answer::Fail(_), _)
        ));
    }

    /// `latency + 20ms jitter 5ms` on a link: each try's delay is 20 +
    /// 5 (2u - 1) ms, uniform on [15, 25): mean D = 20 ms, variance J^2/3
    /// = 8.333 ms^2, never outside [15, 25]. Over n = 100 000 tries the
    /// sample mean's sd is J / sqrt(3n) = 0.009 ms and the sample
    /// variance's sd J^2 sqrt(4 / 45n) = 0.0236 ms^2 (0.28 % of J^2/3),
    /// so 0.05 ms and 2 % are over five sd each (the seed is fixed: a
    /// wrong rule fails, chance does not). With J = 6 ms > D = 2 ms the
    /// draw 2 + U, U uniform on [-6, 6), is clamped at 0 (Toxiproxy's
    /// negative sleep waits no time): a third of the tries take 0 and the
    /// mean is (1/12) * 8^2 / 2 = 2.667 ms (sd of the mean 0.006 ms).
    #[test]
    fn jitter_is_uniform_around_d_and_never_negative() {
        let res = Resolution::fine(squall_lang::Clock::Ms);
        let ms = res.per_tick() as f64;
        let jit = |d: f64, j: f64| TimedFault {
            latency_add: Some(d),
            latency_jitter: Some(j),
            ..Default::default()
        };
        let n = 100_000;
        let draws = |m: &Model, l: &mut Links| -> Vec<f64> {
            (0..n)
                .map(|_| match l.request(&m.faults, 15, 0, 1, res, None) {
                    Leg::After(d) => d.units() as f64 / ms,
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let m = model(vec![link(jit(20.0, 5.0), None)]);
        let x = draws(&m, &mut Links::new(&m, 7, res));
        let mean = x.iter().sum::<f64>() / n as f64;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        assert!((mean - 20.0).abs() < 0.05, "{mean}");
        assert!((var / (25.0 / 3.0) - 1.0).abs() < 0.02, "{var}");
        assert!(x.iter().all(|v| (15.0..=25.0).contains(v)));
        let m = model(vec![link(jit(2.0, 6.0), None)]);
        let x = draws(&m, &mut Links::new(&m, 7, res));
        let zeros = x.iter().filter(|v| **v == 0.0).count() as f64 / n as f64;
        let mean = x.iter().sum::<f64>() / n as f64;
        // A share's sd sqrt(1/3 * 2/3 / n) = 0.0015: 0.01 is over five.
        assert!((zeros - 1.0 / 3.0).abs() < 0.01, "{zeros}");
        assert!((mean - 8.0 / 3.0).abs() < 0.03, "{mean}");
    }
}
