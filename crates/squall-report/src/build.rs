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
        // A run that takes time without `series every`: the bins its
        // series, charts, recovery and peak are read in.
        if let Some(run) = self
            .runs
            .values()
            .find(|r| r.obs.timed.is_some() && r.model.series_every.is_none())
        {
            meta.push((
                "default bins".to_string(),
                crate::diagnose::span(s.clock, run.obs.slots.bin),
            ));
        }
        if self.replications() > 1 {
            meta.push(("replications".to_string(), self.replications().to_string()));
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
                    if let Some((text, values)) = self.line(parts, *variant) {
                        blocks.push(Block::Line { text, values });
                    }
                }
                ReportItemSpec::Diagnose(d) => {
                    for text in self.diagnose(d) {
                        blocks.push(Block::text(text));
                    }
                }
                ReportItemSpec::Waits(w) => blocks.extend(self.waits(w).map(Block::Table)),
                ReportItemSpec::Herd(h) => blocks.extend(self.herd(h)),
                ReportItemSpec::Operations { title, source } => {
                    blocks.extend(self.operations(title, *source))
                }
                ReportItemSpec::Trace { title, node } => blocks.extend(self.trace(title, *node)),
                // Charts are pictures: `--charts` and `--html` draw them.
                ReportItemSpec::Chart(_) => {}
                ReportItemSpec::Isolation(iso) => {
                    blocks.extend(self.isolation(iso).map(Block::Table))
                }
            }
        }
        blocks.extend(self.sending_blocks());
        // A file of senders only has no call chain to account for.
        if !s.nodes.is_empty() {
            blocks.push(Block::Table(self.accounting()));
        }
        let expects = self.expectations();
        if !expects.is_empty() {
            // Under a wall clock each value reads in its expression's unit
            // (a 1 s recovery as 1 s, not 1000 ticks), named in a column.
            // Only where some value has a unit: a table of counts and
            // shares reads as before.
            let wall = s.clock.tick_millis().is_some()
                && s.report
                    .expects
                    .iter()
                    .any(|e| crate::unit::unit_of(&e.lhs, s) != crate::unit::Unit::Plain);
            let mut columns = vec!["expect".to_string(), "actual".to_string()];
            if wall {
                columns.push("unit".into());
            }
            columns.push("result".into());
            blocks.push(Block::Table(Table {
                title: "expectations".into(),
                columns,
                rows: expects
                    .iter()
                    .zip(&s.report.expects)
                    .map(|(e, spec)| {
                        let unit = crate::unit::unit_of(&spec.lhs, s);
                        let shown = e
                            .actual
                            .filter(|_| wall)
                            .and_then(|a| crate::unit::on_wall_clock(a, unit, s.clock));
                        let mut row = vec![Cell::Text(format!("line {}: {}", e.line, e.text))];
                        match shown {
                            Some((v, symbol)) => {
                                row.push(Cell::number(Some(v), 4));
                                row.push(Cell::Text(symbol.into()));
                            }
                            None if wall => {
                                row.push(Cell::number(e.actual, 4));
                                row.push(Cell::Text(String::new()));
                            }
                            None => row.push(Cell::number(e.actual, 4)),
                        }
                        row.push(Cell::Text(if e.passed {
                            "ok".into()
                        } else if e.not_run {
                            "not run".into()
                        } else {
                            "FAILED".into()
                        }));
                        row
                    })
                    .collect(),
            }));
        }
        let pairing = (self.replications() > 1).then(|| crate::compare::Pairing {
            draws: if s.common_draws { "common" } else { "separate" }.to_string(),
            seed: s.seed,
            replications: self.replications(),
        });
        Report {
            title: s.name.clone(),
            meta,
            blocks,
            pairing,
        }
    }

    /// One row per run; with replications, totals over every replication
    /// of the run, balancing only when each replication does.
    fn accounting(&self) -> Table {
        let rows = self
            .runs
            .values()
            .map(|r| {
                let all = std::iter::once(&r.obs.accounting).chain(
                    self.replicas
                        .iter()
                        .filter_map(|m| m.get(&r.key))
                        .map(|x| &x.obs.accounting),
                );
                let (mut entered, mut completed, mut dropped, mut in_flight) = (0, 0, 0, 0);
                let mut balances = true;
                for a in all {
                    entered += a.entered;
                    completed += a.completed;
                    dropped += a.dropped;
                    in_flight += a.in_flight;
                    balances &= a.balances();
                }
                vec![
                    Cell::Text(self.run_label(r.key)),
                    Cell::Number(entered as f64, 0),
                    Cell::Number(completed as f64, 0),
                    Cell::Number(dropped as f64, 0),
                    Cell::Number(in_flight as f64, 0),
                    Cell::Text(if balances { "yes".into() } else { "NO".into() }),
                ]
            })
            .collect();
        let mut title =
            "accounting: every request ends completed, dropped or in flight".to_string();
        if self.replications() > 1 {
            title.push_str(&format!(
                " (totals of {} replications)",
                self.replications()
            ));
        }
        Table {
            title,
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
