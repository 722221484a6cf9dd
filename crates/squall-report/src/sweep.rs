//! What-if studies: every point of a sweep, run in parallel, as one table.
//!
//! # The table
//!
//! A sweep's result is the report's tables whose rows are `sweep NAME`,
//! filled with the sweep's points. When the report has no such table, the
//! result is one table with a column per `measure`.
//!
//! # Random streams
//!
//! Every point runs with its own seed, derived from the scenario seed and
//! the point's settings (not its position):
//! `derive_seed(seed, "point/attempts=2,spacing=4 rounds")`, params sorted
//! by name and values in canonical spelling. A point's numbers therefore
//! depend only on the scenario and the point itself: not on the thread
//! count, the order of `--vary` values, the other points, or how the points
//! are split into shards. A variant's seed follows its name, and a point run
//! on a variant follows both (`Scenario::run_seed`).
//!
//! # Shards
//!
//! `--shard K/N` (1-based) runs the points `i` with `i % N == K - 1`: round
//! robin, so each slice gets a share of every axis and slices take about the
//! same time even when cost grows along an axis. A [`SweepRows`] records each
//! row's place in the full table; [`merge`] puts the shards' rows back in
//! place after checking they come from the same study and cover every point
//! once. A merged study renders byte for byte like a single run.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use squall_engine::{SimError, Simulation};
use squall_lang::{AxisSpec, Model, ReportItemSpec, RunKey, Scenario, Setting, TableSpec};

use crate::document::{Block, Cell, Report, Table};
use crate::eval::Ctx;
use crate::study::{variants_named, Run, Study, StudyError};

/// The version of the shard file format.
pub const SHARD_VERSION: u32 = 1;

/// The seed a run uses, as [`Scenario::run_seed`] derives it: from the
/// variant's name, or from a sweep point's settings (not its position), so a
/// point's numbers do not depend on threads, value order or sharding.
pub fn run_seed(s: &Scenario, key: RunKey) -> u64 {
    s.run_seed(key)
}

/// One slice of a sweep's points: `index` of `count`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which slice, from 1.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl Shard {
    /// Reads `K/N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad =
            || format!("`--shard {text}` needs the form K/N with 1 <= K <= N, e.g. `--shard 2/3`");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// True when point `p` belongs to this slice.
    pub fn holds(self, p: usize) -> bool {
        p % self.count == self.index - 1
    }
}

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct SweepOptions {
    /// `--set` settings for every point.
    pub cli: Vec<Setting>,
    /// Threads; `None` for one per core.
    pub jobs: Option<usize>,
    /// Only this slice of the points.
    pub shard: Option<Shard>,
}

/// What identifies a study, so shards of different studies are not merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyId {
    /// The scenario's name.
    pub scenario: String,
    /// FNV-1a hash of the scenario file's text, in hex.
    pub source_hash: String,
    /// The scenario seed.
    pub seed: u64,
    /// The sweep's name.
    pub sweep: String,
    /// The variant every point starts from.
    pub base: String,
    /// `--set` settings, as given.
    pub settings: Vec<String>,
    /// Every point's label, in order.
    pub points: Vec<String>,
}

/// A table cell, stored without loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StoredCell {
    /// A number with its digits after the point.
    Number {
        /// The exact value.
        value: f64,
        /// Digits printed after the point.
        digits: usize,
    },
    /// Text.
    Text(String),
    /// No value.
    Missing,
}

impl From<&Cell> for StoredCell {
    fn from(c: &Cell) -> Self {
        match c {
            Cell::Text(t) => StoredCell::Text(t.clone()),
            Cell::Number(value, digits) => StoredCell::Number {
                value: *value,
                digits: *digits,
            },
            Cell::Missing => StoredCell::Missing,
        }
    }
}

impl From<&StoredCell> for Cell {
    fn from(c: &StoredCell) -> Self {
        match c {
            StoredCell::Text(t) => Cell::Text(t.clone()),
            StoredCell::Number { value, digits } => Cell::Number(*value, *digits),
            StoredCell::Missing => Cell::Missing,
        }
    }
}

/// One row with its place in the full table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowEntry {
    /// Index of the row in the full table.
    pub row: usize,
    /// The cells; the first is the row's label.
    pub cells: Vec<StoredCell>,
}

/// A table of a sweep, possibly missing the rows of other shards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRows {
    /// Title.
    pub title: String,
    /// Headings.
    pub columns: Vec<String>,
    /// Rows in the full table.
    pub row_count: usize,
    /// The rows this part holds, by row index.
    pub rows: Vec<RowEntry>,
}

/// The rows of a sweep (all of them, or one shard's): what a shard file
/// holds and what [`merge`] joins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRows {
    /// Always `"squall-sweep"`.
    pub format: String,
    /// [`SHARD_VERSION`].
    pub version: u32,
    /// The study.
    pub study: StudyId,
    /// The report's title.
    pub title: String,
    /// The report's facts (file, clock, run, seed, sweep, ...).
    pub meta: Vec<(String, String)>,
    /// The slice this part holds; `None` for a whole sweep.
    pub shard: Option<Shard>,
    /// The points this part ran.
    pub points_run: Vec<usize>,
    /// The tables.
    pub tables: Vec<TableRows>,
}

/// FNV-1a over a text, as 16 hex digits.
pub fn text_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The tables a sweep fills: the report's tables whose rows show sweep `s`.
pub fn sweep_tables(scenario: &Scenario, s: usize) -> Vec<&TableSpec> {
    scenario
        .report
        .items
        .iter()
        .filter_map(|item| match item {
            ReportItemSpec::Table(t) if t.rows.contains(&AxisSpec::Sweep(s)) => Some(t),
            _ => None,
        })
        .collect()
}

/// The sweep `--vary` replaces when no `--sweep` is named: the first sweep
/// a report table shows.
pub fn default_sweep(scenario: &Scenario) -> Option<usize> {
    scenario.report.items.iter().find_map(|item| match item {
        ReportItemSpec::Table(t) => t.rows.iter().find_map(|a| match a {
            AxisSpec::Sweep(i) => Some(*i),
            _ => None,
        }),
        _ => None,
    })
}

/// Runs sweep `s` of the scenario (or one shard of it). `progress` is called
/// with the number of finished runs after each run, from any thread.
pub fn run_sweep(
    scenario: &Scenario,
    s: usize,
    options: &SweepOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<SweepRows, StudyError> {
    let sweep = &scenario.sweeps[s];
    let count = sweep.point_count();
    let points_run: Vec<usize> = (0..count)
        .filter(|&p| options.shard.is_none_or(|sh| sh.holds(p)))
        .collect();
    let tables = sweep_tables(scenario, s);

    // Variants the columns name run too (every shard runs them).
    let mut named = Vec::new();
    for t in &tables {
        for c in &t.columns {
            variants_named(&c.expr, &mut named);
        }
    }
    if tables.is_empty() {
        for m in &scenario.report.measures {
            variants_named(&m.expr, &mut named);
        }
    }
    named.sort_unstable();
    named.dedup();
    let mut keys: Vec<RunKey> = named.into_iter().map(RunKey::Variant).collect();
    // A table that crosses variants with the sweep runs each point on each
    // of its variants; other tables run the points on the sweep's base.
    let mut crossed = false;
    for t in &tables {
        for axis in &t.rows {
            if let AxisSpec::Variants(vs) = axis {
                crossed = true;
                for &v in vs {
                    keys.extend(points_run.iter().map(|&p| RunKey::Cross(v, s, p)));
                }
            }
        }
    }
    if !crossed
        || tables
            .iter()
            .any(|t| !t.rows.iter().any(|a| matches!(a, AxisSpec::Variants(_))))
    {
        keys.extend(points_run.iter().map(|&p| RunKey::Point(s, p)));
    }
    keys.sort_unstable();
    keys.dedup();

    let mut models: Vec<(RunKey, squall_lang::Overrides, Model)> = Vec::with_capacity(keys.len());
    for &k in &keys {
        let o = scenario.overrides(k, &options.cli);
        let mut m = scenario.model(&o).map_err(StudyError::Invalid)?;
        m.seed = run_seed(scenario, k);
        models.push((k, o, m));
    }
    let total = models.len();
    let done = AtomicUsize::new(0);
    let simulate = || -> Result<Vec<Run>, SimError> {
        models
            .into_par_iter()
            .map(|(key, overrides, model)| {
                let obs = Simulation::builder(&model).build()?.run()?;
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress(n, total);
                Ok(Run {
                    key,
                    overrides,
                    model,
                    obs,
                })
            })
            .collect()
    };
    let runs = match options.jobs {
        None => simulate()?,
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n.max(1))
                .build()
                .map_err(|e| StudyError::Pool(e.to_string()))?;
            pool.install(simulate)?
        }
    };
    let study = Study {
        scenario,
        cli: options.cli.clone(),
        selected: None,
        runs: runs.into_iter().map(|r| (r.key, r)).collect(),
    };
    let base_ticks = scenario
        .model_for(RunKey::Variant(sweep.base), &options.cli)
        .map(|m| (m.start, m.ticks))
        .ok();

    let mut out_tables = Vec::new();
    if tables.is_empty() {
        out_tables.push(measures_table(&study, s, options.shard));
    } else {
        for t in tables {
            out_tables.push(sweep_table(&study, t, s, options.shard));
        }
    }

    let point_labels: Vec<String> = (0..count)
        .map(|p| study.run_label(RunKey::Point(s, p)))
        .collect();
    let settings: Vec<String> = options
        .cli
        .iter()
        .map(|set| {
            set.origin
                .clone()
                .unwrap_or_else(|| set.name.clone())
                .trim_start_matches("--set ")
                .to_string()
        })
        .collect();
    let mut meta = vec![
        ("file".to_string(), scenario.file.clone()),
        ("clock".to_string(), scenario.clock.unit_name().to_string()),
    ];
    if let Some((start, end)) = base_ticks {
        meta.push((
            "run".to_string(),
            crate::build::run_text(scenario.clock, start, end),
        ));
    }
    meta.push(("seed".to_string(), scenario.seed.to_string()));
    meta.push(("sweep".to_string(), sweep.name.clone()));
    meta.push(("points".to_string(), count.to_string()));
    meta.push((
        "variant".to_string(),
        scenario.variants[sweep.base].label.clone(),
    ));
    let axes: Vec<String> = sweep
        .axes
        .iter()
        .map(|(n, vs)| {
            let vs: Vec<String> = vs.iter().map(squall_lang::format::value_text).collect();
            format!("{n}={}", vs.join(","))
        })
        .collect();
    meta.push(("vary".to_string(), axes.join("; ")));
    if !settings.is_empty() {
        meta.push(("set".to_string(), settings.join("; ")));
    }
    Ok(SweepRows {
        format: "squall-sweep".into(),
        version: SHARD_VERSION,
        study: StudyId {
            scenario: scenario.name.clone(),
            source_hash: text_hash(&scenario.source),
            seed: scenario.seed,
            sweep: sweep.name.clone(),
            base: scenario.variants[sweep.base].name.clone(),
            settings,
            points: point_labels,
        },
        title: scenario.name.clone(),
        meta,
        shard: options.shard,
        points_run,
        tables: out_tables,
    })
}

/// A report table whose rows include `sweep s`, with only the rows of the
/// shard's points evaluated.
fn sweep_table(study: &Study<'_>, t: &TableSpec, s: usize, shard: Option<Shard>) -> TableRows {
    let (mut columns, plan) = study.plan_rows(t);
    columns.extend(t.columns.iter().map(|c| c.title.clone()));
    let row_count = plan.len();
    let entries = plan
        .into_iter()
        .enumerate()
        .filter(|(_, r)| mine(Some(r.run), s, shard))
        .map(|(row, r)| {
            let ctx = Ctx {
                run: r.run,
                window: r.window,
                node: t.at,
            };
            let mut cells: Vec<StoredCell> = r.labels.iter().map(StoredCell::from).collect();
            cells.extend(
                t.columns
                    .iter()
                    .map(|c| StoredCell::from(&Cell::number(study.eval(&c.expr, ctx), c.digits))),
            );
            RowEntry { row, cells }
        })
        .collect();
    TableRows {
        title: t.title.clone(),
        columns,
        row_count,
        rows: entries,
    }
}

/// True when this shard evaluates a row with this run: the row's point is
/// in the shard; a row with no point of the sweep belongs to shard 1.
fn mine(run: Option<RunKey>, s: usize, shard: Option<Shard>) -> bool {
    let Some(shard) = shard else {
        return true;
    };
    match run {
        Some(RunKey::Point(i, p) | RunKey::Cross(_, i, p)) if i == s => shard.holds(p),
        _ => shard.index == 1,
    }
}

/// One column per `measure`, one row per point.
fn measures_table(study: &Study<'_>, s: usize, shard: Option<Shard>) -> TableRows {
    let scenario = study.scenario;
    let sweep = &scenario.sweeps[s];
    let mut columns = vec![sweep
        .axes
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")];
    columns.extend(scenario.report.measures.iter().map(|m| m.name.clone()));
    let count = sweep.point_count();
    let rows = (0..count)
        .filter(|&p| shard.is_none_or(|sh| sh.holds(p)))
        .map(|p| {
            let key = RunKey::Point(s, p);
            let ctx = Ctx {
                run: key,
                window: None,
                node: None,
            };
            let mut cells = vec![StoredCell::Text(study.run_label(key))];
            cells.extend(
                scenario
                    .report
                    .measures
                    .iter()
                    .map(|m| StoredCell::from(&Cell::number(study.eval(&m.expr, ctx), 2))),
            );
            RowEntry { row: p, cells }
        })
        .collect();
    let title = if sweep.from_cli && sweep.label == sweep.name {
        "measures at each point".to_string()
    } else {
        format!("measures at each point: {}", sweep.label)
    };
    TableRows {
        title,
        columns,
        row_count: count,
        rows,
    }
}

impl SweepRows {
    /// True when every row of every table is present.
    pub fn is_complete(&self) -> bool {
        self.tables.iter().all(|t| t.rows.len() == t.row_count)
    }

    /// The result as a report: the sweep's tables, rows in order.
    pub fn report(&self) -> Report {
        let blocks = self
            .tables
            .iter()
            .map(|t| {
                let mut rows: Vec<&RowEntry> = t.rows.iter().collect();
                rows.sort_by_key(|r| r.row);
                Block::Table(Table {
                    title: t.title.clone(),
                    columns: t.columns.clone(),
                    rows: rows
                        .iter()
                        .map(|r| r.cells.iter().map(Cell::from).collect())
                        .collect(),
                })
            })
            .collect();
        Report {
            title: self.title.clone(),
            meta: self.meta.clone(),
            blocks,
        }
    }

    /// The shard file: pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    }
}

/// Why shard files cannot be merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// No files.
    #[error("nothing to merge")]
    Empty,
    /// A file is not a shard file.
    #[error("`{file}` is not a squall sweep shard: {why}")]
    NotAShard {
        /// The file.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// Two files belong to different studies.
    #[error("`{file}` belongs to another study than `{first}`: {what} differs")]
    OtherStudy {
        /// The first file.
        first: String,
        /// The odd one.
        file: String,
        /// What differs.
        what: String,
    },
    /// A row is in two files.
    #[error(
        "row {row} of table \"{table}\" is in both `{a}` and `{b}`; each shard must be merged once"
    )]
    Duplicate {
        /// The table.
        table: String,
        /// The row (0-based).
        row: usize,
        /// One file.
        a: String,
        /// The other.
        b: String,
    },
    /// Points are missing.
    #[error("{missing} of {total} rows are in no file ({which}); run the missing shards: {hint}")]
    Incomplete {
        /// How many rows are missing.
        missing: usize,
        /// Rows in all.
        total: usize,
        /// The first missing rows.
        which: String,
        /// Which `--shard` runs would supply them.
        hint: String,
    },
}

/// Reads a shard file.
pub fn read_shard(name: &str, text: &str) -> Result<SweepRows, MergeError> {
    let not = |why: String| MergeError::NotAShard {
        file: name.to_string(),
        why,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| not(e.to_string()))?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some("squall-sweep") => {}
        _ => {
            return Err(not(
                "it has no `\"format\": \"squall-sweep\"` (write one with `squall sweep --shard K/N --out FILE`)".into(),
            ))
        }
    }
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(SHARD_VERSION) => {}
        other => {
            return Err(not(format!(
                "it is version {}, this squall reads version {SHARD_VERSION}",
                other.map_or("?".to_string(), |v| v.to_string())
            )))
        }
    }
    let rows: SweepRows = serde_json::from_value(value).map_err(|e| not(e.to_string()))?;
    for t in &rows.tables {
        for r in &t.rows {
            if r.row >= t.row_count {
                return Err(not(format!(
                    "table \"{}\" has row {} but only {} rows",
                    t.title, r.row, t.row_count
                )));
            }
            if r.cells.len() != t.columns.len() {
                return Err(not(format!(
                    "row {} of table \"{}\" has {} cells for {} columns",
                    r.row,
                    t.title,
                    r.cells.len(),
                    t.columns.len()
                )));
            }
            let too_precise = r
                .cells
                .iter()
                .any(|c| matches!(c, StoredCell::Number { digits, .. } if *digits > 12));
            if too_precise {
                return Err(not(format!(
                    "row {} of table \"{}\" prints more than 12 digits after the point",
                    r.row, t.title
                )));
            }
        }
    }
    Ok(rows)
}

/// Joins the shards of one study (named, for messages) into the whole sweep.
pub fn merge(parts: Vec<(String, SweepRows)>) -> Result<SweepRows, MergeError> {
    let mut parts = parts;
    parts.sort_by_key(|(_, p)| p.shard.map_or(0, |s| s.index));
    let Some((first_name, first)) = parts.first().cloned() else {
        return Err(MergeError::Empty);
    };
    let differ = |file: &str, what: &str| MergeError::OtherStudy {
        first: first_name.clone(),
        file: file.to_string(),
        what: what.to_string(),
    };
    for (name, p) in &parts[1..] {
        let (a, b) = (&first.study, &p.study);
        let what = if a.source_hash != b.source_hash {
            Some("the scenario text")
        } else if a.seed != b.seed {
            Some("the seed")
        } else if a.sweep != b.sweep {
            Some("the sweep")
        } else if a.base != b.base {
            Some("the base variant")
        } else if a.settings != b.settings {
            Some("the `--set` settings")
        } else if a.points != b.points {
            Some("the list of points")
        } else if a != b {
            Some("the scenario")
        } else if first.shard.map(|s| s.count) != p.shard.map(|s| s.count) {
            Some("the number of shards")
        } else if first.tables.len() != p.tables.len()
            || first
                .tables
                .iter()
                .zip(&p.tables)
                .any(|(x, y)| x.title != y.title || x.columns != y.columns)
        {
            Some("the report's tables")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(differ(name, what));
        }
    }
    let mut tables = Vec::new();
    for (t, table) in first.tables.iter().enumerate() {
        let mut rows: BTreeMap<usize, (&str, &RowEntry)> = BTreeMap::new();
        for (name, p) in &parts {
            for r in &p.tables[t].rows {
                if let Some((other, _)) = rows.get(&r.row) {
                    return Err(MergeError::Duplicate {
                        table: table.title.clone(),
                        row: r.row,
                        a: (*other).to_string(),
                        b: name.clone(),
                    });
                }
                rows.insert(r.row, (name, r));
            }
        }
        if rows.len() != table.row_count {
            let missing: Vec<usize> = (0..table.row_count)
                .filter(|r| !rows.contains_key(r))
                .collect();
            let have: Vec<usize> = parts
                .iter()
                .filter_map(|(_, p)| p.shard.map(|s| s.index))
                .collect();
            let hint = match first.shard {
                Some(s) => (1..=s.count)
                    .filter(|k| !have.contains(k))
                    .map(|k| format!("`--shard {k}/{}`", s.count))
                    .collect::<Vec<_>>()
                    .join(", "),
                None => "every shard".to_string(),
            };
            let which: Vec<String> = missing.iter().take(5).map(|r| format!("row {r}")).collect();
            return Err(MergeError::Incomplete {
                missing: missing.len(),
                total: table.row_count,
                which: if missing.len() > 5 {
                    format!("{}, ...", which.join(", "))
                } else {
                    which.join(", ")
                },
                hint,
            });
        }
        tables.push(TableRows {
            title: table.title.clone(),
            columns: table.columns.clone(),
            row_count: table.row_count,
            rows: rows.into_values().map(|(_, r)| r.clone()).collect(),
        });
    }
    let mut points_run: Vec<usize> = parts
        .iter()
        .flat_map(|(_, p)| p.points_run.iter().copied())
        .collect();
    points_run.sort_unstable();
    Ok(SweepRows {
        shard: None,
        points_run,
        tables,
        ..first
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_split_round_robin() {
        assert_eq!(Shard::parse("2/3"), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let s = Shard::parse("2/3").unwrap_or(Shard { index: 1, count: 1 });
        let held: Vec<usize> = (0..8).filter(|&p| s.holds(p)).collect();
        assert_eq!(held, vec![1, 4, 7]);
    }

    #[test]
    fn shard_files_that_do_not_add_up_are_refused() {
        let file = |row: usize, digits: usize| {
            format!(
                r#"{{"format":"squall-sweep","version":1,
                "study":{{"scenario":"s","source_hash":"0","seed":1,"sweep":"w","base":"b","settings":[],"points":["1"]}},
                "title":"s","meta":[],"shard":{{"index":1,"count":1}},"points_run":[0],
                "tables":[{{"title":"t","columns":["p","x"],"row_count":1,
                  "rows":[{{"row":{row},"cells":["1",{{"value":2.0,"digits":{digits}}}]}}]}}]}}"#
            )
        };
        assert!(read_shard("ok.json", &file(0, 2)).is_ok());
        let far = read_shard("far.json", &file(3, 2)).map(|_| ());
        assert!(matches!(far, Err(MergeError::NotAShard { .. })), "{far:?}");
        let digits = read_shard("digits.json", &file(0, 4000)).map(|_| ());
        assert!(
            matches!(digits, Err(MergeError::NotAShard { .. })),
            "{digits:?}"
        );
        let not_json = read_shard("x.json", "{").map(|_| ());
        assert!(matches!(not_json, Err(MergeError::NotAShard { .. })));
    }

    #[test]
    fn stored_cells_keep_every_bit() {
        let cells = vec![
            Cell::Number(0.1 + 0.2, 2),
            Cell::Number(22.333_333_333_333_332, 2),
            Cell::Text("3".into()),
            Cell::Missing,
        ];
        let stored: Vec<StoredCell> = cells.iter().map(StoredCell::from).collect();
        let json = serde_json::to_string(&stored).unwrap_or_default();
        let back: Vec<StoredCell> = serde_json::from_str(&json).unwrap_or_default();
        let again: Vec<Cell> = back.iter().map(Cell::from).collect();
        assert_eq!(again, cells);
    }
}
