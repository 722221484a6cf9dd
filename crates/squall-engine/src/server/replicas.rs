//! [`Replicas`]: a service that stands for N nodes of the same spec
//! behind a balancer (`replicas N`, `balance ...`).
//!
//! # Design
//!
//! A replicated service stays **one node** of the call graph: one name,
//! one caller side (its retries, budget, breaker and timeout are the
//! service's, as a client library shared by the replicas would be), one
//! row in every table. What is multiplied is its **server side**: each
//! replica is a [`ServerSide`] of its own, built from the same
//! [`NodeSpec`](squall_lang::NodeSpec), with its own per-tick capacity
//! window, rate limit, workers and queue, latency stream and faults. So
//! `api` in a table is the sum over its replicas, and a model with
//! `replicas 1` is the model without the line, byte for byte: replica 0
//! draws from the streams the node always drew from (`latency/<node>`,
//! `fault/<k>`), the balancer draws nothing with one replica, and no
//! observation changes.
//!
//! **The balancer** belongs to the replicated service and is shared by
//! all its callers, like a load balancer in front of it (with one caller,
//! as in a chain, the same as that caller's client-side balancer). Every
//! call that reaches the node is one pick: a retry is a new call, so it
//! goes back through the balancer and may land on another replica. The
//! rules, named after Envoy's load balancers:
//!
//! | `balance` | rule | Envoy |
//! |---|---|---|
//! | `round_robin` (default) | replicas 0, 1, ..., N-1, 0, ... in arrival order | `round_robin` (Envoy starts each worker at a random index; squall at 0, so a trace can be worked by hand) |
//! | `random` | one uniform draw | `random` |
//! | `least_outstanding` | fewest outstanding calls; ties uniformly, by reservoir sampling | `least_request` with `FULL_SCAN` (`least_request_lb.cc`, `unweightedHostPickFullScan`) |
//! | `p2c` | two uniform draws with replacement; the second wins only with strictly fewer outstanding | `least_request` with `N_CHOICES` and its default `choice_count` 2 (`unweightedHostPickNChoices`) |
//!
//! A replica's **outstanding** calls are those that have arrived at it and
//! not answered yet (queued, in service, or waiting downstream; a call its
//! caller gave up on still counts until it answers or is cancelled), the
//! replica's own view of Envoy's `rq_active`. Only `least_outstanding`
//! and `p2c` keep the count; they are accepted only on a service whose
//! calls take time (on the zero-time path every call answers in the
//! instant it arrives and the counts would read zero).
//!
//! Draws come from the node's own stream `balance/<node>`, one per
//! `random` pick, two per `p2c` pick, one per tie met by
//! `least_outstanding`; with one replica nothing is drawn.
//!
//! **Faults**: `fault ... { on api[1] ... }` strikes replica 1 only (its
//! [`FaultSpec::replica`](squall_lang::FaultSpec::replica)); `on api`
//! strikes every replica alike. Replica `r > 0` draws a fault's error
//! share from `fault/<k>/<r>` and its service times from
//! `latency/<node>/<r>`.
//!
//! **Per-replica metrics**: the calls each replica received, and those it
//! answered at once without serving them (a failing fault or error share,
//! no capacity, a throttle, overflow), are kept per run
//! ([`Replicas::calls`], [`Replicas::refused`]) and reach the
//! observations as [`ReplicaCounts`](crate::ReplicaCounts). When the
//! run is asked for them ([`Replicas::tally_windows`]), the balancer also
//! counts each replica's calls, answers and refusals for capacity per
//! named window ([`ReplicaWindows`]), where the node's own series counts
//! them: a report that reads `api[1].calls` reads these. The answer of a
//! call that passed a replica on the zero-time path comes later, up the
//! path: the balancer remembers each request's replica (`held`, by
//! request slot; a path passes a node once) until then. On a run that
//! takes time the balancer is told each answer with the call's arrival
//! ([`Replicas::answered`], in place of [`Replicas::done`]): it counts the
//! answers with success to each window's calls (`success_rate`) and, when
//! the run keeps latency per replica, records the time each call it
//! served spent at the replica, where the node records its own
//! (`observe/replica_windows.rs` says what that time is). A node without
//! `replicas` pays nothing for any of it: `answered` is `done`'s one test.
//!
//! **Paths**: on the timed path every balancer works; on the zero-time
//! path `round_robin` and `random` spread calls over the replicas' own
//! per-tick capacity windows and failing faults (the language refuses
//! the two that read outstanding calls there).

use std::cell::Cell;
use std::rc::Rc;

use squall_lang::{Balance, Model};

use crate::observe::histogram::Quantiles;
use crate::observe::replica_windows::{ReplicaCount, ReplicaWindow, ReplicaWindows};
use crate::outcome::Answer;
#[cfg(doc)]
use crate::outcome::FailKind;
use crate::rng::Stream;
use crate::time::{Resolution, Time};

use super::node::{ServerSide, REFUSED};

/// A node's replicas and its balancer. Replica 0 is kept inline and the
/// balancer with the other replicas behind one pointer, so a node without
/// `replicas` reaches its server side as it did before replicas existed
/// (with the replicas in one `Vec` the round storm's walk paid 109 M
/// instructions more, `bench/instructions.sh` storm-1 3.377 G -> 3.486 G).
#[derive(Debug, Clone)]
pub(crate) struct Replicas {
    /// Replica 0 (the node itself when it has no `replicas`).
    first: ServerSide,
    /// Calls the node received, when it has no `replicas`.
    first_calls: u64,
    /// The balancer and replicas 1.., when the node has `replicas` (even
    /// `replicas 1`).
    more: Option<Box<Balancer>>,
}

/// A replicated node's balancer and its replicas after the first.
#[derive(Debug, Clone)]
struct Balancer {
    /// Replicas 1, 2, ...
    rest: Vec<ServerSide>,
    balance: Balance,
    /// The next replica of `round_robin`.
    next: usize,
    /// `balance/<node>`: the random balancers' draws.
    stream: Stream,
    /// Calls at each replica not yet answered (kept only when the balancer
    /// reads them).
    outstanding: Vec<u32>,
    /// Calls each replica received over the run.
    calls: Vec<u64>,
    /// Counts per named window and replica, when the run keeps them.
    windows: Option<ReplicaWindows>,
    /// The replica each request's call is held at, by request slot (the
    /// zero-time path's answers up the path, when `windows` is kept).
    held: Vec<u16>,
    /// The tick and request slot of the call being picked for, written by
    /// the event loop (when `windows` is kept).
    now: Option<CallNow>,
    /// The run's resolution, on a run that takes time (the tick of a
    /// call's arrival, for `answered_ok`).
    res: Option<Resolution>,
}

/// The tick and request slot of the call the event loop is making, shared
/// by the loop (which writes it once per request, retry or timed call)
/// and the balancers that count per window (which read it when they
/// pick). Passing the tick and slot into every pick instead cost the storm
/// benchmark 71 M instructions (2 %), nodes without `replicas` included;
/// a test of whether to count, 124 M.
pub(crate) type CallNow = Rc<Cell<(u64, u32)>>;

impl Replicas {
    /// The replicas of node `i` of `model`; `res` as for [`ServerSide::new`].
    pub(crate) fn new(model: &Model, i: usize, seed: u64, res: Option<Resolution>) -> Self {
        let n = &model.nodes[i];
        let count = n.replica_count();
        Replicas {
            first: ServerSide::new(model, i, 0, seed, res),
            first_calls: 0,
            more: n.replicas.map(|spec| {
                Box::new(Balancer {
                    rest: (1..count)
                        .map(|r| ServerSide::new(model, i, r, seed, res))
                        .collect(),
                    balance: spec.balance,
                    next: 0,
                    stream: Stream::new(seed, &format!("balance/{i}")),
                    outstanding: vec![0; count],
                    calls: vec![0; count],
                    windows: None,
                    held: Vec::new(),
                    now: None,
                    res,
                })
            }),
        }
    }

    /// Replica 0 (every replica has the same spec: what one says of its
    /// configuration holds for all).
    #[inline(always)]
    pub(crate) fn first(&self) -> &ServerSide {
        &self.first
    }

    /// Replica `r`.
    #[inline(always)]
    pub(crate) fn at(&mut self, r: usize) -> &mut ServerSide {
        if r == 0 {
            &mut self.first
        } else {
            let more = self
                .more
                .as_mut()
                .expect("a replica after the first has a balancer");
            &mut more.rest[r - 1]
        }
    }

    /// True when the node has `replicas` (even one).
    pub(crate) fn replicated(&self) -> bool {
        self.more.is_some()
    }

    /// How many replicas.
    pub(crate) fn len(&self) -> usize {
        1 + self.more.as_ref().map_or(0, |m| m.rest.len())
    }

    /// Counts each replica's calls, answers and refusals per named window
    /// with these bounds (ticks, inclusive) from now on, a call at the
    /// tick and for the request `now` holds: nothing on a node without
    /// `replicas`. With `latency`, records each replica's latency per
    /// window too.
    pub(crate) fn tally_windows(&mut self, bounds: &[(u64, u64)], now: &CallNow, latency: bool) {
        if let Some(more) = &mut self.more {
            let mut w = ReplicaWindows::new(bounds, more.calls.len());
            if latency {
                w.keep_latency();
            }
            more.windows = Some(w);
            more.now = Some(Rc::clone(now));
        }
    }

    /// Each replica's latency quantiles per named window
    /// (`[window][replica]`), when kept; empty otherwise.
    pub(crate) fn latency(&self) -> Vec<Vec<Quantiles>> {
        self.more
            .as_ref()
            .and_then(|m| m.windows.as_ref())
            .map_or_else(Vec::new, ReplicaWindows::quantiles)
    }

    /// The counts per named window and replica (`[window][replica]`), when
    /// kept.
    pub(crate) fn windows(&self) -> Option<&[Vec<ReplicaWindow>]> {
        Some(self.more.as_ref()?.windows.as_ref()?.counts())
    }

    /// The replica a call that arrives now goes to (counted as received,
    /// and as outstanding where the balancer reads that).
    #[inline(always)]
    pub(crate) fn pick(&mut self) -> usize {
        match &mut self.more {
            None => {
                self.first_calls += 1;
                0
            }
            Some(more) => more.pick(),
        }
    }

    /// A call at replica `r` answers `answer` at tick `t`, or is
    /// cancelled (`None`): it is no longer outstanding, and an answer is
    /// counted for its replica where the windows are kept.
    #[inline(always)]
    pub(crate) fn done(&mut self, r: usize, t: u64, answer: Option<Answer>) {
        if let Some(more) = &mut self.more {
            more.done(r, t, answer);
        }
    }

    /// The timed path: a call at replica `r` that arrived at `arrived`
    /// answers `answer` at `now`, in tick `t` ([`Replicas::done`], with
    /// the call's arrival and whether it `held` a worker, for the counts
    /// and latency kept per window). The arguments are the caller's
    /// values as they are, and the windows' work is out of line
    /// (`answered_in_windows`): with a struct of the arguments, or that
    /// work in line, `complete_call` grew by 6 to 9 instructions per call
    /// on the continuous benchmark, replicas or not (1.937 G -> 1.943 G
    /// and 1.946 G); as written it is unchanged.
    #[inline(always)]
    pub(crate) fn answered(
        &mut self,
        r: usize,
        t: u64,
        answer: Answer,
        (now, arrived): (Time, Time),
        held: bool,
    ) {
        if let Some(more) = &mut self.more {
            more.answered(r, t, answer, (now, arrived), held);
        }
    }

    /// The zero-time path: the node answers `answer` at tick `t` to the
    /// call of request `slot` (counted for the replica the balancer gave
    /// it, where the windows are kept). `own`: the replica's own answer,
    /// where a refusal for capacity (the only [`FailKind::Refused`]) is
    /// counted as one too; an answer from below is not the replica's
    /// refusal.
    #[inline(always)]
    pub(crate) fn answered_held(&mut self, t: u64, slot: u32, answer: Answer, own: bool) {
        if let Some(more) = &mut self.more {
            more.answered_held(t, slot, answer, own);
        }
    }

    /// Replica `r` refused a call for capacity at tick `t` (the timed path;
    /// the zero-time path counts it with the answer, `answered_held`).
    pub(crate) fn refused_at(&mut self, r: usize, t: u64) {
        if let Some(w) = self.more.as_mut().and_then(|m| m.windows.as_mut()) {
            w.count(t, r, ReplicaCount::Refused);
        }
    }

    /// Calls each replica received over the run.
    pub(crate) fn calls(&self) -> &[u64] {
        match &self.more {
            None => std::slice::from_ref(&self.first_calls),
            Some(more) => &more.calls,
        }
    }

    /// Every replica, in order.
    fn sides(&self) -> impl Iterator<Item = &ServerSide> {
        let rest = self.more.as_ref().map_or(&[][..], |m| &m.rest[..]);
        std::iter::once(&self.first).chain(rest)
    }

    /// Calls each replica answered at once without serving them.
    pub(crate) fn refused(&self) -> Vec<u64> {
        self.sides().map(ServerSide::refused).collect()
    }

    /// Calls each scripted route answered over the run, summed over the
    /// replicas (each keeps its own place in the script).
    pub(crate) fn route_calls(&self) -> Vec<u64> {
        let mut sum = self.first.route_calls().to_vec();
        for side in self.sides().skip(1) {
            for (s, c) in sum.iter_mut().zip(side.route_calls()) {
                *s += c;
            }
        }
        sum
    }

    /// The composite ledger, the service's (replica 0 keeps it for all).
    pub(crate) fn ledger_mut(&mut self) -> &mut [u64] {
        self.first.ledger_mut()
    }
}

/// The count an answer adds to.
fn answer_count(answer: Answer) -> ReplicaCount {
    match answer {
        Answer::Ok => ReplicaCount::Served,
        Answer::Fail(_) => ReplicaCount::Failed,
    }
}

impl Balancer {
    /// [`Replicas::answered_held`] on a replicated node.
    #[inline(never)]
    fn answered_held(&mut self, t: u64, slot: u32, answer: Answer, own: bool) {
        if let Some(w) = &mut self.windows {
            let r = self.held.get(slot as usize).map_or(0, |&r| r as usize);
            w.count(t, r, answer_count(answer));
            if own && answer == REFUSED {
                w.count(t, r, ReplicaCount::Refused);
            }
        }
    }

    /// [`Replicas::pick`] on a replicated node.
    #[inline(never)]
    fn pick(&mut self) -> usize {
        let n = self.calls.len();
        let r = match self.balance {
            _ if n == 1 => 0,
            Balance::RoundRobin => {
                let r = self.next;
                self.next = (r + 1) % n;
                r
            }
            Balance::Random => self.draw(n),
            Balance::LeastOutstanding => self.least(),
            Balance::P2c => {
                let a = self.draw(n);
                let b = self.draw(n);
                if self.outstanding[b] < self.outstanding[a] {
                    b
                } else {
                    a
                }
            }
        };
        self.calls[r] += 1;
        if self.balance.reads_load() {
            self.outstanding[r] += 1;
        }
        if let (Some(w), Some(now)) = (&mut self.windows, &self.now) {
            let (t, slot) = now.get();
            w.count(t, r, ReplicaCount::Call);
            let s = slot as usize;
            if self.held.len() <= s {
                self.held.resize(s + 1, 0);
            }
            self.held[s] = r as u16;
        }
        r
    }

    /// [`Replicas::answered`] on a replicated node.
    fn answered(
        &mut self,
        r: usize,
        t: u64,
        answer: Answer,
        (now, arrived): (Time, Time),
        held: bool,
    ) {
        self.done(r, t, Some(answer));
        if self.windows.is_some() {
            self.answered_in_windows(r, t, answer, (now, arrived), held);
        }
    }

    /// [`Balancer::answered`]'s counts and latency per window, out of line.
    #[inline(never)]
    fn answered_in_windows(
        &mut self,
        r: usize,
        t: u64,
        answer: Answer,
        (now, arrived): (Time, Time),
        held: bool,
    ) {
        let (Some(w), Some(res)) = (&mut self.windows, self.res) else {
            return;
        };
        if answer == Answer::Ok {
            w.count(res.tick_of(arrived), r, ReplicaCount::AnsweredOk);
        }
        if held {
            w.latency(t, r, now.since(arrived));
        }
    }

    /// [`Replicas::done`] on a replicated node.
    fn done(&mut self, r: usize, t: u64, answer: Option<Answer>) {
        if self.balance.reads_load() {
            self.outstanding[r] = self.outstanding[r].saturating_sub(1);
        }
        if let (Some(w), Some(a)) = (&mut self.windows, answer) {
            w.count(t, r, answer_count(a));
        }
    }

    /// A uniform index below `n`.
    fn draw(&mut self, n: usize) -> usize {
        ((self.stream.next_f64() * n as f64) as usize).min(n - 1)
    }

    /// The replica with the fewest outstanding calls, a tie broken
    /// uniformly: the k-th replica met at the least count so far replaces
    /// the candidate with probability 1/k (reservoir sampling, as Envoy's
    /// full scan).
    fn least(&mut self) -> usize {
        let mut best = 0;
        let mut tied = 1usize;
        for r in 1..self.calls.len() {
            let (o, b) = (self.outstanding[r], self.outstanding[best]);
            if o < b {
                best = r;
                tied = 1;
            } else if o == b {
                tied += 1;
                if self.draw(tied) == 0 {
                    best = r;
                }
            }
        }
        best
    }
}
