//! Sending: a queue of records worked by a pool of senders against a
//! provider with a rate ceiling.
//!
//! A record is a piece of work that costs money to lose (a message, a
//! notification). Senders take records from the queue at a token rate and
//! send them; the provider answers a code; the sender's classification
//! decides what the record becomes. The pieces, one file each:
//!
//! | concern                                             | file                 |
//! |-----------------------------------------------------|----------------------|
//! | the per-record state machine and its checker        | `state.rs`           |
//! | codes and their classes, as data                    | `classify.rs`        |
//! | `next_attempt_at`: Retry-After, else full jitter    | `next_attempt.rs`    |
//! | the throttle ratio over a sliding window            | `throttle_window.rs` |
//! | the adaptive send rate (AIMD, AWS adaptive / CUBIC) | `adaptive.rs`, `aimd.rs`, `aws_adaptive.rs` |
//! | what a study is made of                             | `spec.rs`            |
//! | the source that feeds a sender (its records)        | `feed.rs`            |
//! | a provider: its ceiling and its answers             | `provider.rs`        |
//! | a sender: records, pool, caller side, series        | `sender.rs`          |
//! | a sender's event on the calendar, the trait it schedules through | `calendar.rs` |
//! | a run's senders and providers, as the timed loop holds them | `engine.rs`  |
//! | the entry that builds a run of senders              | `run.rs`             |
//! | what a run measured                                 | `observations.rs`    |
//!
//! A run of senders is a run of the timed engine (`simulation/timed/`):
//! its loop pops a sender's event like any other and hands it to the
//! senders the run holds; `run.rs` says how, and what that run keeps of
//! the sending loop it replaced (its end, its budget, its order).
//!
//! The rule the module is built around (document 004): a rate limit is
//! not a failure. "Never", "not like this" and "not now" are three
//! answers; a client that folds them into one bucket throws away the only
//! information that says what to do.

pub mod adaptive;
pub mod aimd;
pub mod aws_adaptive;
mod calendar;
pub mod classify;
mod engine;
mod feed;
pub mod next_attempt;
pub mod observations;
mod provider;
pub mod run;
mod sender;
pub mod spec;
pub mod state;
pub mod throttle_window;

pub use adaptive::{AdaptiveRate, AdaptiveSpec};
pub use aimd::{Aimd, AimdSpec};
pub use aws_adaptive::AwsAdaptive;
pub(crate) use calendar::{Calendar, SendEvent, CALENDAR_EVENT_BYTES};
pub use classify::{Classifier, CodeClass, CodeMatch, ProviderCode};
pub(crate) use engine::{Senders, SendersRef};
pub use next_attempt::{next_attempt_at, FullJitter, RetryAfter};
pub use observations::{AttemptRow, FinalStates, SendBin, SendObservations};
pub use run::{estimate_bytes, run_senders, run_sending, MAX_RECORDS};
pub use sender::tick_seconds;
pub use spec::{
    ClassifiedSpec, ClientSpec, PoolSpec, ProviderSpec, RecordBatch, RecordsSpec, RetryAfterForm,
    SendSpec, WindowCap,
};
pub use state::{check_attempts, IllegalAttempt, LoggedAttempt, Machine, SendState};
pub use throttle_window::ThrottleWindow;
