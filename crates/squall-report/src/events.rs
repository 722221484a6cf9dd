//! The event log of `squall run --events FILE`: one row per answered call
//! of every run, as JSON lines or as an SQLite table `calls`.
//!
//! A row says which run (the variant's name, or the point's label), when
//! the node answered (`time`), which request (`request`, its id in the
//! run), which node, which try of its caller the call was (`try`), what
//! the node answered (`outcome`, worded as the trace and operations items
//! word it) and how long the call took at the node (`latency`: 0 when
//! nothing takes time; queueing included otherwise). `time` and `latency`
//! are in ticks of the scenario's clock (milliseconds under `clock ms`),
//! fractional on a run that takes time. Rows are in run order, then in the
//! order the calls were answered.
//!
//! The log is bounded: at most `limit` rows in all (`--events-limit`,
//! [`DEFAULT_EVENTS_LIMIT`] by default); [`Events::total`] says how many
//! calls there were, so the CLI can say how many were left out. Both files
//! are written atomically: to a temporary file beside the target, then
//! renamed over it.

use std::path::Path;

use crate::study::Study;

/// The most rows `--events` writes by default.
pub const DEFAULT_EVENTS_LIMIT: usize = 1_000_000;

/// One answered call.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    /// The run: a variant's name or a sweep point's label.
    pub run: String,
    /// When the node answered \[ticks of the file's clock\].
    pub time: f64,
    /// The request's id in its run.
    pub request: u64,
    /// The node's name.
    pub node: String,
    /// Which try of its caller the call was (1 for the first).
    pub try_no: u32,
    /// What the node answered, in words.
    pub outcome: String,
    /// From the call's arrival at the node to its answer \[ticks\].
    pub latency: f64,
}

/// The rows of a study's event log.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Events {
    /// At most `limit` rows.
    pub rows: Vec<EventRow>,
    /// Every answered call of every run, kept or not.
    pub total: u64,
    /// The bound the rows were held to.
    pub limit: usize,
}

impl Study<'_> {
    /// The calls the runs logged (run with `StudyOptions::events`), in run
    /// order, at most `limit` rows.
    pub fn events(&self, limit: usize) -> Events {
        let unit = self.scenario.clock.unit_name();
        let mut out = Events {
            limit,
            ..Events::default()
        };
        for (key, run) in &self.runs {
            let Some(log) = &run.obs.call_log else {
                continue;
            };
            out.total += log.rows.len() as u64 + log.dropped;
            let label = self.run_name(*key);
            let ticks = |units: u64| units as f64 / log.units_per_tick.max(1) as f64;
            let room = limit.saturating_sub(out.rows.len());
            out.rows.extend(log.rows.iter().take(room).map(|r| {
                EventRow {
                    run: label.clone(),
                    time: ticks(r.time),
                    request: r.request,
                    node: run
                        .model
                        .nodes
                        .get(r.node as usize)
                        .map_or_else(String::new, |n| n.name.clone()),
                    try_no: r.try_no,
                    outcome: crate::words::answer(r.outcome, unit),
                    latency: ticks(r.latency),
                }
            }));
        }
        out
    }

    /// A run's name in the log: the variant's name, or the run's label.
    fn run_name(&self, key: squall_lang::RunKey) -> String {
        match key {
            squall_lang::RunKey::Variant(v) => self.scenario.variants[v].name.clone(),
            other => self.run_label(other),
        }
    }
}

impl Events {
    /// True when calls were left out past the limit.
    pub fn truncated(&self) -> bool {
        self.total > self.rows.len() as u64
    }

    /// One JSON object a line: `run`, `time`, `request`, `node`, `try`,
    /// `outcome`, `latency`.
    pub fn to_jsonl(&self) -> String {
        let mut s = String::new();
        for r in &self.rows {
            let obj = serde_json::json!({
                "run": r.run,
                "time": r.time,
                "request": r.request,
                "node": r.node,
                "try": r.try_no,
                "outcome": r.outcome,
                "latency": r.latency,
            });
            s.push_str(&obj.to_string());
            s.push('\n');
        }
        s
    }

    /// Fills table `calls` of `conn` (created; columns as the JSON lines).
    pub fn fill(&self, conn: &mut rusqlite::Connection) -> rusqlite::Result<()> {
        conn.execute_batch(
            "CREATE TABLE calls (
                run TEXT NOT NULL,
                time REAL NOT NULL,
                request INTEGER NOT NULL,
                node TEXT NOT NULL,
                try INTEGER NOT NULL,
                outcome TEXT NOT NULL,
                latency REAL NOT NULL
            );",
        )?;
        let tx = conn.transaction()?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO calls (run, time, request, node, try, outcome, latency)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for (i, r) in self.rows.iter().enumerate() {
                insert.execute(rusqlite::params![
                    r.run,
                    r.time,
                    r.request as i64,
                    r.node,
                    r.try_no,
                    r.outcome,
                    r.latency
                ])?;
                if i == 0 {
                    crate::replace::reached(crate::replace::Stage::InTransaction);
                }
            }
        }
        tx.commit()
    }

    /// Writes the log to `path`: an SQLite database when the name ends in
    /// `.sqlite`, JSON lines otherwise; atomically (a temporary file beside
    /// it, then one rename).
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let shown = |e: &dyn std::fmt::Display| format!("cannot write `{}`: {e}", path.display());
        let sqlite = path.to_string_lossy().ends_with(".sqlite");
        crate::replace::replace_file(
            path,
            |tmp| {
                if sqlite {
                    rusqlite::Connection::open(tmp)
                        .and_then(|mut c| {
                            self.fill(&mut c)?;
                            c.close().map_err(|(_, e)| e)
                        })
                        .map_err(|e| shown(&e))
                } else {
                    std::fs::write(tmp, self.to_jsonl()).map_err(|e| shown(&e))
                }
            },
            |e| shown(&e),
        )
    }
}
