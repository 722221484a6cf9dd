//! Sending studies (document 004): what a pool of senders did against a
//! provider with a rate ceiling, put into tables and into an attempt log.
//!
//! | concern                                                  | file             |
//! |----------------------------------------------------------|------------------|
//! | runs side by side, codes by status, the series per bin   | `tables.rs`      |
//! | the attempt log: SQLite (`send_attempts`) and CSV        | `attempt_log.rs` |
//! | UTC timestamps from the scenario's `epoch`               | `utc.rs`         |

pub mod attempt_log;
pub mod tables;
pub mod utc;

pub use attempt_log::{
    attempt_log_csv, write_attempt_log_sqlite, AttemptLogError, LogRow, RunLog, COLUMNS,
};
pub use tables::{codes_by_status, codes_table, per_bin_table, side_by_side, throttle_ratio};
pub use utc::utc_text;
