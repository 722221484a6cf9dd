//! Running one sweep, or one shard of it, and filling its tables.
//!
//! The [run planner](crate::plan) picks the runs (`RunPlan::sweep`) and runs
//! them; this file evaluates the rows the shard holds, and writes the
//! report's facts for a sweep (file, clock, run, seed, sweep, points, base
//! variant, `--vary` axes, `--set` settings).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use squall_engine::SimError;
use squall_lang::{AxisSpec, RunKey, Scenario, Setting, TableSpec};

use super::{
    text_hash, FailedPoint, RowEntry, Shard, StoredCell, StudyId, SweepRows, TableRows,
    SHARD_VERSION,
};
use crate::eval::Ctx;
use crate::plan::{sweep_tables, Keep, RunOptions, RunPlan};
use crate::study::{Study, StudyError};

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct SweepOptions {
    /// `--set` settings for every point.
    pub cli: Vec<Setting>,
    /// Threads; `None` for one per core.
    pub jobs: Option<usize>,
    /// Only this slice of the points.
    pub shard: Option<Shard>,
    /// The invocation's memory budget \[MiB\]; `None` for the default.
    pub memory_mib: Option<u64>,
    /// When set (Ctrl-C), no further point starts: the rows of the points
    /// that finished are returned, and [`SweepRows::interrupted`] says how
    /// many did not.
    pub stop: Option<Arc<AtomicBool>>,
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
    let plan = RunPlan::sweep(scenario, s, &|k| mine(Some(k), s, options.shard));
    let ran = plan.run_with(
        scenario,
        &RunOptions {
            cli: &options.cli,
            jobs: options.jobs,
            memory_mib: options.memory_mib,
            progress,
            stop: options.stop.as_deref(),
            ..RunOptions::keeping(Keep::Report)
        },
    )?;
    // A point that failed (past its work budget) leaves the others' rows;
    // a variant the columns read that failed fails the sweep.
    let mut ran = ran;
    if let Some(at) = ran
        .failed
        .iter()
        .position(|(k, _, _)| point_of(*k, s).is_none())
    {
        return Err(ran.failed.swap_remove(at).2);
    }
    let mut failed: Vec<FailedPoint> = ran
        .failed
        .iter()
        .filter_map(|(k, _, e)| {
            let p = point_of(*k, s)?;
            Some(FailedPoint {
                point: p,
                settings: point_settings(scenario, s, p),
                error: failure_text(e),
                work_budget: matches!(e, StudyError::Sim(SimError::WorkBudget { .. })),
            })
        })
        .collect();
    // Once per point, whatever its replications or variants.
    failed.sort_by_key(|f| f.point);
    failed.dedup_by_key(|f| f.point);
    let skipped = ran.skipped + ran.failed.len();
    let study = Study {
        scenario,
        cli: options.cli.clone(),
        selected: None,
        sending: crate::study::take_sending(&mut ran.runs),
        runs: ran.runs,
        replicas: ran.replicas,
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
        .map(crate::render::setting_text)
        .collect();
    let mut meta = vec![
        ("file".to_string(), scenario.file.clone()),
        ("clock".to_string(), scenario.clock.unit_name().to_string()),
    ];
    // Stopped early: only the points whose runs finished have rows.
    let planned = points_run.len();
    let points_run: Vec<usize> = if skipped == 0 {
        points_run
    } else {
        let specs = sweep_tables(scenario, s);
        if specs.is_empty() {
            for t in &mut out_tables {
                t.rows
                    .retain(|r| study.runs.contains_key(&RunKey::Point(s, r.row)));
            }
        }
        for (t, spec) in out_tables.iter_mut().zip(specs) {
            let (_, plan) = study.plan_rows(spec);
            t.rows.retain(|r| {
                plan.get(r.row)
                    .is_some_and(|x| study.runs.contains_key(&x.run))
            });
        }
        points_run
            .into_iter()
            .filter(|&p| point_finished(&study, s, p))
            .collect()
    };
    if let Some((start, end)) = base_ticks {
        meta.push((
            "run".to_string(),
            crate::render::run_text(scenario.clock, start, end),
        ));
    }
    meta.push(("seed".to_string(), scenario.seed.to_string()));
    if study.replications() > 1 {
        meta.push(("replications".to_string(), study.replications().to_string()));
    }
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
    for f in &failed {
        meta.push((
            "failed".to_string(),
            format!("point {} ({}): {}", f.point + 1, f.settings, f.error),
        ));
    }
    if ran.skipped > 0 {
        meta.push((
            "interrupted".to_string(),
            format!(
                "stopped after {} of {planned} points; the rows of the other {} are missing",
                points_run.len(),
                planned - points_run.len()
            ),
        ));
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
        params: super::data::param_axes(scenario, s),
        shard: options.shard,
        interrupted: (ran.skipped > 0).then(|| {
            planned
                .saturating_sub(points_run.len())
                .saturating_sub(failed.len())
        }),
        failed,
        points_run,
        tables: out_tables,
    })
}

/// A report table whose rows include `sweep s`, with only the rows of the
/// shard's points evaluated.
pub(crate) fn sweep_table(
    study: &Study<'_>,
    t: &TableSpec,
    s: usize,
    shard: Option<Shard>,
) -> TableRows {
    let (mut columns, plan) = study.plan_rows(t);
    let label_columns = columns.len();
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
                    .map(|c| StoredCell::from(&study.value_cell(&c.expr, ctx, c.digits))),
            );
            RowEntry {
                row,
                point: point_of(r.run, s),
                cells,
            }
        })
        .collect();
    TableRows {
        title: t.title.clone(),
        columns,
        row_count,
        label_columns,
        wall: Vec::new(),
        point_label: point_label(study, t, s),
        rows: entries,
    }
}

/// Point `p` of sweep `s` as the settings it makes: `name=value, ...`.
fn point_settings(scenario: &Scenario, s: usize, p: usize) -> String {
    scenario.sweeps[s]
        .point(p)
        .map(|point| {
            point
                .iter()
                .map(|(n, v)| format!("{n}={}", squall_lang::format::value_text(v)))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// A failed run's error in words, with its place when it has one.
fn failure_text(e: &StudyError) -> String {
    match e {
        StudyError::Sim(e) => e.to_string(),
        other => other.to_string(),
    }
}

/// The point of sweep `s` a run is, if any.
fn point_of(run: RunKey, s: usize) -> Option<usize> {
    match run {
        RunKey::Point(i, p) | RunKey::Cross(_, i, p) if i == s => Some(p),
        _ => None,
    }
}

/// The label column that names only the point of sweep `s`: the sweep's
/// own column when the table splits its labels per axis, or the one label
/// column when every other axis has a single entry (and so is left out of
/// it; the rule of [`Study::plan_rows`]).
fn point_label(study: &Study<'_>, t: &TableSpec, s: usize) -> Option<usize> {
    let at = t
        .rows
        .iter()
        .position(|a| matches!(a, AxisSpec::Sweep(i) if *i == s))?;
    if t.labels.len() == t.rows.len() && t.rows.len() > 1 {
        return Some(at);
    }
    let others_single = t.rows.iter().enumerate().all(|(j, a)| {
        j == at
            || match a {
                AxisSpec::Variants(vs) => vs.len() == 1,
                AxisSpec::Windows(ws) => ws.len() == 1,
                AxisSpec::Sweep(i) => study.scenario.sweeps[*i].len() == 1,
            }
    });
    others_single.then_some(0)
}

/// True when point `p` of sweep `s` finished on every run that shows it.
fn point_finished(study: &Study<'_>, s: usize, p: usize) -> bool {
    study.runs.contains_key(&RunKey::Point(s, p))
        || study
            .runs
            .keys()
            .any(|k| matches!(k, RunKey::Cross(_, i, q) if *i == s && *q == p))
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
    // A measure with a unit says it: `errors [/s]`. Ticks and rates per
    // tick of a wall clock are scaled when shown (`recovery [s]`), their
    // unit chosen from the whole column.
    let mut wall = Vec::new();
    for (i, m) in scenario.report.measures.iter().enumerate() {
        match crate::unit::wall_column(m, scenario, i + 1) {
            Some(w) => {
                wall.push(w);
                columns.push(m.name.clone());
            }
            None => columns.push(crate::unit::measure_heading(m, scenario).0),
        }
    }
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
                    .map(|m| StoredCell::from(&study.value_cell(&m.expr, ctx, 2))),
            );
            RowEntry {
                row: p,
                point: Some(p),
                cells,
            }
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
        label_columns: 1,
        point_label: Some(0),
        rows,
        wall,
    }
}
