//! The attempt log: every send attempt of every run, as the table
//! `send_attempts` of an SQLite database (rusqlite with SQLite compiled
//! in: nothing to install) or as CSV with the same columns.
//!
//! | column            | type    | value                                          |
//! |-------------------|---------|------------------------------------------------|
//! | `record_id`       | INTEGER | the record, 0-based in creation order          |
//! | `attempt`         | INTEGER | 1 for its first attempt                        |
//! | `created_at`      | TEXT    | when the attempt was sent, UTC (`utc.rs`)      |
//! | `provider_code`   | TEXT    | `200`, `429`, `0x58`                           |
//! | `internal_status` | TEXT    | `SUBMITTED`, `PENDING`, `FAILED`, `DEFERRED`, `REJECTED`, `IN_FLIGHT` (no answer by the end) |
//! | `next_attempt_at` | TEXT    | for `PENDING`, UTC; else NULL (empty in CSV)   |
//! | `variant`         | TEXT    | the run's label                                |
//!
//! A second table, `runs (variant, started_at, ended_at)`, holds each run's
//! span, so the document's "in the last hour" reads
//! `created_at >= datetime((SELECT MAX(ended_at) FROM runs), '-1 hour')`
//! (a simulated hour has no `now`).
//!
//! The database is written atomically: into a temporary file in the
//! target's folder, which then replaces the target in one rename, so a
//! reader never sees half a log.

use std::path::Path;

use squall_engine::sending::{AttemptRow, ProviderCode, SendObservations, SendState};

use super::utc::utc_text;

/// One run's attempts with what it takes to print them.
#[derive(Debug, Clone, Copy)]
pub struct RunLog<'a> {
    /// The run's label (`variant`).
    pub variant: &'a str,
    /// What it measured.
    pub obs: &'a SendObservations,
    /// Unix ms of tick 0 (the scenario's `epoch`).
    pub epoch_ms: i64,
    /// Milliseconds per tick of the file's clock.
    pub tick_ms: f64,
    /// Length of the run \[ticks\].
    pub ticks: u64,
}

/// A code as the log writes it: decimal for HTTP, hex for a protocol.
pub fn code_text(code: ProviderCode) -> String {
    match code {
        ProviderCode::Http(s) => s.to_string(),
        ProviderCode::Protocol(c) => format!("0x{c:02x}"),
    }
}

/// A state as the log writes it.
pub fn state_text(state: SendState) -> &'static str {
    match state {
        SendState::Queued => "QUEUED",
        SendState::InFlight => "IN_FLIGHT",
        SendState::Submitted => "SUBMITTED",
        SendState::Pending => "PENDING",
        SendState::Failed => "FAILED",
        SendState::Deferred => "DEFERRED",
        SendState::Rejected => "REJECTED",
    }
}

/// One attempt as text cells, in the table's column order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRow {
    /// `record_id`.
    pub record_id: u64,
    /// `attempt`.
    pub attempt: u32,
    /// `created_at`.
    pub created_at: String,
    /// `provider_code`.
    pub provider_code: String,
    /// `internal_status`.
    pub internal_status: &'static str,
    /// `next_attempt_at`.
    pub next_attempt_at: Option<String>,
    /// `variant`.
    pub variant: String,
}

impl RunLog<'_> {
    fn ms(&self, units: u64) -> i64 {
        let per_ms = self.obs.units_per_tick as f64 / self.tick_ms;
        self.epoch_ms + (units as f64 / per_ms).floor() as i64
    }

    /// The run's rows.
    pub fn rows(&self) -> impl Iterator<Item = LogRow> + '_ {
        self.obs.attempts.iter().map(move |a: &AttemptRow| LogRow {
            record_id: a.record,
            attempt: a.attempt,
            created_at: utc_text(self.ms(a.at)),
            provider_code: code_text(a.code),
            internal_status: state_text(a.status),
            next_attempt_at: a.next_attempt_at.map(|t| utc_text(self.ms(t))),
            variant: self.variant.to_string(),
        })
    }

    fn span(&self) -> (String, String) {
        let end = self.epoch_ms + (self.ticks as f64 * self.tick_ms).round() as i64;
        (utc_text(self.epoch_ms), utc_text(end))
    }
}

/// The columns, in order.
pub const COLUMNS: [&str; 7] = [
    "record_id",
    "attempt",
    "created_at",
    "provider_code",
    "internal_status",
    "next_attempt_at",
    "variant",
];

/// The log as CSV: a header, then one line per attempt, runs in order.
pub fn attempt_log_csv(runs: &[RunLog<'_>]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for run in runs {
        for r in run.rows() {
            let variant = if r.variant.contains([',', '"', '\n']) {
                format!("\"{}\"", r.variant.replace('"', "\"\""))
            } else {
                r.variant.clone()
            };
            out.push_str(&format!(
                "{},{},{},{},{},{},{}\n",
                r.record_id,
                r.attempt,
                r.created_at,
                r.provider_code,
                r.internal_status,
                r.next_attempt_at.unwrap_or_default(),
                variant
            ));
        }
    }
    out
}

/// Why a log could not be written.
#[derive(Debug, thiserror::Error)]
pub enum AttemptLogError {
    /// SQLite refused.
    #[error("cannot write the attempt log `{path}`: {source}")]
    Sqlite {
        /// The target.
        path: String,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The file system refused.
    #[error("cannot write the attempt log `{path}`: {source}")]
    Io {
        /// The target.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Fills a fresh database at `conn` with the runs' attempts.
pub fn fill_database(conn: &mut rusqlite::Connection, runs: &[RunLog<'_>]) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE send_attempts (
             record_id INTEGER NOT NULL,
             attempt INTEGER NOT NULL,
             created_at TEXT NOT NULL,
             provider_code TEXT NOT NULL,
             internal_status TEXT NOT NULL,
             next_attempt_at TEXT,
             variant TEXT NOT NULL
         );
         CREATE TABLE runs (variant TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT NOT NULL);",
    )?;
    let tx = conn.transaction()?;
    {
        let mut insert =
            tx.prepare("INSERT INTO send_attempts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
        let mut span = tx.prepare("INSERT INTO runs VALUES (?1, ?2, ?3)")?;
        let mut first_written = false;
        for run in runs {
            let (start, end) = run.span();
            span.execute((run.variant, start, end))?;
            for r in run.rows() {
                insert.execute((
                    r.record_id as i64,
                    r.attempt,
                    r.created_at,
                    r.provider_code,
                    r.internal_status,
                    r.next_attempt_at,
                    r.variant,
                ))?;
                if !first_written {
                    first_written = true;
                    crate::replace::reached(crate::replace::Stage::InTransaction);
                }
            }
        }
    }
    tx.commit()
}

/// Writes the runs' attempts to the SQLite database `path`, atomically
/// (a temporary file beside it, then one rename).
pub fn write_attempt_log_sqlite(path: &Path, runs: &[RunLog<'_>]) -> Result<(), AttemptLogError> {
    let shown = path.display().to_string();
    let io = |source| AttemptLogError::Io {
        path: shown.clone(),
        source,
    };
    crate::replace::replace_file(
        path,
        |tmp| {
            rusqlite::Connection::open(tmp)
                .and_then(|mut conn| {
                    fill_database(&mut conn, runs)?;
                    conn.close().map_err(|(_, e)| e)
                })
                .map_err(|source| AttemptLogError::Sqlite {
                    path: shown.clone(),
                    source,
                })
        },
        io,
    )
}

#[cfg(test)]
mod tests {
    use squall_engine::sending::*;
    use squall_lang::Clock;

    use super::*;
    use crate::sending::tables::codes_by_status;

    /// Two minutes at `clock ms`: a pool at 18/s against a ceiling of
    /// 12.5/s, one record in 50 bad, throttles as 429 or SMPP 0x58.
    fn study(client: ClientSpec) -> SendSpec {
        SendSpec {
            name: "outbox".into(),
            clock: Clock::Ms,
            ticks: 120_000,
            seed: 3,
            bin: 60_000,
            records: RecordsSpec {
                count: 3000,
                rate: None,
                batch: None,
            },
            feed: None,
            pool: PoolSpec {
                senders: 4,
                rate: 0.018,
                burst: 1.0,
                latency: 50.0,
                window_cap: None,
            },
            provider: ProviderSpec {
                name: "sms".into(),
                ceiling: 0.0125,
                burst: 5.0,
                success: ProviderCode::Http(200),
                throttles: vec![
                    (ProviderCode::Http(429), 0.7),
                    (ProviderCode::Protocol(0x58), 0.3),
                ],
                retry_after: RetryAfterForm::Date,
                bad_share: 0.02,
                bad_codes: vec![ProviderCode::Http(400), ProviderCode::Http(404)],
                unknown_share: 0.0,
                unknown_code: ProviderCode::Http(418),
            },
            client,
            adaptive: None,
        }
    }

    fn classified() -> ClientSpec {
        use CodeClass::*;
        let exact = |c| CodeMatch::Exact(c);
        ClientSpec::Classified(ClassifiedSpec {
            classifier: Classifier {
                rules: vec![
                    (exact(ProviderCode::Http(200)), Success),
                    (exact(ProviderCode::Http(429)), Retryable),
                    (exact(ProviderCode::Protocol(0x58)), Retryable),
                    (exact(ProviderCode::Http(400)), Terminal),
                    (exact(ProviderCode::Http(404)), Terminal),
                ],
            },
            throttles: vec![
                exact(ProviderCode::Http(429)),
                exact(ProviderCode::Protocol(0x58)),
            ],
            max_attempts: 6,
            unknown_attempts: 2,
            max_age: None,
            jitter_base: 500.0,
            jitter_cap: 60_000.0,
            honor_retry_after: true,
        })
    }

    const EPOCH: &str = "Wed, 14 Jan 2026 09:00:00 GMT";

    fn logs<'a>(runs: &'a [(&'a str, SendObservations)]) -> Vec<RunLog<'a>> {
        let epoch_ms = squall_lang::date::parse_date(EPOCH).unwrap_or_default();
        runs.iter()
            .map(|(variant, obs)| RunLog {
                variant,
                obs,
                epoch_ms,
                tick_ms: 1.0,
                ticks: 120_000,
            })
            .collect()
    }

    fn both() -> Vec<(&'static str, SendObservations)> {
        let naive = ClientSpec::Naive {
            success: vec![CodeMatch::Exact(ProviderCode::Http(200))],
        };
        vec![
            ("naive", run_sending(&study(naive)).unwrap()),
            ("fixed", run_sending(&study(classified())).unwrap()),
        ]
    }

    /// The document's first query, adapted: SQLite's `datetime` instead of
    /// `UTC_TIMESTAMP() - INTERVAL 1 HOUR`, and the run's end as "now".
    const BY_CODE: &str = "SELECT provider_code, internal_status, COUNT(*) AS n
        FROM send_attempts
        WHERE variant = ?1
          AND created_at >= datetime((SELECT MAX(ended_at) FROM runs), '-1 hour')
        GROUP BY 1, 2
        ORDER BY n DESC, 1, 2";

    /// The document's second query, adapted: `strftime('%H:%M', ...)` for
    /// `DATE_FORMAT(created_at, '%H:%i')`.
    const PER_MINUTE: &str = "SELECT strftime('%H:%M', created_at) AS minute,
               SUM(CASE WHEN provider_code IN ('429', '0x58') THEN 1 ELSE 0 END) AS throttled,
               COUNT(*) AS attempts
        FROM send_attempts
        WHERE variant = ?1
          AND created_at >= datetime((SELECT MAX(ended_at) FROM runs), '-30 minutes')
        GROUP BY 1 ORDER BY 1";

    #[test]
    fn the_documents_queries_agree_with_the_report() {
        let runs = both();
        let logs = logs(&runs);
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        fill_database(&mut conn, &logs).unwrap();
        for (variant, obs) in &runs {
            let mut q = conn.prepare(BY_CODE).unwrap();
            let got: Vec<(String, String, u64)> = q
                .query_map([variant], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let want: Vec<(String, String, u64)> = codes_by_status(obs)
                .into_iter()
                .map(|(c, s, n)| (c, s.to_string(), n))
                .collect();
            assert_eq!(got, want, "{variant}");
            assert!(got.len() >= 3, "{got:?}");

            let mut q = conn.prepare(PER_MINUTE).unwrap();
            let got: Vec<(String, u64, u64)> = q
                .query_map([variant], |r| {
                    Ok((
                        r.get(0)?,
                        r.get::<_, i64>(1)? as u64,
                        r.get::<_, i64>(2)? as u64,
                    ))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let want: Vec<(String, u64, u64)> = obs
                .bins
                .iter()
                .enumerate()
                .map(|(i, b)| (format!("09:{i:02}"), b.throttled, b.attempts))
                .collect();
            assert_eq!(got, want, "{variant}");
        }
        // The naive run rejects every throttle; the fixed one never rejects
        // and fails only bad records (400 and 404).
        let statuses = |variant: &str| -> Vec<(String, String)> {
            let mut q = conn
                .prepare("SELECT DISTINCT provider_code, internal_status FROM send_attempts WHERE variant = ?1 ORDER BY 1, 2")
                .unwrap();
            q.query_map([variant], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        let pair = |c: &str, s: &str| (c.to_string(), s.to_string());
        assert!(statuses("naive").contains(&pair("429", "REJECTED")));
        assert!(statuses("naive").contains(&pair("0x58", "REJECTED")));
        let fixed = statuses("fixed");
        assert!(fixed
            .iter()
            .all(|(c, s)| s != "REJECTED" && (s != "FAILED" || c == "400" || c == "404")));
        assert!(fixed.contains(&pair("429", "PENDING")));
    }

    #[test]
    fn pending_rows_carry_next_attempt_at_in_utc() {
        let runs = both();
        let logs = logs(&runs);
        let rows: Vec<LogRow> = logs[1].rows().collect();
        assert!(rows[0].created_at.starts_with("2026-01-14 09:00:00"));
        for r in &rows {
            assert_eq!(
                r.next_attempt_at.is_some(),
                r.internal_status == "PENDING",
                "{r:?}"
            );
            if let Some(next) = &r.next_attempt_at {
                // Retry-After as an HTTP date is a whole second, never
                // before the attempt.
                assert!(next.as_str() >= r.created_at.as_str());
                if r.provider_code == "429" {
                    assert!(next.ends_with(".000"), "{next}");
                }
            }
        }
    }

    #[test]
    fn written_atomically_and_as_csv() {
        let runs = both();
        let logs = logs(&runs);
        let dir = std::env::temp_dir().join(format!("squall-attempt-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.sqlite");
        std::fs::write(&path, b"an older file").unwrap();
        write_attempt_log_sqlite(&path, &logs).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let n: i64 = conn
            .query_row("SELECT COUNT(*) FROM send_attempts", [], |r| r.get(0))
            .unwrap();
        let total = runs.iter().map(|(_, o)| o.attempts.len()).sum::<usize>();
        assert_eq!(n as usize, total);
        // Only the log is left in the folder: no temporary file.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("log.sqlite")]);
        drop(conn);
        std::fs::remove_dir_all(&dir).unwrap();

        let csv = attempt_log_csv(&logs);
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some(COLUMNS.join(",").as_str()));
        assert_eq!(lines.count(), total);
        assert!(csv.contains(",0x58,REJECTED,,naive\n"));
    }
}
