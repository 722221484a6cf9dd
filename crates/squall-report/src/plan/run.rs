//! Running a plan: resolving every run, weighing its memory against the
//! budget, simulating the runs in parallel, and listing the runs that would
//! not start.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use squall_engine::SimError;
use squall_lang::{Model, Overrides, RunKey, Scenario, Setting};

use super::{
    builder, distinct_reads, observes, reads_ticks, resolve, Finished, Keep, Progress, RunOptions,
    RunPlan, DEFAULT_MEMORY_MIB,
};
use crate::error::StudyError;
use crate::memory::{estimate, MemoryEstimate};
use crate::refusal::Refusal;
use crate::run::Run;
use crate::sending::{run_senders, sender_specs};

/// The bytes a run's senders hold ([`squall_engine::sending::estimate_bytes`]).
fn sending_bytes(specs: &[(String, squall_lang::model::sending::SendSpec)]) -> u64 {
    squall_engine::sending::estimate_bytes(specs.iter().map(|(_, s)| s))
}

impl RunPlan {
    /// Resolves every run with the `cli` settings, then simulates them (each
    /// as many times as the report's `replications`) in parallel on `jobs`
    /// threads (`None`: one per core), keeping every per-tick series. A run
    /// that fails fails the whole (the first in the plan's order).
    pub fn run(
        &self,
        s: &Scenario,
        cli: &[Setting],
        jobs: Option<usize>,
        progress: Progress<'_>,
    ) -> Result<Finished, StudyError> {
        let mut finished = self.run_with(
            s,
            &RunOptions {
                cli,
                jobs,
                progress,
                ..RunOptions::keeping(Keep::Everything)
            },
        )?;
        match finished.first_failure() {
            Some(e) => Err(e),
            None => Ok(finished),
        }
    }

    /// Resolves every run with the settings, checks the invocation's memory
    /// estimate against its budget ([`StudyError::Memory`] before anything
    /// runs), then simulates the runs in parallel, reducing each as it
    /// finishes when `keep` says so. A run that fails while it runs (past
    /// its work budget) is listed in [`Finished::failed`] and the others
    /// go on.
    pub fn run_with(&self, s: &Scenario, o: &RunOptions<'_>) -> Result<Finished, StudyError> {
        let replications = s.report.replications.map_or(1, |n| n.max(1) as usize);
        // Every run is resolved and weighed before any starts, one at a time
        // and kept only as its sizes: a study of millions of runs is refused
        // by its estimate, not by the memory of its models. A run past the
        // engine's own limits, or whose own memory is past the budget, is
        // refused at the declaration that causes it, before the invocation's
        // budget is weighed. Replications differ in their seed alone, which
        // neither limits nor sizes read: one model (and its senders) stands
        // for all of a run's.
        let budget = o.memory_mib.unwrap_or(DEFAULT_MEMORY_MIB);
        let mut models = Vec::with_capacity(self.keys.len());
        for &k in &self.keys {
            let (ov, m) = resolve(s, k, o.cli)?;
            let specs = sender_specs(s, &ov)?;
            if let Some(e) = senders_over(s, k, &specs, budget) {
                return Err(e);
            }
            models.push((k, m, sending_bytes(&specs)));
        }
        for (key, m, _) in &models {
            builder(s, m, budget)
                .build()
                .map_err(|e| StudyError::Refused(Box::new(Refusal::locate(s, *key, e))))?;
        }
        let reduce = o.keep == Keep::Report && !reads_ticks(s);
        // A reduced run is read by the report alone: it records only the
        // timed measures the report reads. Otherwise (series, charts,
        // callers that read the runs) it records everything.
        let observe = if reduce {
            observes(s)
        } else {
            squall_engine::Observe::EVERYTHING
        };
        // A run the report alone reads (reduced or not) counts distinct
        // ids only where the report reads them.
        let distinct = (o.keep == Keep::Report).then(|| distinct_reads(s));
        let threads = o.jobs.unwrap_or_else(rayon::current_num_threads).max(1);
        let estimate = estimate(
            models.iter().map(|(_, m, b)| (m, *b, replications)),
            threads,
            reduce,
            o.call_log,
        );
        drop(models);
        if estimate.total > budget.saturating_mul(1 << 20) {
            return Err(StudyError::Memory {
                estimate,
                budget_mib: budget,
            });
        }
        // Each run's model is made where it runs, and dropped with it
        // unless it is kept.
        let runs: Vec<(RunKey, usize)> = self
            .keys
            .iter()
            .flat_map(|&k| (0..replications).map(move |r| (k, r)))
            .collect();
        let model_of = |k: RunKey, r: usize| -> Result<(Overrides, Model), StudyError> {
            let (mut ov, m) = resolve(s, k, o.cli)?;
            if r == 0 {
                return Ok((ov, m));
            }
            ov.seed = Some(s.replication_seed(k, r));
            let m = s.model(&ov).map_err(StudyError::Invalid)?;
            Ok((ov, m))
        };
        let total = runs.len();
        (o.progress)(0, total);
        let done = AtomicUsize::new(0);
        // A run that fails (past its work budget) does not stop the others:
        // every run that can finish does, and the failures are returned
        // with them, in the plan's order (the same whatever the threads).
        // A failure is boxed: it is rare, and the run it stands beside is
        // what the result should be sized for.
        type Ran = Result<(usize, Run), Box<(RunKey, usize, StudyError)>>;
        let simulate = || -> Vec<Ran> {
            runs.into_par_iter()
                .filter(|_| o.stop.is_none_or(|f| !f.load(Ordering::SeqCst)))
                .map(|(key, r)| {
                    let failed = |e: StudyError| Box::new((key, r, e));
                    let (overrides, model) = model_of(key, r).map_err(failed)?;
                    // The run's senders, resolved with its overrides (and seed).
                    let senders = sender_specs(s, &overrides).map_err(failed)?;
                    let mut b = builder(s, &model, budget).observe(observe);
                    if let Some(at) = &distinct {
                        b = b.distinct_ids_at(at);
                    }
                    if let Some(n) = o.call_log {
                        b = b.call_log(n);
                    }
                    let sim = b.build().map_err(|e| {
                        failed(StudyError::Refused(Box::new(Refusal::locate(s, key, e))))
                    })?;
                    let obs = sim.run().map_err(|e| failed(e.into()))?;
                    let sending = run_senders(key, senders).map_err(failed)?;
                    let mut run = Run {
                        key,
                        overrides,
                        model,
                        obs,
                        kept: None,
                        sending,
                    };
                    if reduce {
                        run.reduce();
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    (o.progress)(n, total);
                    Ok((r, run))
                })
                .collect()
        };
        let ran = match o.jobs {
            None => simulate(),
            Some(n) => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build()
                    .map_err(|e| StudyError::Pool(e.to_string()))?;
                pool.install(simulate)
            }
        };
        let attempted = ran.len();
        let mut runs = Vec::with_capacity(attempted);
        let mut failed = Vec::new();
        for x in ran {
            match x {
                Ok(run) => runs.push(run),
                Err(f) => failed.push(*f),
            }
        }
        let mut out = Finished {
            runs: BTreeMap::new(),
            replicas: (1..replications).map(|_| BTreeMap::new()).collect(),
            skipped: total - attempted,
            failed,
        };
        for (r, run) in runs {
            let map = match r.checked_sub(1) {
                None => &mut out.runs,
                Some(i) => &mut out.replicas[i],
            };
            map.insert(run.key, run);
        }
        Ok(out)
    }

    /// What running this plan would hold in memory at most, with the `cli`
    /// settings, on `threads` threads, reducing finished runs or not.
    pub fn memory(
        &self,
        s: &Scenario,
        cli: &[Setting],
        threads: usize,
        reduce: bool,
    ) -> Result<MemoryEstimate, StudyError> {
        let replications = s.report.replications.map_or(1, |n| n.max(1) as usize);
        let mut models = Vec::with_capacity(self.keys.len());
        for &k in &self.keys {
            let (o, m) = resolve(s, k, cli)?;
            let sending = sending_bytes(&sender_specs(s, &o)?);
            models.push((m, sending));
        }
        Ok(estimate(
            models.iter().map(|(m, b)| (m, *b, replications)),
            threads.max(1),
            reduce,
            None,
        ))
    }

    /// The runs that would not start with the `cli` settings (`squall check
    /// --set`; none: the file as written): a run
    /// whose values do not resolve, or whose model the engine refuses
    /// ([`StudyError::Refused`], located; a refusal many runs share is
    /// listed once, at its first run, with their count), a run that takes
    /// time whose own estimated memory is past `memory_mib` (`None`:
    /// [`DEFAULT_MEMORY_MIB`]) among them. Nothing is simulated.
    pub fn refusals(
        &self,
        s: &Scenario,
        cli: &[Setting],
        memory_mib: Option<u64>,
    ) -> Vec<(RunKey, StudyError)> {
        let budget = memory_mib.unwrap_or(DEFAULT_MEMORY_MIB);
        let mut out: Vec<(RunKey, StudyError)> = Vec::new();
        for &k in &self.keys {
            let problem = match resolve(s, k, cli) {
                Err(e) => e,
                Ok((o, m)) => match builder(s, &m, budget).build() {
                    Err(e) => StudyError::Refused(Box::new(Refusal::locate(s, k, e))),
                    Ok(_) => match sender_specs(s, &o)
                        .ok()
                        .and_then(|specs| senders_over(s, k, &specs, budget))
                    {
                        Some(e) => e,
                        None => continue,
                    },
                },
            };
            if let StudyError::Refused(new) = &problem {
                let same = out.iter_mut().find_map(|(_, p)| match p {
                    StudyError::Refused(old) if old.error == new.error && old.at == new.at => {
                        Some(old)
                    }
                    _ => None,
                });
                if let Some(old) = same {
                    old.runs += 1;
                    continue;
                }
            }
            out.push((k, problem));
        }
        out
    }
}

/// A run whose senders alone would hold more than the memory budget
/// \[MiB\]: refused before it starts, located at its first sender
/// ([`SimError::SendersOverBudget`], which names the senders and their
/// records). `None` when they fit.
fn senders_over(
    s: &Scenario,
    key: RunKey,
    specs: &[(String, squall_lang::model::sending::SendSpec)],
    budget: u64,
) -> Option<StudyError> {
    let bytes = sending_bytes(specs);
    if bytes <= budget.saturating_mul(1 << 20) {
        return None;
    }
    let error = SimError::SendersOverBudget {
        senders: specs.iter().map(|(n, _)| n.clone()).collect(),
        records: specs
            .iter()
            .fold(0u64, |n, (_, x)| n.saturating_add(x.records.count)),
        mib: bytes as f64 / f64::from(1u32 << 20),
        budget,
    };
    Some(StudyError::Refused(Box::new(Refusal::locate(
        s, key, error,
    ))))
}
