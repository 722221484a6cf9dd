//! A call down a request's path and its answer back up: arrival, the
//! breaker's admission, delivery of an answer to each caller, retry waits,
//! and the end of the request at its source.

use squall_lang::{RetrySpec, Schedule};

use crate::observations::{OpRecord, TraceRow, TRACE_LIMIT};
use crate::outcome::{
    classify, counts_against_dependency, describe, Answer, Class, FailKind, Failure,
};

use super::{runner::Runner, Event, SimError, NEVER};

impl Runner<'_, '_> {
    /// A call arrives at path position `pos`: walk down until some node
    /// answers by itself, then carry the answer up.
    pub(super) fn arrive(&mut self, t: u64, slot: u32, mut pos: usize) -> Result<(), SimError> {
        let source = self.requests.source[slot as usize] as usize;
        let depth = self.requests.depth;
        loop {
            let path_len = self.sim.paths[source].len();
            let node = self.sim.paths[source][pos];
            self.observe(t, slot, node);
            let leaf = pos + 1 == path_len;
            if let Some(answer) = self.own_answer(t, slot, node, leaf, 0) {
                self.count_answer(t, node, answer);
                return self.deliver(t, slot, pos as isize - 1, answer, true);
            }
            // The node's first try at its downstream.
            let k = slot as usize * depth + pos;
            self.requests.tries[k] = 1;
            self.requests.started[k] = t;
            self.requests.prev_wait[k] = NEVER;
            if let Some(blocked) = self.admit(t, slot, pos, node) {
                return self.deliver(t, slot, pos as isize, blocked, false);
            }
            pos += 1;
        }
    }

    /// The service at `pos` sends a try downstream (after its breaker agrees).
    pub(super) fn send(&mut self, t: u64, slot: u32, pos: usize) -> Result<(), SimError> {
        let source = self.requests.source[slot as usize] as usize;
        let node = self.sim.paths[source][pos];
        if let Some(blocked) = self.admit(t, slot, pos, node) {
            return self.deliver(t, slot, pos as isize, blocked, false);
        }
        self.arrive(t, slot, pos + 1)
    }

    /// Which of `node`'s breakers guards the request in `slot`, if any.
    pub(super) fn breaker_scope(&self, slot: u32, node: usize) -> Option<usize> {
        match self.nodes[node].breakers.len() {
            0 => None,
            1 => Some(0),
            _ => Some(self.sim.kinds[self.requests.kind[slot as usize] as usize].scope),
        }
    }

    /// The path a `per path` breaker of `node` guards for this request.
    pub(super) fn scope_label(&self, slot: u32, node: usize) -> String {
        if self.nodes[node].breakers.len() > 1 {
            let scope = self.sim.kinds[self.requests.kind[slot as usize] as usize].scope;
            self.sim.scope_names.get(scope).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    }

    /// Asks the breaker of the service `node` at `pos`; `Some(answer)` when
    /// the try fails fast.
    #[inline]
    pub(super) fn admit(&mut self, t: u64, slot: u32, pos: usize, node: usize) -> Option<Answer> {
        if self.nodes[node].breakers.is_empty() {
            return None;
        }
        self.admit_through_breaker(t, slot, pos, node)
    }

    #[inline(never)]
    pub(super) fn admit_through_breaker(
        &mut self,
        t: u64,
        slot: u32,
        pos: usize,
        node: usize,
    ) -> Option<Answer> {
        let scope = self.breaker_scope(slot, node)?;
        let a = self.nodes[node].breakers[scope].admit(t);
        let k = slot as usize * self.requests.depth + pos;
        self.requests.sent_at[k] = t;
        self.requests.admitted[k] = a.before;
        self.requests.admitted_epoch[k] = a.epoch;
        if a.sent {
            return None;
        }
        self.obs.nodes[node].blocked[t as usize] += 1;
        let answer = Answer::Fail(Failure {
            kind: FailKind::CircuitOpen {
                remaining: a.remaining,
            },
            not_before: None,
        });
        self.trace(
            node,
            TraceRow {
                scope: self.scope_label(slot, node),
                time: t,
                sent: false,
                before: a.before.name(),
                outcome: if a.remaining > 0 {
                    format!(
                        "not sent ({} {} left)",
                        a.remaining,
                        self.sim.model.clock.unit_name()
                    )
                } else {
                    "not sent (probe in flight)".into()
                },
                after: a.before.name(),
            },
        );
        Some(answer)
    }

    pub(super) fn trace(&mut self, node: usize, row: TraceRow) {
        if self.obs.traces[node].len() < TRACE_LIMIT {
            self.obs.traces[node].push(row);
        } else {
            self.obs.trace_dropped[node] += 1;
        }
    }

    pub(super) fn count_answer(&mut self, t: u64, node: usize, answer: Answer) {
        let s = &mut self.obs.nodes[node];
        match answer {
            Answer::Ok => s.ok[t as usize] += 1,
            Answer::Fail(_) => s.failed[t as usize] += 1,
        }
    }

    /// Carries `answer` up: it arrives at the service at position `q` from
    /// its downstream (`sent`: the try really went out). A service with
    /// tries left schedules a retry; otherwise it answers its own caller.
    pub(super) fn deliver(
        &mut self,
        t: u64,
        slot: u32,
        mut q: isize,
        answer: Answer,
        mut sent: bool,
    ) -> Result<(), SimError> {
        let source = self.requests.source[slot as usize] as usize;
        let depth = self.requests.depth;
        let kind = self.requests.kind[slot as usize] as usize;
        while q >= 0 {
            let pos = q as usize;
            let node = self.sim.paths[source][pos];
            let k = slot as usize * depth + pos;
            if sent {
                if let Some(scope) = self.breaker_scope(slot, node) {
                    let after = self.nodes[node].breakers[scope].record(
                        counts_against_dependency(answer),
                        t,
                        self.requests.admitted_epoch[k],
                    );
                    let row = TraceRow {
                        scope: self.scope_label(slot, node),
                        time: self.requests.sent_at[k],
                        sent: true,
                        before: self.requests.admitted[k].name(),
                        outcome: describe(answer, self.sim.model.clock.unit_name()),
                        after: after.name(),
                    };
                    self.trace(node, row);
                }
            }
            if let Answer::Fail(f) = answer {
                let sim = self.sim;
                let policy = if pos == 0 {
                    sim.kinds[kind].entry_retry.as_ref()
                } else {
                    sim.model.nodes[node].retry.as_ref()
                };
                if let Some(policy) = policy {
                    if let Some(wait) = self.retry_wait(t, slot, pos, f, policy, kind) {
                        self.requests.retried[slot as usize] = true;
                        let at = t.saturating_add(wait);
                        // Only an operation's record reads its waits; for
                        // other requests they would pile up for the whole run.
                        if pos == 0 && sim.kinds[kind].op.is_some() {
                            self.op_waits[source].push(wait);
                        }
                        if at <= self.sim.model.ticks {
                            self.queue.schedule(
                                at,
                                Event::Retry {
                                    slot,
                                    pos: pos as u32,
                                },
                            )?;
                        } else {
                            // The next try falls after the run: the request is
                            // still in flight at the end.
                            self.requests.release(slot);
                            self.past_end += 1;
                        }
                        return Ok(());
                    }
                }
            }
            self.count_answer(t, node, answer);
            q -= 1;
            sent = true;
        }
        self.finish(t, slot, answer)
    }

    /// The wait before the next try of the service at `pos`, or `None` when
    /// it makes no more tries.
    pub(super) fn retry_wait(
        &mut self,
        t: u64,
        slot: u32,
        pos: usize,
        f: Failure,
        policy: &RetrySpec,
        kind: usize,
    ) -> Option<u64> {
        let k = slot as usize * self.requests.depth + pos;
        let used = self.requests.tries[k];
        let limit = match classify(f.kind, &self.sim.kinds[kind].request) {
            Class::Retryable => policy.attempts,
            Class::Unknown => policy.attempts.min(policy.unknown_attempts),
            Class::Terminal => return None,
        };
        if used >= limit {
            return None;
        }
        let r = if policy.backoff.draws() {
            let g = policy.backoff.rng().unwrap_or(self.gens.len() - 1);
            self.gens[g].next_f64()
        } else {
            0.0
        };
        let prev = self.requests.prev_wait[k];
        let mut wait = policy
            .backoff
            .wait_with(used, r, (prev != NEVER).then_some(prev));
        self.requests.prev_wait[k] = wait;
        if policy.honor_retry_after {
            if let Some(nb) = f.not_before {
                wait = wait.max(nb.saturating_sub(t));
            }
        }
        if let Some(d) = policy.deadline {
            if t.saturating_add(wait)
                .saturating_sub(self.requests.started[k])
                > d
            {
                return None;
            }
        }
        Some(wait)
    }

    /// The request ends with `answer` at its source.
    pub(super) fn finish(&mut self, t: u64, slot: u32, answer: Answer) -> Result<(), SimError> {
        self.tally_end(t, slot, answer);
        let source = self.requests.source[slot as usize] as usize;
        let kind = self.requests.kind[slot as usize] as usize;
        if let Some(op) = self.sim.kinds[kind].op {
            let entry = self.sim.paths[source][0];
            let tries = if self.sim.model.nodes[entry].downstream.is_some() {
                self.requests.tries[slot as usize * self.requests.depth]
            } else {
                1
            };
            let label = match &self.sim.model.sources[source].schedule {
                Schedule::Sequential(ops) => ops.get(op).map_or(String::new(), |o| o.label.clone()),
                _ => String::new(),
            };
            self.obs.ops[source].push(OpRecord {
                label,
                start: self.op_start[source],
                end: t,
                tries,
                outcome: describe(answer, self.sim.model.clock.unit_name()),
                success: answer == Answer::Ok,
                waits: std::mem::take(&mut self.op_waits[source]),
            });
            if let Schedule::Sequential(ops) = &self.sim.model.sources[source].schedule {
                if op + 1 < ops.len() {
                    self.queue.schedule(
                        t,
                        Event::Op {
                            source: source as u32,
                            index: op as u32 + 1,
                        },
                    )?;
                }
            }
        }
        self.requests.release(slot);
        Ok(())
    }

    /// Counts the end of the request in `slot` at tick `t`.
    #[inline]
    pub(super) fn tally_end(&mut self, t: u64, slot: u32, answer: Answer) {
        let ti = t as usize;
        match answer {
            Answer::Ok => {
                self.obs.completed[ti] += 1;
                self.obs.accounting.completed += 1;
                if !self.requests.retried[slot as usize] {
                    self.obs.first_try[ti] += 1;
                }
            }
            Answer::Fail(_) => {
                self.obs.dropped[ti] += 1;
                self.obs.accounting.dropped += 1;
            }
        }
    }
}
