//! [`WorkQueue`]: a node whose calls are messages, worked by a pool of
//! consumers (a service with `consumers N`), as a server-side component.
//!
//! A message reaches the queue when a source's request enters the node (it
//! is the request's entry call) and is counted there like any call. Then:
//!
//! 1. it is decided *poison* or not (`poison N`: the first `N` messages to
//!    arrive; `poison P%`: one draw per message from `poison/<node>`), and
//!    joins the tail of the queue ([`WorkQueue::arrive`]);
//! 2. a free consumer takes the message at the head (a *receive*,
//!    [`WorkQueue::receive`]) and works it for a time drawn from the `work`
//!    distribution (one draw per receive from `work/<node>`);
//! 3. a good message is *done*: the request completes, its end-to-end
//!    latency is its time from arrival. A poison message fails: when this
//!    was its `max_receives`-th receive it moves to the dead-letter queue
//!    (the request ends as dropped); otherwise it is *redelivered*: back at
//!    the **head** of the queue at once (`redeliver immediately`, the
//!    default: RabbitMQ's requeue, which puts a rejected message back at
//!    its place), or after a backoff wait (`redeliver exponential 100ms x
//!    2 cap 10s`, any retry backoff kind: the wait before redelivery `n` is
//!    the backoff's wait before retry `n`; jittered kinds draw from
//!    `redeliver/<node>`), after which it goes back to the head, being
//!    older than the messages behind it (SQS's visibility timeout)
//!    ([`WorkQueue::worked`], [`WorkQueue::back_at_head`]).
//!
//! So with immediate requeue a consumer that failed a poison message takes
//! it again in the same moment: it *spins*, and once every consumer holds a
//! poison message no good message is ever received again.
//!
//! Depth is the node's queue level (messages visible or waiting out a
//! backoff), busy consumers its in-service level; receives, redeliveries,
//! dead letters, messages done and the age of the oldest message not yet
//! done or dead-lettered are in [`crate::observe::work_queue`]. At the end
//! every message that arrived is done, dead-lettered, queued, delayed or
//! being worked ([`QueueCounts::balances`]).
//!
//! A work queue reads no deadline, fault or rate limit: it is entered by
//! sources and calls nobody (the language refuses anything else).
//!
//! The component decides; the timed event loop (`simulation/timed/`) keeps
//! the call slab, the node's levels and the calendar, and schedules what
//! the component returns: a receive's end of work, a redelivery's wait.

use std::collections::{BTreeSet, VecDeque};

use squall_lang::{Model, Poison, WorkQueueSpec};

use crate::observe::work_queue::{QueueCount, QueueCounts, QueueRecorder, WorkQueueObservations};
use crate::outcome::{fail, Answer, FailKind};
use crate::policy::backoff::sample_wait;
use crate::rng::{Generator, Stream};
use crate::time::{Duration, Resolution, Time};

use super::latency::Latency;
use super::node::Handle;

/// What becomes of a message whose receive is over ([`WorkQueue::worked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Worked {
    /// Done or dead-lettered: its request ends with the message's answer.
    Ended,
    /// Redelivered at once: back at the head of the queue.
    Requeue,
    /// Redelivered after a wait \[ticks\]; `previous` is the backoff's
    /// state to keep for the next wait (`None`: none yet).
    Delay { wait: u64, previous: Option<u64> },
}

/// One work queue's state.
#[derive(Debug, Clone)]
pub(crate) struct WorkQueue {
    spec: WorkQueueSpec,
    work: Option<Latency>,
    work_stream: Stream,
    poison_stream: Stream,
    redeliver_draws: Generator,
    /// Visible messages, head first.
    visible: VecDeque<Handle>,
    /// Messages not yet done or dead-lettered, by arrival.
    live: BTreeSet<(Time, u32)>,
    /// Consumers working a message.
    busy: u32,
    counts: QueueCounts,
    recorder: QueueRecorder,
}

impl WorkQueue {
    /// The queues of `model`'s nodes (`None` for a node that is not one).
    pub(crate) fn for_model(
        model: &Model,
        seed: u64,
        res: Resolution,
        windows: &[(Time, Time)],
    ) -> Vec<Option<WorkQueue>> {
        model
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let spec = n.work_queue.as_ref()?;
                Some(WorkQueue {
                    work: spec.work.as_ref().map(|l| Latency::new(l, 0.0, res)),
                    work_stream: Stream::new(seed, &format!("work/{i}")),
                    poison_stream: Stream::new(seed, &format!("poison/{i}")),
                    redeliver_draws: Generator::SplitMix(Stream::new(
                        seed,
                        &format!("redeliver/{i}"),
                    )),
                    visible: VecDeque::new(),
                    live: BTreeSet::new(),
                    busy: 0,
                    counts: QueueCounts::default(),
                    recorder: QueueRecorder::new(windows.to_vec(), spec.dead_letter.clone()),
                    spec: spec.clone(),
                })
            })
            .collect()
    }

    fn oldest(&self) -> Option<Time> {
        self.live.first().map(|&(t, _)| t)
    }

    /// Message `message` (a call and its generation, queued) reaches the
    /// queue at `now` and joins its tail. Returns its answer, decided at
    /// arrival as a leaf's is: dead-lettered for a poison message,
    /// success otherwise.
    pub(crate) fn arrive(&mut self, now: Time, message: Handle) -> Answer {
        self.recorder.age_until(now, self.oldest());
        self.counts.arrived += 1;
        let poison = match self.spec.poison {
            None => false,
            Some(Poison::First(n)) => self.counts.arrived <= n,
            Some(Poison::Share(p)) => self.poison_stream.next_f64() < p,
        };
        self.live.insert((now, message.0));
        self.visible.push_back(message);
        if poison {
            fail(FailKind::DeadLettered)
        } else {
            Answer::Ok
        }
    }

    /// A free consumer takes the message at the head at `now`, skipping
    /// the ones `is_current` says went stale: the message's call and its
    /// time of work. `None` when every consumer is busy or nothing is
    /// visible.
    pub(crate) fn receive(
        &mut self,
        now: Time,
        mut is_current: impl FnMut(Handle) -> bool,
    ) -> Option<(u32, Duration)> {
        if self.busy >= self.spec.consumers {
            return None;
        }
        let (c, _) = loop {
            let message = self.visible.pop_front()?;
            if is_current(message) {
                break message;
            }
        };
        self.busy += 1;
        self.recorder.count(QueueCount::Receive, now);
        let d = match &self.work {
            Some(l) => l.sample_loaded(&mut self.work_stream, 0),
            None => Duration::ZERO,
        };
        Some((c, d))
    }

    /// A message back from its redelivery wait goes to the head.
    pub(crate) fn back_from_wait(&mut self, message: Handle) {
        self.counts.delayed -= 1;
        self.visible.push_front(message);
    }

    /// A message redelivered at once goes back to the head.
    pub(crate) fn back_at_head(&mut self, message: Handle) {
        self.visible.push_front(message);
    }

    /// The receive of message `c` (arrived at `arrived`, received `tries`
    /// times, answering `answer`; `previous`: its last redelivery wait) is
    /// over at `now`: its consumer is free, and the message ends or is
    /// redelivered.
    pub(crate) fn worked(
        &mut self,
        now: Time,
        c: u32,
        arrived: Time,
        tries: u32,
        answer: Answer,
        previous: Option<u64>,
    ) -> Worked {
        self.busy -= 1;
        let last = self.spec.max_receives.is_some_and(|m| tries >= m);
        let end = match answer {
            Answer::Ok => Some(QueueCount::Done),
            Answer::Fail(_) if last => Some(QueueCount::DeadLetter),
            Answer::Fail(_) => None,
        };
        if let Some(what) = end {
            self.recorder.age_until(now, self.oldest());
            self.live.remove(&(arrived, c));
            self.recorder.count(what, now);
            match what {
                QueueCount::Done => self.counts.done += 1,
                _ => self.counts.dead_lettered += 1,
            }
            return Worked::Ended;
        }
        self.recorder.count(QueueCount::Redelivery, now);
        match &self.spec.redeliver {
            None => Worked::Requeue,
            Some(b) => {
                let mut previous = previous;
                let wait = sample_wait(b, tries, &mut self.redeliver_draws, &mut previous);
                self.counts.delayed += 1;
                Worked::Delay { wait, previous }
            }
        }
    }

    /// What the queue measured, at the end of the run `end`.
    pub(crate) fn finish(mut self, end: Time) -> WorkQueueObservations {
        self.recorder.age_until(end, self.oldest());
        let counts = QueueCounts {
            queued: self.visible.len() as u64,
            in_flight: u64::from(self.busy),
            ..self.counts
        };
        self.recorder.finish(counts)
    }
}
