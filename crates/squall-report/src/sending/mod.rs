//! Sending studies (document 004): what a pool of senders did against a
//! provider with a rate ceiling, put into tables and into an attempt log.
//!
//! | concern                                                  | file             |
//! |----------------------------------------------------------|------------------|
//! | runs side by side, codes by status, the series per bin   | `tables.rs`      |
//! | the attempt log: SQLite (`send_attempts`) and CSV        | `attempt_log.rs` |
//! | UTC timestamps from the scenario's `epoch`               | `utc.rs`         |
//! | a sender's run in a study, and the values paths read     | `send_run.rs`    |
//! | the blocks `squall run` prints for a study's senders     | `report.rs`      |

pub mod attempt_log;
pub mod report;
pub mod send_run;
pub mod tables;
pub mod utc;

pub use attempt_log::{
    attempt_log_csv, write_attempt_log_sqlite, AttemptLogError, LogRow, RunLog, COLUMNS,
};
pub use send_run::{run_senders, sender_specs, SendRun};
pub use tables::{codes_by_status, codes_table, per_bin_table, side_by_side, throttle_ratio};
pub use utc::utc_text;
