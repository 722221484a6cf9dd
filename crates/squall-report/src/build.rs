//! From a finished [`Study`] to a [`Report`].

use squall_lang::{
    AxisSpec, CheckSpec, LinePart, ReportItemSpec, RunKey, TableSpec, ToleranceSpec,
};

use crate::document::{Block, Cell, Report, Table};
use crate::eval::Ctx;
use crate::number::to_fixed;
use crate::study::Study;

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
}

impl ExpectOutcome {
    /// A one-line account of a failure: the line as written, the actual
    /// value and what was wanted.
    pub fn failure(&self) -> String {
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
                    format!("{} {}s", run.model.ticks, s.clock.unit_name()),
                ),
            );
        }
        for set in &self.cli {
            let text = set.origin.clone().unwrap_or_else(|| set.name.clone());
            meta.push((
                "set".to_string(),
                text.trim_start_matches("--set ").to_string(),
            ));
        }
        let mut blocks = Vec::new();
        for item in &s.report.items {
            match item {
                ReportItemSpec::Table(t) => {
                    if let Some(table) = self.table(t) {
                        blocks.push(Block::Table(table));
                    }
                }
                ReportItemSpec::Line(parts) => {
                    if let Some(text) = self.line(parts) {
                        blocks.push(Block::Line { text });
                    }
                }
                ReportItemSpec::Diagnose(d) => {
                    for text in self.diagnose(d) {
                        blocks.push(Block::Line { text });
                    }
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
                ExpectOutcome {
                    text: e.text.clone(),
                    line: e.line,
                    actual,
                    expected,
                    wanted,
                    passed,
                }
            })
            .collect()
    }

    /// The label of a run in tables.
    pub fn run_label(&self, key: RunKey) -> String {
        let s = self.scenario;
        match key {
            RunKey::Variant(v) => s.variants[v].label.clone(),
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

    fn table(&self, t: &TableSpec) -> Option<Table> {
        // Each axis gives a list of (label, run?, window?).
        type Entry = (String, Option<RunKey>, Option<usize>);
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
        let mut rows_ctx: Vec<Entry> = vec![(String::new(), None, None)];
        for axis in &axes {
            let mut next = Vec::new();
            for (label, run, window) in &rows_ctx {
                for (l2, r2, w2) in axis {
                    let label = if label.is_empty() {
                        l2.clone()
                    } else {
                        format!("{label}: {l2}")
                    };
                    next.push((label, r2.or(*run), w2.or(*window)));
                }
            }
            rows_ctx = next;
        }
        let default_run = self.default_run();
        let mut columns = vec![t.label.clone()];
        columns.extend(t.columns.iter().map(|c| c.title.clone()));
        let rows = rows_ctx
            .into_iter()
            .map(|(label, run, window)| {
                let ctx = Ctx {
                    run: run.unwrap_or(default_run),
                    window,
                    node: t.at,
                };
                let mut row = vec![Cell::Text(label)];
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

    /// The run used where no row names one: the first selected variant.
    fn default_run(&self) -> RunKey {
        (0..self.scenario.variants.len())
            .find(|&v| self.includes_variant(v))
            .map_or(RunKey::Variant(0), RunKey::Variant)
    }

    fn line(&self, parts: &[LinePart]) -> Option<String> {
        let ctx = Ctx {
            run: self.default_run(),
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
