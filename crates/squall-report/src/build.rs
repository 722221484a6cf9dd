//! From a finished [`Study`] to a [`Report`]: the report's facts (file,
//! clock, run, seed, `--set` settings), then each `report` item in the order
//! the file gives them, then the accounting of every run and the `expect`
//! lines' results.
//!
//! This file only gathers; each item is built where it lives (see the crate
//! doc): tables in `table.rs`, lines in `line.rs`, `diagnose` in
//! `diagnose.rs`, the client items in `client/`, expectations in
//! `expect.rs`.

use squall_lang::ReportItemSpec;

use crate::document::{Block, Cell, Report, Table};
use crate::study::Study;

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
                    crate::render::run_text(s.clock, run.model.start, run.model.ticks),
                ),
            );
        }
        // All `--set` values in one entry, so JSON (an object) keeps them all.
        let sets: Vec<String> = self.cli.iter().map(crate::render::setting_text).collect();
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
