//! A scenario with its finished runs: what every report item reads.
//!
//! A [`Study`] is a scenario with every run its report refers to (variants
//! and sweep points), as the [run planner](crate::plan) chose and ran them.
//! The report items are methods on it, one file each (see the crate doc);
//! `build.rs` gathers them into a [`Report`](crate::Report).

use std::collections::BTreeMap;

use squall_lang::{RunKey, Scenario, Setting};

pub use crate::error::StudyError;
use crate::plan::{Keep, Progress, RunOptions, RunPlan};
pub use crate::run::Run;
use crate::sending::SendRun;

/// A scenario and its finished runs.
#[derive(Debug)]
pub struct Study<'s> {
    /// The scenario.
    pub scenario: &'s Scenario,
    /// Settings from the command line.
    pub cli: Vec<Setting>,
    /// Variants the user asked for (`None`: all).
    pub selected: Option<Vec<usize>>,
    /// Finished runs (with `replications N`, the first replication of each).
    pub runs: BTreeMap<RunKey, Run>,
    /// With `replications N`: replications 2..=N of every run, in order;
    /// empty without. Tables and lines read every replication, other items
    /// the first (`runs`).
    pub replicas: Vec<BTreeMap<RunKey, Run>>,
    /// Every sender's run (`provider`/`sender` blocks) of the first
    /// replication of every run, by run then declaration; empty without
    /// senders. Later replications keep theirs in their runs
    /// ([`Run::sending`]).
    pub sending: Vec<SendRun>,
}

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct StudyOptions {
    /// `--set` settings.
    pub cli: Vec<Setting>,
    /// Only these variants (by index); `None` for all.
    pub variants: Option<Vec<usize>>,
    /// Threads to run on; `None` for one per core. The report is the same
    /// for any number.
    pub jobs: Option<usize>,
    /// What to keep of each run: everything (the default; for the series
    /// CSV, charts and callers reading the runs) or what the report reads.
    pub keep: Keep,
    /// The invocation's memory budget \[MiB\]; `None` for the default.
    pub memory_mib: Option<u64>,
    /// Keep every run's answered calls, at most this many a run (for
    /// [`Study::events`]); `None` keeps none.
    pub events: Option<usize>,
}

impl<'s> Study<'s> {
    /// Runs everything the scenario's report refers to
    /// ([`RunPlan::report`]).
    pub fn run(scenario: &'s Scenario, options: StudyOptions) -> Result<Study<'s>, StudyError> {
        Self::run_with_progress(scenario, options, &|_, _| {})
    }

    /// [`Study::run`], calling `progress` with (runs finished, runs in all)
    /// after each run, from any thread (`squall run` draws its bar with it).
    pub fn run_with_progress(
        scenario: &'s Scenario,
        options: StudyOptions,
        progress: Progress<'_>,
    ) -> Result<Study<'s>, StudyError> {
        let plan = RunPlan::report(scenario, options.variants.as_deref());
        let mut ran = plan.run_with(
            scenario,
            &RunOptions {
                cli: &options.cli,
                jobs: options.jobs,
                memory_mib: options.memory_mib,
                progress,
                call_log: options.events,
                ..RunOptions::keeping(options.keep)
            },
        )?;
        if let Some(e) = ran.first_failure() {
            return Err(e);
        }
        let sending = take_sending(&mut ran.runs);
        Ok(Study {
            sending,
            scenario,
            cli: options.cli,
            selected: options.variants,
            runs: ran.runs,
            replicas: ran.replicas,
        })
    }

    /// How many replications every run has: 1 without `replications`.
    pub fn replications(&self) -> usize {
        1 + self.replicas.len()
    }

    /// True when the variant is part of this study.
    pub fn includes_variant(&self, v: usize) -> bool {
        self.selected.as_ref().is_none_or(|s| s.contains(&v))
    }

    /// The run items without a row axis describe: the first selected variant.
    pub fn default_key(&self) -> RunKey {
        (0..self.scenario.variants.len())
            .find(|&v| self.includes_variant(v))
            .map_or(RunKey::Variant(0), RunKey::Variant)
    }
}

/// The senders' runs of `runs` (the first replications), by run then
/// declaration, moved out of them into the study.
pub(crate) fn take_sending(runs: &mut BTreeMap<RunKey, Run>) -> Vec<SendRun> {
    runs.values_mut()
        .flat_map(|r| std::mem::take(&mut r.sending))
        .collect()
}
