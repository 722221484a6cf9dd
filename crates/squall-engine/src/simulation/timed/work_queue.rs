//! Work queues: a node whose calls are messages, worked by a pool of
//! consumers (a service with `consumers N`).
//!
//! A message reaches the queue when a source's request enters the node (it
//! is the request's entry call) and is counted there like any call. Then:
//!
//! 1. it is decided *poison* or not (`poison N`: the first `N` messages to
//!    arrive; `poison P%`: one draw per message from `poison/<node>`), and
//!    joins the tail of the queue;
//! 2. a free consumer takes the message at the head (a *receive*) and
//!    works it for a time drawn from the `work` distribution (one draw per
//!    receive from `work/<node>`);
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
//!    older than the messages behind it (SQS's visibility timeout).
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

use std::collections::{BTreeSet, VecDeque};

use squall_lang::{Model, Poison, WorkQueueSpec};

use crate::observe::work_queue::{QueueCount, QueueCounts, QueueRecorder};
use crate::outcome::{Answer, FailKind, Failure};
use crate::policy::backoff::sample_wait;
use crate::rng::{Generator, Stream};
use crate::server::latency::Latency;
use crate::time::{Duration, Resolution, Time};

use super::super::{event::Event, runner::Runner, SimError};
use super::calls::Phase;

/// One work queue's state.
#[derive(Debug, Clone)]
pub(super) struct WorkQueue {
    spec: WorkQueueSpec,
    work: Option<Latency>,
    work_stream: Stream,
    poison_stream: Stream,
    redeliver_draws: Generator,
    /// Visible messages, head first: `(call, generation)`.
    visible: VecDeque<(u32, u32)>,
    /// Messages not yet done or dead-lettered, by arrival.
    live: BTreeSet<(Time, u32)>,
    /// Consumers working a message.
    busy: u32,
    counts: QueueCounts,
    recorder: QueueRecorder,
}

impl WorkQueue {
    /// The queues of `model`'s nodes (`None` for a node that is not one).
    pub(super) fn for_model(
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

    /// Message `c` that arrived at `arrived` ends (done or dead-lettered) at
    /// `now`.
    fn end(&mut self, now: Time, c: u32, arrived: Time, what: QueueCount) {
        self.recorder.age_until(now, self.oldest());
        self.live.remove(&(arrived, c));
        self.recorder.count(what, now);
    }
}

impl Runner<'_, '_> {
    /// True when `node` is a work queue.
    pub(super) fn is_work_queue(&self, node: usize) -> bool {
        self.timed.queues.get(node).is_some_and(Option::is_some)
    }

    /// Message `c` reaches work queue `node` at `now`.
    pub(super) fn enqueue_message(
        &mut self,
        now: Time,
        c: u32,
        node: usize,
    ) -> Result<(), SimError> {
        let tm = &mut self.timed;
        let Some(q) = tm.queues[node].as_mut() else {
            return Ok(());
        };
        q.recorder.age_until(now, q.oldest());
        q.counts.arrived += 1;
        let poison = match q.spec.poison {
            None => false,
            Some(Poison::First(n)) => q.counts.arrived <= n,
            Some(Poison::Share(p)) => q.poison_stream.next_f64() < p,
        };
        // A message's answer is decided at arrival, as a leaf's is.
        tm.calls.get_mut(c).answer = if poison {
            Answer::Fail(Failure {
                kind: FailKind::DeadLettered,
                not_before: None,
            })
        } else {
            Answer::Ok
        };
        q.live.insert((now, c));
        let gen = tm.calls.enter(c, Phase::Queued);
        q.visible.push_back((c, gen));
        tm.recorder.queue(node, now, 1);
        self.dispatch(now, node)
    }

    /// Free consumers of `node` take messages from the head.
    fn dispatch(&mut self, now: Time, node: usize) -> Result<(), SimError> {
        loop {
            let tm = &mut self.timed;
            let Some(q) = tm.queues[node].as_mut() else {
                return Ok(());
            };
            if q.busy >= q.spec.consumers {
                return Ok(());
            }
            let Some((c, g)) = q.visible.pop_front() else {
                return Ok(());
            };
            if !tm.calls.current(c, g) {
                continue;
            }
            q.busy += 1;
            tm.recorder.queue(node, now, -1);
            tm.recorder.busy(node, now, 1);
            q.recorder.count(QueueCount::Receive, now);
            let call = tm.calls.get_mut(c);
            call.tries += 1;
            call.served = now;
            let d = match &q.work {
                Some(l) => l.sample_loaded(&mut q.work_stream, 0),
                None => Duration::ZERO,
            };
            let gen = tm.calls.enter(c, Phase::Service);
            self.timed
                .events
                .schedule(now.after(d).units(), Event::Wake { call: c, gen })?;
        }
    }

    /// A scheduled event of message `c` at work queue `node`: its work is
    /// over, or its redelivery wait.
    pub(super) fn queue_wake(&mut self, now: Time, c: u32, node: usize) -> Result<(), SimError> {
        let res = self.timed.res;
        let tm = &mut self.timed;
        let Some(q) = tm.queues[node].as_mut() else {
            return Ok(());
        };
        let call = *tm.calls.get(c);
        if call.phase == Phase::Backoff {
            q.counts.delayed -= 1;
            let gen = tm.calls.enter(c, Phase::Queued);
            q.visible.push_front((c, gen));
            return self.dispatch(now, node);
        }
        q.busy -= 1;
        tm.recorder.busy(node, now, -1);
        let last = q.spec.max_receives.is_some_and(|m| call.tries >= m);
        let end = match call.answer {
            Answer::Ok => Some(QueueCount::Done),
            Answer::Fail(_) if last => Some(QueueCount::DeadLetter),
            Answer::Fail(_) => None,
        };
        if let Some(what) = end {
            q.end(now, c, call.arrived, what);
            match what {
                QueueCount::Done => q.counts.done += 1,
                _ => q.counts.dead_lettered += 1,
            }
            tm.recorder.latency(node, now, now.since(call.arrived));
            self.complete_call(now, c, call.answer)?;
            return self.dispatch(now, node);
        }
        q.recorder.count(QueueCount::Redelivery, now);
        tm.recorder.queue(node, now, 1);
        match &q.spec.redeliver {
            None => {
                let gen = tm.calls.enter(c, Phase::Queued);
                q.visible.push_front((c, gen));
            }
            Some(b) => {
                let mut previous = (call.prev_wait != u64::MAX).then_some(call.prev_wait);
                let wait = sample_wait(b, call.tries, &mut q.redeliver_draws, &mut previous);
                q.counts.delayed += 1;
                let m = tm.calls.get_mut(c);
                m.prev_wait = previous.unwrap_or(u64::MAX);
                let gen = tm.calls.enter(c, Phase::Backoff);
                self.timed.events.schedule(
                    now.after(res.ticks(wait)).units(),
                    Event::Wake { call: c, gen },
                )?;
            }
        }
        self.dispatch(now, node)
    }

    /// Every work queue's observations at `end`, into the run's.
    pub(super) fn finish_queues(&mut self, end: Time) {
        let queues = std::mem::take(&mut self.timed.queues);
        let Some(timed) = self.obs.timed.as_mut() else {
            return;
        };
        for (i, q) in queues.into_iter().enumerate() {
            let Some(mut q) = q else { continue };
            q.recorder.age_until(end, q.oldest());
            let counts = QueueCounts {
                queued: q.visible.len() as u64,
                in_flight: u64::from(q.busy),
                ..q.counts
            };
            if let Some(n) = timed.nodes.get_mut(i) {
                n.queue = Some(q.recorder.finish(counts));
            }
        }
    }
}
