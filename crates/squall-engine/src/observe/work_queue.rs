//! What a work queue measured: receives, redeliveries, dead letters and
//! messages done, the age of its oldest message, per named window (by
//! event time, exactly) and over the run; and where every message is at
//! the end.
//!
//! Depth (messages waiting, visible or waiting to be redelivered) and
//! busy consumers are the node's queue and in-service levels
//! ([`super::timed::Stretch`]); latency at the node is a message's time
//! from its arrival to its end (done or dead-lettered).

use serde::Serialize;

use crate::time::Time;

/// Counts over one stretch of time (a window, or the run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct QueueStretch {
    /// Messages a consumer took (first receives and redeliveries).
    pub receives: u64,
    /// Failed receives after which the message came back.
    pub redeliveries: u64,
    /// Messages moved to the dead-letter queue.
    pub dead_letters: u64,
    /// Messages worked successfully.
    pub done: u64,
    /// The oldest message's age at its highest \[engine units\]: the time
    /// since arrival of the oldest message not yet done or dead-lettered
    /// (in the queue, waiting to be redelivered, or being worked).
    pub oldest_age: u64,
}

/// Where every message that reached the queue is at the end:
/// `arrived = done + dead_lettered + queued + delayed + in_flight`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct QueueCounts {
    /// Messages that reached the queue.
    pub arrived: u64,
    /// Worked successfully.
    pub done: u64,
    /// Moved to the dead-letter queue.
    pub dead_lettered: u64,
    /// Visible in the queue, waiting for a consumer.
    pub queued: u64,
    /// Waiting out a redelivery backoff.
    pub delayed: u64,
    /// Being worked by a consumer.
    pub in_flight: u64,
}

impl QueueCounts {
    /// True when every message is accounted for.
    pub fn balances(&self) -> bool {
        self.arrived == self.done + self.dead_lettered + self.queued + self.delayed + self.in_flight
    }
}

/// One work queue's observations.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct WorkQueueObservations {
    /// The dead-letter queue's name, if it has one.
    pub dead_letter: Option<String>,
    /// The whole run.
    pub run: QueueStretch,
    /// Per named window, in window order.
    pub windows: Vec<QueueStretch>,
    /// Where every message is at the end.
    pub end: QueueCounts,
}

/// A counter of [`QueueStretch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueueCount {
    Receive,
    Redelivery,
    DeadLetter,
    Done,
}

/// Records a queue's stretches as events happen.
#[derive(Debug, Clone)]
pub(crate) struct QueueRecorder {
    windows: Vec<(Time, Time)>,
    obs: WorkQueueObservations,
    /// The last time the oldest age was brought up to date.
    last: Time,
}

impl QueueRecorder {
    /// A recorder for named windows `windows` (`from..to`, end excluded).
    pub(crate) fn new(windows: Vec<(Time, Time)>, dead_letter: Option<String>) -> Self {
        QueueRecorder {
            obs: WorkQueueObservations {
                dead_letter,
                windows: vec![QueueStretch::default(); windows.len()],
                ..Default::default()
            },
            windows,
            last: Time::ZERO,
        }
    }

    /// Counts one `what` at `now`.
    pub(crate) fn count(&mut self, what: QueueCount, now: Time) {
        let bump = |s: &mut QueueStretch| match what {
            QueueCount::Receive => s.receives += 1,
            QueueCount::Redelivery => s.redeliveries += 1,
            QueueCount::DeadLetter => s.dead_letters += 1,
            QueueCount::Done => s.done += 1,
        };
        bump(&mut self.obs.run);
        for (w, &(from, to)) in self.windows.iter().enumerate() {
            if from <= now && now < to {
                bump(&mut self.obs.windows[w]);
            }
        }
    }

    /// Brings the oldest age up to `now`, `oldest` being the arrival of
    /// the oldest live message since the last call (`None`: none). Called
    /// before every change of the live messages: between two changes the
    /// oldest message is the same and its age only grows, so the highest
    /// age in a window is at the latest moment of that stretch inside it.
    pub(crate) fn age_until(&mut self, now: Time, oldest: Option<Time>) {
        if let Some(o) = oldest {
            let age = now.since(o).units();
            self.obs.run.oldest_age = self.obs.run.oldest_age.max(age);
            for (w, &(from, to)) in self.windows.iter().enumerate() {
                if from < now && self.last < to {
                    let at = now.min(to);
                    let s = &mut self.obs.windows[w];
                    s.oldest_age = s.oldest_age.max(at.since(o).units());
                }
            }
        }
        self.last = now;
    }

    /// The observations, with the end's counts.
    pub(crate) fn finish(mut self, end: QueueCounts) -> WorkQueueObservations {
        self.obs.end = end;
        self.obs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(u: u64) -> Time {
        Time::from_units(u)
    }

    #[test]
    fn oldest_age_peaks_at_the_window_end_or_before_a_change() {
        let mut r = QueueRecorder::new(vec![(t(0), t(10)), (t(10), t(20))], None);
        // A message from 2 lives until 14; another from 5 until 30.
        r.age_until(t(2), None);
        r.age_until(t(5), Some(t(2)));
        r.age_until(t(14), Some(t(2)));
        r.age_until(t(30), Some(t(5)));
        let o = r.finish(QueueCounts::default());
        // Window 0: at its end (10) the oldest (from 2) is 8 old.
        assert_eq!(o.windows[0].oldest_age, 8);
        // Window 1: the message from 5 at the window's end, 15 old.
        assert_eq!(o.windows[1].oldest_age, 15);
        assert_eq!(o.run.oldest_age, 25);
    }
}
