//! From a finished [`Study`] to a [`Report`].

use squall_lang::{
    AxisSpec, CheckSpec, LinePart, ReportItemSpec, RunKey, TableSpec, ToleranceSpec,
};

use crate::document::{Block, Cell, Report, Table};
use crate::eval::Ctx;
use crate::number::to_fixed;
use crate::study::Study;

/// One row of a table, before its values: its label cells, its run and its
/// window.
#[derive(Debug, Clone, PartialEq)]
pub struct RowPlan {
    /// Label cells (one, or one per row axis).
    pub labels: Vec<Cell>,
    /// The run its values come from.
    pub run: RunKey,
    /// The window, when an axis gives one.
    pub window: Option<usize>,
}

/// How a report header names a run's length: `400 rounds`, `60000 ms`, or
/// `0..12000 ms` for a run that does not start at 1.
pub fn run_text(clock: squall_lang::Clock, start: u64, end: u64) -> String {
    let unit = clock.unit_name();
    if start == 1 {
        let plural = if clock == squall_lang::Clock::Round && end != 1 {
            "s"
        } else {
            ""
        };
        format!("{end} {unit}{plural}")
    } else {
        format!("{start}..{end} {unit}")
    }
}

/// The result of one `expect` line.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectOutcome {
    /// The line as written.
    pub text: String,
    /// Its line in the file.
    pub line: usize,
    /// The left side's value.
    pub actual: Option<f64>,
    /// The value it is compared with (the bound, or the expected value of
    /// `== x within tol`; `None` for a range or a value that is n/a).
    pub expected: Option<f64>,
    /// What the line wants, in words with numbers: `> 6`, `in 6..6.5`,
    /// `== 6.25 ± 0.1`.
    pub wanted: String,
    /// True when it holds.
    pub passed: bool,
    /// True when it names a variant this study did not run (`--variant`
    /// left it out): the line is neither passed nor failed.
    pub not_run: bool,
}

impl ExpectOutcome {
    /// A one-line account of a failure: the line as written, the actual
    /// value and what was wanted.
    pub fn failure(&self) -> String {
        if self.not_run {
            return format!(
                "`{}` not run: it names a variant this run left out",
                self.text
            );
        }
        let actual = self.actual.map_or("n/a".to_string(), short_number);
        format!(
            "`{}` failed: the value is {actual}, wanted {}",
            self.text, self.wanted
        )
    }
}

/// A number for messages: as short as it can be while telling values apart
/// (at most 6 digits after the point).
pub fn short_number(x: f64) -> String {
    let plain = format!("{x}");
    if plain.len() <= 12 {
        return plain;
    }
    let fixed = to_fixed(x, 6);
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    trimmed.to_string()
}

impl Study<'_> {
    /// The report the scenario asks for, followed by the accounting of every
    /// run and the `expect` lines' results.
    pub fn report(&self) -> Report {
        let s = self.scenario;
        let mut meta = vec![
            ("file".to_string(), s.file.clone()),
            ("clock".to_string(), s.clock.unit_name().to_string()),
            ("seed".to_string(), s.seed.to_string()),
        ];
        if let Some(run) = self.runs.values().next() {
            meta.insert(
                2,
                (
                    "run".to_string(),
                    run_text(s.clock, run.model.start, run.model.ticks),
                ),
            );
        }
        // All `--set` values in one entry, so JSON (an object) keeps them all.
        let sets: Vec<String> = self
            .cli
            .iter()
            .map(|set| {
                let text = set.origin.clone().unwrap_or_else(|| set.name.clone());
                text.trim_start_matches("--set ").to_string()
            })
            .collect();
        if !sets.is_empty() {
            meta.push(("set".to_string(), sets.join(", ")));
        }
        let mut blocks = Vec::new();
        for item in &s.report.items {
            match item {
                ReportItemSpec::Table(t) => {
                    if let Some(table) = self.table(t) {
                        blocks.push(Block::Table(table));
                    }
                }
                ReportItemSpec::Line(parts, variant) => {
                    if let Some(text) = self.line(parts, *variant) {
                        blocks.push(Block::Line { text });
                    }
                }
                ReportItemSpec::Diagnose(d) => {
                    for text in self.diagnose(d) {
                        blocks.push(Block::Line { text });
                    }
                }
                ReportItemSpec::Waits(w) => blocks.extend(self.waits(w).map(Block::Table)),
                ReportItemSpec::Herd(h) => blocks.extend(self.herd(h)),
                ReportItemSpec::Operations { title, source } => {
                    blocks.extend(self.operations(title, *source))
                }
                ReportItemSpec::Trace { title, node } => blocks.extend(self.trace(title, *node)),
                ReportItemSpec::Isolation(iso) => {
                    blocks.extend(self.isolation(iso).map(Block::Table))
                }
            }
        }
        blocks.push(Block::Table(self.accounting()));
        let expects = self.expectations();
        if !expects.is_empty() {
            blocks.push(Block::Table(Table {
                title: "expectations".into(),
                columns: vec!["expect".into(), "actual".into(), "result".into()],
                rows: expects
                    .iter()
                    .map(|e| {
                        vec![
                            Cell::Text(format!("line {}: {}", e.line, e.text)),
                            Cell::number(e.actual, 4),
                            Cell::Text(if e.passed {
                                "ok".into()
                            } else if e.not_run {
                                "not run".into()
                            } else {
                                "FAILED".into()
                            }),
                        ]
                    })
                    .collect(),
            }));
        }
        Report {
            title: s.name.clone(),
            meta,
            blocks,
        }
    }

    /// Evaluates every `expect` line.
    pub fn expectations(&self) -> Vec<ExpectOutcome> {
        let first = self
            .runs
            .keys()
            .next()
            .copied()
            .unwrap_or(RunKey::Variant(0));
        let ctx = Ctx {
            run: first,
            window: None,
            node: None,
        };
        self.scenario
            .report
            .expects
            .iter()
            .map(|e| {
                let actual = self.eval(&e.lhs, ctx);
                let n = |x: Option<f64>| x.map_or("n/a".to_string(), short_number);
                let (expected, wanted, passed) = match &e.check {
                    CheckSpec::Compare(op, b) => {
                        let b = self.eval(b, ctx);
                        let ok = matches!((actual, b), (Some(a), Some(b)) if op.eval(a, b));
                        (b, format!("{} {}", op.as_str(), n(b)), ok)
                    }
                    CheckSpec::Range(lo, hi) => {
                        let (lo, hi) = (self.eval(lo, ctx), self.eval(hi, ctx));
                        let ok = matches!((actual, lo, hi), (Some(a), Some(l), Some(h)) if l <= a && a <= h);
                        (None, format!("in {}..{}", n(lo), n(hi)), ok)
                    }
                    CheckSpec::Near(x, tol) => {
                        let x = self.eval(x, ctx);
                        let (tol, tol_text) = match tol {
                            ToleranceSpec::Percent(p) => (
                                x.map(|x| x.abs() * p / 100.0),
                                format!("{}%", short_number(*p)),
                            ),
                            ToleranceSpec::Absolute(t) => {
                                let t = self.eval(t, ctx);
                                (t, n(t))
                            }
                        };
                        let ok = matches!((actual, x, tol), (Some(a), Some(x), Some(t)) if (a - x).abs() <= t);
                        (x, format!("{} ± {tol_text}", n(x)), ok)
                    }
                };
                let not_run = self.names_a_run_left_out(e);
                ExpectOutcome {
                    text: e.text.clone(),
                    line: e.line,
                    actual: if not_run { None } else { actual },
                    expected,
                    wanted,
                    passed: passed && !not_run,
                    not_run,
                }
            })
            .collect()
    }

    /// True when an `expect` line (or a measure it uses) names a variant
    /// that has no run in this study.
    fn names_a_run_left_out(&self, e: &squall_lang::ExpectSpec) -> bool {
        let mut exprs = vec![&e.lhs];
        match &e.check {
            CheckSpec::Compare(_, b) => exprs.push(b),
            CheckSpec::Range(lo, hi) => exprs.extend([lo, hi]),
            CheckSpec::Near(x, tol) => {
                exprs.push(x);
                if let ToleranceSpec::Absolute(t) = tol {
                    exprs.push(t);
                }
            }
        }
        let measures = &self.scenario.report.measures;
        let mut seen = vec![false; measures.len()];
        let mut named = Vec::new();
        while let Some(x) = exprs.pop() {
            crate::study::variants_named(x, &mut named);
            measures_used(x, &mut |m| {
                if let Some(false) = seen.get(m).copied() {
                    seen[m] = true;
                    exprs.push(&measures[m].expr);
                }
            });
        }
        named
            .into_iter()
            .any(|v| !self.runs.contains_key(&RunKey::Variant(v)))
    }

    /// The label of a run in tables.
    pub fn run_label(&self, key: RunKey) -> String {
        let s = self.scenario;
        match key {
            RunKey::Variant(v) => s.variants[v].label.clone(),
            RunKey::Cross(v, i, p) => {
                format!(
                    "{}: {}",
                    s.variants[v].label,
                    self.run_label(RunKey::Point(i, p))
                )
            }
            RunKey::Point(i, p) => {
                let sweep = &s.sweeps[i];
                let Some(point) = sweep.point(p) else {
                    return format!("{}#{p}", sweep.name);
                };
                let text = |v: &squall_lang::ast::Value| squall_lang::format::value_text(v);
                if point.len() == 1 && !sweep.from_cli {
                    text(&point[0].1)
                } else {
                    point
                        .iter()
                        .map(|(n, v)| format!("{n}={}", text(v)))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            }
        }
    }

    /// The rows of a table: the label headings, and for each row its label
    /// cells, its run and its window. Shared by reports and sweeps.
    pub fn plan_rows(&self, t: &TableSpec) -> (Vec<String>, Vec<RowPlan>) {
        // Each axis gives a list of (label, run?, window?); a row gathers one
        // entry per axis, its labels kept apart.
        type Entry = (String, Option<RunKey>, Option<usize>);
        type Row = (Vec<String>, Option<RunKey>, Option<usize>);
        let mut axes: Vec<Vec<Entry>> = Vec::new();
        for axis in &t.rows {
            axes.push(match axis {
                AxisSpec::Variants(vs) => vs
                    .iter()
                    .filter(|&&v| self.includes_variant(v))
                    .map(|&v| {
                        (
                            self.run_label(RunKey::Variant(v)),
                            Some(RunKey::Variant(v)),
                            None,
                        )
                    })
                    .collect(),
                AxisSpec::Windows(ws) => ws
                    .iter()
                    .map(|&w| (self.scenario.windows[w].0.clone(), None, Some(w)))
                    .collect(),
                AxisSpec::Sweep(i) => (0..self.scenario.sweeps[*i].point_count())
                    .map(|p| {
                        let k = RunKey::Point(*i, p);
                        (self.run_label(k), Some(k), None)
                    })
                    .collect(),
            });
        }
        let mut rows_ctx: Vec<Row> = vec![(Vec::new(), None, None)];
        for axis in &axes {
            let mut next = Vec::new();
            for (labels, run, window) in &rows_ctx {
                for (l2, r2, w2) in axis {
                    let mut labels = labels.clone();
                    labels.push(l2.clone());
                    // A sweep point on top of a variant row is a run of its own.
                    let run = match (*run, *r2) {
                        (Some(RunKey::Variant(v)), Some(RunKey::Point(s, p)))
                        | (Some(RunKey::Point(s, p)), Some(RunKey::Variant(v))) => {
                            Some(RunKey::Cross(v, s, p))
                        }
                        (a, b) => b.or(a),
                    };
                    next.push((labels, run, w2.or(*window)));
                }
            }
            rows_ctx = next;
        }
        // One label column per axis when the table names one per axis;
        // otherwise one column, leaving out an axis with a single entry.
        let split = t.labels.len() == axes.len() && axes.len() > 1;
        // Declared with one entry (not narrowed to one by `--variant`).
        let single: Vec<bool> = t
            .rows
            .iter()
            .map(|a| {
                let n = match a {
                    AxisSpec::Variants(vs) => vs.len(),
                    AxisSpec::Windows(ws) => ws.len(),
                    AxisSpec::Sweep(i) => self.scenario.sweeps[*i].len(),
                };
                n == 1 && t.rows.len() > 1
            })
            .collect();
        let default_run = self.default_key();
        let headings = if split {
            t.labels.clone()
        } else {
            vec![t.labels.join(", ")]
        };
        let rows = rows_ctx
            .into_iter()
            .map(|(labels, run, window)| {
                let labels: Vec<Cell> = if split {
                    labels.into_iter().map(Cell::Text).collect()
                } else {
                    let kept: Vec<String> = labels
                        .into_iter()
                        .zip(&single)
                        .filter(|(_, s)| !**s)
                        .map(|(l, _)| l)
                        .collect();
                    vec![Cell::Text(kept.join(": "))]
                };
                RowPlan {
                    labels,
                    run: run.unwrap_or(default_run),
                    window,
                }
            })
            .collect();
        (headings, rows)
    }

    fn table(&self, t: &TableSpec) -> Option<Table> {
        let (mut columns, plan) = self.plan_rows(t);
        columns.extend(t.columns.iter().map(|c| c.title.clone()));
        let rows = plan
            .into_iter()
            .map(|r| {
                let ctx = Ctx {
                    run: r.run,
                    window: r.window,
                    node: t.at,
                };
                let mut row = r.labels;
                row.extend(
                    t.columns
                        .iter()
                        .map(|c| Cell::number(self.eval(&c.expr, ctx), c.digits)),
                );
                row
            })
            .collect();
        Some(Table {
            title: t.title.clone(),
            columns,
            rows,
        })
    }

    fn line(&self, parts: &[LinePart], variant: Option<usize>) -> Option<String> {
        if let Some(v) = variant {
            if !self.runs.contains_key(&RunKey::Variant(v)) {
                return None;
            }
        }
        let ctx = Ctx {
            run: variant.map_or(self.default_key(), RunKey::Variant),
            window: None,
            node: None,
        };
        let mut out = String::new();
        for p in parts {
            match p {
                LinePart::Text(t) => out.push_str(t),
                LinePart::Value(e, digits) => {
                    // A line about a variant the user left out is skipped.
                    if !self.variants_available(e) {
                        return None;
                    }
                    match self.eval(e, ctx) {
                        Some(v) => out.push_str(&to_fixed(v, *digits)),
                        None => out.push('—'),
                    }
                }
            }
        }
        Some(out)
    }

    fn variants_available(&self, e: &squall_lang::RExpr) -> bool {
        use squall_lang::RExpr;
        match e {
            RExpr::Metric {
                variant: Some(v), ..
            }
            | RExpr::Measure {
                variant: Some(v), ..
            } => self.runs.contains_key(&RunKey::Variant(*v)),
            RExpr::Call(_, args) => args.iter().all(|a| self.variants_available(a)),
            RExpr::Neg(x) => self.variants_available(x),
            RExpr::Binary(_, a, b) => self.variants_available(a) && self.variants_available(b),
            _ => true,
        }
    }

    fn accounting(&self) -> Table {
        let rows = self
            .runs
            .values()
            .map(|r| {
                let a = r.obs.accounting;
                vec![
                    Cell::Text(self.run_label(r.key)),
                    Cell::Number(a.entered as f64, 0),
                    Cell::Number(a.completed as f64, 0),
                    Cell::Number(a.dropped as f64, 0),
                    Cell::Number(a.in_flight as f64, 0),
                    Cell::Text(if a.balances() {
                        "yes".into()
                    } else {
                        "NO".into()
                    }),
                ]
            })
            .collect();
        Table {
            title: "accounting: every request ends completed, dropped or in flight".into(),
            columns: vec![
                "run".into(),
                "entered".into(),
                "completed".into(),
                "dropped".into(),
                "in flight".into(),
                "balances".into(),
            ],
            rows,
        }
    }
}

/// Calls `f` with every measure `e` uses.
fn measures_used(e: &squall_lang::RExpr, f: &mut impl FnMut(usize)) {
    use squall_lang::RExpr;
    match e {
        RExpr::Measure { measure, .. } => f(*measure),
        RExpr::Call(_, args) => args.iter().for_each(|a| measures_used(a, f)),
        RExpr::Neg(x) => measures_used(x, f),
        RExpr::Binary(_, a, b) => {
            measures_used(a, f);
            measures_used(b, f);
        }
        RExpr::Number(_) | RExpr::Param(_) | RExpr::Metric { .. } => {}
    }
}
