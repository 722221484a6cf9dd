//! The send-attempt state machine of one record, and a checker that a
//! logged sequence of attempts is legal under it.
//!
//! | from        | to          | when                                               |
//! |-------------|-------------|----------------------------------------------------|
//! | `QUEUED`    | `IN_FLIGHT` | a sender takes the record                          |
//! | `IN_FLIGHT` | `SUBMITTED` | the provider accepted it                           |
//! | `IN_FLIGHT` | `PENDING`   | retryable: attempts += 1, `next_attempt_at` set    |
//! | `IN_FLIGHT` | `FAILED`    | terminal only, with the code that said so          |
//! | `PENDING`   | `QUEUED`    | at `next_attempt_at`                               |
//! | `PENDING`   | `DEFERRED`  | past the attempt cap: a human waits                |
//! | `IN_FLIGHT` | `REJECTED`  | the naive client only: anything but success        |
//!
//! The classified client never rejects, and the naive one never goes
//! pending: [`Machine`] names which table applies. `SUBMITTED`, `FAILED`,
//! `DEFERRED` and `REJECTED` are final.

use serde::Serialize;

/// Where a record stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum SendState {
    /// Waiting for a sender.
    Queued,
    /// Sent; no answer yet.
    InFlight,
    /// Accepted by the provider (final).
    Submitted,
    /// A retryable answer; waits for `next_attempt_at`.
    Pending,
    /// A terminal answer (final).
    Failed,
    /// Past the attempt cap; left for a human (final).
    Deferred,
    /// The naive client's one bucket for every non-success (final).
    Rejected,
}

impl SendState {
    /// Every state, in table order.
    pub const ALL: [SendState; 7] = [
        SendState::Queued,
        SendState::InFlight,
        SendState::Submitted,
        SendState::Pending,
        SendState::Failed,
        SendState::Deferred,
        SendState::Rejected,
    ];

    /// True for a state no record leaves.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            SendState::Submitted | SendState::Failed | SendState::Deferred | SendState::Rejected
        )
    }
}

/// Which client's transition table applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Machine {
    /// Two buckets: success, or `REJECTED` (terminal).
    Naive,
    /// Three classes: terminal, retryable, unknown (retryable under a low cap).
    Classified,
}

impl Machine {
    /// True when a record may go from `from` to `to` in one step.
    pub fn allows(self, from: SendState, to: SendState) -> bool {
        use SendState::*;
        match (from, to) {
            (Queued, InFlight) | (InFlight, Submitted) => true,
            (InFlight, Pending) | (InFlight, Failed) | (Pending, Queued) | (Pending, Deferred) => {
                self == Machine::Classified
            }
            (InFlight, Rejected) => self == Machine::Naive,
            _ => false,
        }
    }
}

/// One logged attempt as the checker sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedAttempt {
    /// 1 for the first attempt of the record.
    pub attempt: u32,
    /// When the attempt was sent \[engine units\].
    pub at: u64,
    /// The record's state once the answer was handled: `SUBMITTED`,
    /// `PENDING`, `FAILED`, `DEFERRED` or `REJECTED`.
    pub status: SendState,
    /// For `PENDING`: when the record may be queued again \[engine units\].
    pub next_attempt_at: Option<u64>,
}

/// Why a record's attempts break the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IllegalAttempt {
    /// Attempt numbers must run 1, 2, 3, ...
    OutOfOrder {
        /// The number expected.
        expected: u32,
        /// The number found.
        found: u32,
    },
    /// A step the machine does not allow.
    Transition {
        /// The attempt it happened at.
        attempt: u32,
        /// From.
        from: SendState,
        /// To.
        to: SendState,
    },
    /// An attempt after a final state.
    AfterFinal {
        /// The attempt found.
        attempt: u32,
        /// The final state before it.
        state: SendState,
    },
    /// An attempt sent before the previous one's `next_attempt_at`.
    Early {
        /// The attempt.
        attempt: u32,
        /// When it was sent.
        at: u64,
        /// When it could be.
        next_attempt_at: u64,
    },
    /// A `PENDING` attempt with no `next_attempt_at`.
    NoNextAttempt {
        /// The attempt.
        attempt: u32,
    },
}

/// The path through the machine a record's attempts make, from `QUEUED`,
/// or the first step that breaks the table.
///
/// Each attempt is `QUEUED -> IN_FLIGHT -> status`; a `PENDING` attempt that
/// is followed by another goes `PENDING -> QUEUED` first; an attempt logged
/// `DEFERRED` went `IN_FLIGHT -> PENDING -> DEFERRED`.
pub fn check_attempts(
    machine: Machine,
    attempts: &[LoggedAttempt],
) -> Result<Vec<SendState>, IllegalAttempt> {
    let mut path = vec![SendState::Queued];
    let mut due: Option<u64> = None;
    for (i, a) in attempts.iter().enumerate() {
        let expected = i as u32 + 1;
        if a.attempt != expected {
            return Err(IllegalAttempt::OutOfOrder {
                expected,
                found: a.attempt,
            });
        }
        let last = *path.last().unwrap_or(&SendState::Queued);
        if last.is_final() {
            return Err(IllegalAttempt::AfterFinal {
                attempt: a.attempt,
                state: last,
            });
        }
        if let Some(next) = due {
            if a.at < next {
                return Err(IllegalAttempt::Early {
                    attempt: a.attempt,
                    at: a.at,
                    next_attempt_at: next,
                });
            }
        }
        let mut steps = Vec::with_capacity(4);
        if last == SendState::Pending {
            steps.push(SendState::Queued);
        }
        steps.push(SendState::InFlight);
        if a.status == SendState::Deferred {
            steps.push(SendState::Pending);
        }
        steps.push(a.status);
        let mut from = last;
        for to in steps {
            if !machine.allows(from, to) {
                return Err(IllegalAttempt::Transition {
                    attempt: a.attempt,
                    from,
                    to,
                });
            }
            path.push(to);
            from = to;
        }
        due = if a.status == SendState::Pending {
            Some(
                a.next_attempt_at
                    .ok_or(IllegalAttempt::NoNextAttempt { attempt: a.attempt })?,
            )
        } else {
            None
        };
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::SendState::*;
    use super::*;

    fn at(attempt: u32, at: u64, status: SendState, next: Option<u64>) -> LoggedAttempt {
        LoggedAttempt {
            attempt,
            at,
            status,
            next_attempt_at: next,
        }
    }

    #[test]
    fn the_table_has_exactly_its_rows() {
        // Six rows for the classified client, three for the naive one.
        let count = |m: Machine| {
            SendState::ALL
                .iter()
                .flat_map(|&a| SendState::ALL.iter().map(move |&b| (a, b)))
                .filter(|&(a, b)| m.allows(a, b))
                .count()
        };
        assert_eq!(count(Machine::Classified), 6);
        assert_eq!(count(Machine::Naive), 3);
        assert!(Machine::Classified.allows(Pending, Queued));
        assert!(!Machine::Classified.allows(Queued, Submitted));
        assert!(!Machine::Classified.allows(InFlight, Rejected));
        assert!(!Machine::Naive.allows(InFlight, Pending));
        // Nothing leaves a final state.
        for s in SendState::ALL.into_iter().filter(|s| s.is_final()) {
            for t in SendState::ALL {
                assert!(!Machine::Classified.allows(s, t) && !Machine::Naive.allows(s, t));
            }
        }
    }

    #[test]
    fn retried_then_submitted() {
        let log = [
            at(1, 0, Pending, Some(500)),
            at(2, 500, Pending, Some(1500)),
            at(3, 2000, Submitted, None),
        ];
        let path = check_attempts(Machine::Classified, &log).unwrap();
        assert_eq!(
            path,
            vec![Queued, InFlight, Pending, Queued, InFlight, Pending, Queued, InFlight, Submitted]
        );
    }

    #[test]
    fn deferred_passes_through_pending() {
        let log = [at(1, 0, Pending, Some(10)), at(2, 10, Deferred, None)];
        let path = check_attempts(Machine::Classified, &log).unwrap();
        assert_eq!(path[path.len() - 2..], [Pending, Deferred]);
    }

    #[test]
    fn illegal_sequences_are_named() {
        use IllegalAttempt::*;
        let m = Machine::Classified;
        assert_eq!(
            check_attempts(m, &[at(2, 0, Submitted, None)]),
            Err(OutOfOrder {
                expected: 1,
                found: 2
            })
        );
        assert_eq!(
            check_attempts(m, &[at(1, 0, Failed, None), at(2, 5, Submitted, None)]),
            Err(AfterFinal {
                attempt: 2,
                state: Failed
            })
        );
        assert_eq!(
            check_attempts(m, &[at(1, 0, Pending, Some(9)), at(2, 5, Submitted, None)]),
            Err(Early {
                attempt: 2,
                at: 5,
                next_attempt_at: 9
            })
        );
        assert_eq!(
            check_attempts(m, &[at(1, 0, Rejected, None)]),
            Err(Transition {
                attempt: 1,
                from: InFlight,
                to: Rejected
            })
        );
        assert_eq!(
            check_attempts(m, &[at(1, 0, Pending, None)]),
            Err(NoNextAttempt { attempt: 1 })
        );
        // The naive client rejects, and never goes pending.
        assert!(check_attempts(Machine::Naive, &[at(1, 0, Rejected, None)]).is_ok());
        assert!(check_attempts(Machine::Naive, &[at(1, 0, Pending, Some(1))]).is_err());
    }
}
