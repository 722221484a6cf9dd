//! A validated [`Scenario`] plus [`Overrides`] to a runnable [`Model`].
//!
//! Resolution is the second layer of validation (the first is
//! [`crate::validate`]): every `$param` is substituted, every value is
//! converted to ticks of the file's clock, and what can only be checked
//! with numbers (a range inside the run, a cap above its base) is checked.
//! Each concept resolves in its own file:
//!
//! - `params`: following `$param` uses through the overrides, and pointing
//!   a bad value's diagnostic at the use it reached;
//! - `runs`: which runs a file declares ([`RunKey`]), their overrides and
//!   their seeds;
//! - `time`: the run's ticks, ranges and windows;
//! - `nodes`: services, their endpoints' scripts and composite responses;
//! - `sources`: arrival rates, send times and sequential operations;
//! - `faults`: fault windows and their periodic strikes;
//! - `responses`: the answers a script step or a fault imposes;
//! - `policies`: generators, backoffs, retry policies and breakers;
//! - `budgets`, `library_breakers`: retry budgets and rate-window breakers
//!   named by library, each library's defaults filled in (`settings` reads
//!   a block's settings by name);
//! - `throttle`: client-side adaptive throttling (the SRE book's rule);
//! - `timed`: calls that take time: a node's server and caller sides,
//!   a source's deadline, a fault's timed effects, the series bin;
//! - `sending`: `provider` and `sender` blocks into sending studies;
//! - `sweep`: sweeps given on the command line ([`Scenario::with_sweep`]).
//!
//! Problems are collected, not returned at the first: a run reports every
//! value that does not fit.

mod backoffs;
mod budgets;
mod discipline;
mod faults;
mod library_breakers;
mod limiters;
mod links;
mod nodes;
mod params;
mod policies;
mod replicas;
mod responses;
mod runs;
mod sending;
mod settings;
mod sources;
pub mod sweep;
mod throttle;
mod time;
mod timed;
mod untimed;
mod work_queue;

use crate::decl::{Overrides, Scenario, Setting};
use crate::diagnostic::{dedup, Diagnostic, Diagnostics};
use crate::model::{Backoff, Model};
use crate::units;

pub use runs::RunKey;

impl Scenario {
    /// Resolves every run the file declares, returning all problems found.
    pub(crate) fn check_all_runs(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for key in self.all_runs() {
            let o = self.overrides(key, &[]);
            match self.model_list(&o) {
                Ok(m) => out.extend(self.report_replicas(&m, key)),
                Err(list) => out.extend(list),
            }
            if let Err(list) = self.sending(&o) {
                out.extend(list);
            }
        }
        out
    }

    /// Wraps problems with this scenario's file for rendering.
    pub fn diagnostics(&self, list: Vec<Diagnostic>) -> Diagnostics {
        Diagnostics::new(self.file.clone(), self.source.clone(), list)
    }

    /// Resolves one run into a model.
    pub fn model(&self, o: &Overrides) -> Result<Model, Diagnostics> {
        self.model_list(o).map_err(|mut l| {
            // A `service a, b { ... }` block is resolved once per service;
            // report each problem in it once.
            dedup(&mut l);
            self.diagnostics(l)
        })
    }

    /// The model of a declared run.
    pub fn model_for(&self, key: RunKey, cli: &[Setting]) -> Result<Model, Diagnostics> {
        self.model(&self.overrides(key, cli))
    }

    fn model_list(&self, o: &Overrides) -> Result<Model, Vec<Diagnostic>> {
        let mut errs = Vec::new();
        let (start, ticks) = self.run_span(o, &mut errs);
        let warmup = match &self.warmup {
            Some(v) => self
                .conv(v, o, |v| units::tick(v, self.clock, "the warm-up"))
                .unwrap_or(0),
            None => 0,
        };
        let mut cx = Cx {
            o,
            errs: &mut errs,
            start,
            ticks,
            warmup,
        };

        let rngs = self.rngs();
        let backoffs: Vec<(String, Backoff)> = self
            .backoffs
            .iter()
            .filter_map(|(name, b)| self.backoff(b, &mut cx).map(|b| (name.clone(), b)))
            .collect();
        let nodes: Vec<_> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| match self.changed_node(i, n, o) {
                Some(changed) => self.node(&changed, &mut cx, &backoffs),
                None => self.node(n, &mut cx, &backoffs),
            })
            .collect();
        let sources = self
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| self.source(i, s, &mut cx, &backoffs))
            .collect();
        let mut faults = self.faults(&mut cx);
        self.fault_replicas(&mut faults, &nodes, &mut cx);
        let links = self.links(&mut cx);
        let windows = self.windows(&mut cx);
        let series_every = self.series_every(&mut cx);
        let model = Model {
            warmup,
            name: self.name.clone(),
            clock: self.clock,
            start,
            ticks,
            seed: o.seed.unwrap_or(self.seed),
            common_draws: self.common_draws,
            nodes,
            sources,
            faults,
            links,
            windows,
            rngs,
            backoffs,
            series_every,
        };
        self.check_balancers(&model, &mut cx);
        self.check_limiters(&model, &mut cx);
        self.check_links(&model, &mut cx);
        discipline::check_priorities(self, &model, &mut cx);
        if !errs.is_empty() {
            return Err(errs);
        }
        Ok(model)
    }
}

/// What one run's resolution needs at hand: its overrides, its ticks, and
/// the problems found so far.
pub(super) struct Cx<'a> {
    pub(super) o: &'a Overrides,
    pub(super) errs: &'a mut Vec<Diagnostic>,
    pub(super) start: u64,
    pub(super) ticks: u64,
    pub(super) warmup: u64,
}

impl Cx<'_> {
    /// The value, or `None` with the problem kept.
    pub(super) fn keep<T>(&mut self, r: Result<T, Diagnostic>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(d) => {
                self.errs.push(d);
                None
            }
        }
    }
}
