//! A validated scenario plus overrides to a runnable [`Model`].

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::*;
use crate::span::Span;
use crate::units;
use crate::validate::{Overrides, Scenario, Setting};

/// How deep `$a = $b` chains of params may go.
const PARAM_DEPTH: usize = 16;

/// Which run of a scenario: a variant, or a point of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunKey {
    /// Variant by index.
    Variant(usize),
    /// Sweep by index, point by index.
    Point(usize, usize),
}

/// A value after param substitution, remembering where it came from.
struct Resolved<'a> {
    value: &'a Value,
    /// The `$param` use in the file, when the value came through a param.
    via: Option<(Span, &'a str)>,
    /// Where the value was set outside the file (`--set x=1`).
    origin: Option<&'a str>,
}

impl Scenario {
    /// The overrides of a run: `cli` settings, then the variant's (and the
    /// sweep point's) own.
    pub fn overrides(&self, key: RunKey, cli: &[Setting]) -> Overrides {
        let base = Overrides {
            sets: cli.to_vec(),
            ..Overrides::default()
        };
        match key {
            RunKey::Variant(v) => base.then(&self.variants[v].overrides),
            RunKey::Point(s, p) => {
                let sweep = &self.sweeps[s];
                let mut o = base.then(&self.variants[sweep.base].overrides);
                if let Some(point) = sweep.point(p) {
                    for (name, value) in point {
                        let origin = sweep.from_cli.then(|| {
                            format!("--vary {name}={}", crate::format::value_text(&value))
                        });
                        o.sets.push(Setting {
                            name,
                            value,
                            origin,
                        });
                    }
                }
                o
            }
        }
    }

    /// Every run the file declares: variants, then sweep points.
    pub fn all_runs(&self) -> Vec<RunKey> {
        let mut keys: Vec<RunKey> = (0..self.variants.len()).map(RunKey::Variant).collect();
        for (s, sweep) in self.sweeps.iter().enumerate() {
            for p in 0..sweep.point_count() {
                keys.push(RunKey::Point(s, p));
            }
        }
        keys
    }

    /// The value of a param in a run (after all overrides).
    pub fn param_value(&self, name: &str, o: &Overrides) -> Option<Value> {
        o.sets
            .iter()
            .rev()
            .find(|s| s.name == name)
            .map(|s| s.value.clone())
            .or_else(|| self.params.get(name).cloned())
    }

    /// The numeric value of a param in a run, for reports: a plain number as
    /// is, a duration in ticks, a rate per tick.
    pub fn param_number(&self, name: &str, o: &Overrides) -> Option<f64> {
        let mut v = self.param_value(name, o)?;
        for _ in 0..PARAM_DEPTH {
            match &v.kind {
                ValueKind::Param(p) => v = self.param_value(p, o)?,
                ValueKind::Number(n) => return Some(*n),
                ValueKind::Duration { .. } => {
                    return units::ticks(&v, self.clock, "a value")
                        .ok()
                        .map(|t| t as f64)
                }
                ValueKind::Rate { .. } => return units::per_tick(&v, self.clock, "a value").ok(),
            }
        }
        None
    }

    /// Resolves every run the file declares, returning all problems found.
    pub(crate) fn check_all_runs(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for key in self.all_runs() {
            if let Err(list) = self.model_list(&self.overrides(key, &[])) {
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
        self.model_list(o).map_err(|l| self.diagnostics(l))
    }

    /// The model of a declared run.
    pub fn model_for(&self, key: RunKey, cli: &[Setting]) -> Result<Model, Diagnostics> {
        self.model(&self.overrides(key, cli))
    }

    fn resolve<'a>(&'a self, v: &'a Value, o: &'a Overrides) -> Result<Resolved<'a>, Diagnostic> {
        let mut cur = Resolved {
            value: v,
            via: None,
            origin: None,
        };
        for _ in 0..PARAM_DEPTH {
            let ValueKind::Param(name) = &cur.value.kind else {
                return Ok(cur);
            };
            let via = cur.via.or(Some((cur.value.span, name.as_str())));
            if let Some(s) = o.sets.iter().rev().find(|s| s.name == *name) {
                cur = Resolved {
                    value: &s.value,
                    via,
                    origin: s.origin.as_deref().or(cur.origin),
                };
            } else if let Some(p) = self.params.get(name) {
                cur = Resolved {
                    value: p,
                    via,
                    origin: cur.origin,
                };
            } else {
                return Err(
                    Diagnostic::new(format!("unknown param `${name}`"), cur.value.span)
                        .label("no param of this name"),
                );
            }
        }
        Err(Diagnostic::new(
            "params refer to each other too deeply (or in a circle)",
            v.span,
        )
        .label("here"))
    }

    /// Converts a value with `f`, re-pointing errors at the `$param` use when
    /// the value came from outside the file.
    fn conv<T>(
        &self,
        v: &Value,
        o: &Overrides,
        f: impl FnOnce(&Value) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        let r = self.resolve(v, o)?;
        f(r.value).map_err(|mut d| {
            if let Some(origin) = r.origin {
                if let Some((use_span, name)) = r.via {
                    d.span = use_span;
                    d.label = format!("`${name}` is set by `{origin}`");
                }
                let extra = format!("the value comes from `{origin}`");
                d.help = Some(match d.help.take() {
                    Some(h) => format!("{h}; {extra}"),
                    None => extra,
                });
            } else if let Some((use_span, name)) = r.via {
                let (line, _) = use_span.line_col(&self.source);
                let extra = format!("`${name}` is used on line {line}");
                d.help = Some(match d.help.take() {
                    Some(h) => format!("{h}; {extra}"),
                    None => extra,
                });
            }
            d
        })
    }

    fn range(
        &self,
        r: &Range,
        o: &Overrides,
        ticks: u64,
        what: &str,
        errs: &mut Vec<Diagnostic>,
    ) -> Option<(u64, u64)> {
        let a = self.conv(&r.start, o, |v| units::ticks(v, self.clock, what));
        let b = self.conv(&r.end, o, |v| units::ticks(v, self.clock, what));
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                errs.extend(a.err());
                errs.extend(b.err());
                return None;
            }
        };
        if a > b {
            errs.push(
                Diagnostic::new(format!("{what} starts at {a} after it ends at {b}"), r.span)
                    .label("empty range")
                    .help("a range is `first..last`, both inclusive"),
            );
            return None;
        }
        if a < 1 || b > ticks {
            errs.push(
                Diagnostic::new(
                    format!("{what} {a}..{b} is outside the run, which covers ticks 1..{ticks}"),
                    r.span,
                )
                .label("outside the run")
                .help("ticks are numbered from 1 to the length of `run`"),
            );
            return None;
        }
        Some((a, b))
    }

    fn model_list(&self, o: &Overrides) -> Result<Model, Vec<Diagnostic>> {
        let mut errs = Vec::new();
        let ticks = match &self.run {
            None => 0,
            Some(v) => match self.conv(v, o, |v| units::ticks(v, self.clock, "the run length")) {
                Ok(0) => {
                    errs.push(
                        Diagnostic::new("the run is 0 ticks long", v.span)
                            .label("nothing to simulate"),
                    );
                    0
                }
                Ok(t) => t,
                Err(d) => {
                    errs.push(d);
                    0
                }
            },
        };
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let capacity = match &n.capacity {
                None => None,
                Some(v) => {
                    match self.conv(v, o, |v| units::whole_per_tick(v, self.clock, "a capacity")) {
                        Ok(c) => Some(c),
                        Err(d) => {
                            errs.push(d);
                            None
                        }
                    }
                }
            };
            let retry = match &n.retry {
                None => None,
                Some(r) => self.retry(r, o, &mut errs),
            };
            nodes.push(NodeSpec {
                name: n.name.clone(),
                downstream: n.downstream,
                capacity,
                retry,
            });
        }
        let mut sources = Vec::new();
        for (i, s) in self.sources.iter().enumerate() {
            let rates = o
                .sources
                .iter()
                .rev()
                .find(|(j, _)| *j == i)
                .map_or(&s.rates, |(_, r)| r);
            let mut base = None;
            let mut periods = Vec::new();
            // A replacement without a base rate keeps the source's own base rate.
            let base_lines = if rates.iter().any(|r| r.during.is_none()) {
                rates
            } else {
                &s.rates
            };
            for r in base_lines.iter().filter(|r| r.during.is_none()) {
                match self.conv(&r.value, o, |v| {
                    units::per_tick(v, self.clock, "a source rate")
                }) {
                    Ok(x) => base = Some(x),
                    Err(d) => errs.push(d),
                }
            }
            for r in rates.iter() {
                if let Some(d) = &r.during {
                    let rate = self.conv(&r.value, o, |v| {
                        units::per_tick(v, self.clock, "a source rate")
                    });
                    let span = self.range(d, o, ticks.max(1), "the rate's range", &mut errs);
                    match (rate, span) {
                        (Ok(rate), Some((from, to))) => periods.push(RatePeriod { from, to, rate }),
                        (Err(d), _) => errs.push(d),
                        _ => {}
                    }
                }
            }
            sources.push(SourceSpec {
                name: s.name.clone(),
                entry: s.entry,
                arrivals: s.arrivals,
                rate: base.unwrap_or(0.0),
                periods,
            });
        }
        let mut faults = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            if o.without.contains(&i) {
                continue;
            }
            let span = self.range(&f.during, o, ticks.max(1), "the fault's range", &mut errs);
            let capacity = match &f.capacity {
                None => None,
                Some(v) => {
                    match self.conv(v, o, |v| units::whole_per_tick(v, self.clock, "a capacity")) {
                        Ok(c) => Some(c),
                        Err(d) => {
                            errs.push(d);
                            None
                        }
                    }
                }
            };
            if let Some((from, to)) = span {
                faults.push(FaultSpec {
                    name: f.name.clone(),
                    node: f.node,
                    from,
                    to,
                    capacity,
                });
            }
        }
        let mut windows = Vec::new();
        for (name, r) in &self.windows {
            if let Some((from, to)) =
                self.range(r, o, ticks.max(1), &format!("window `{name}`"), &mut errs)
            {
                windows.push(WindowSpec {
                    name: name.clone(),
                    from,
                    to,
                });
            }
        }
        if !errs.is_empty() {
            return Err(errs);
        }
        Ok(Model {
            name: self.name.clone(),
            clock: self.clock,
            ticks,
            seed: self.seed,
            nodes,
            sources,
            faults,
            windows,
        })
    }

    fn retry(&self, r: &RetryAst, o: &Overrides, errs: &mut Vec<Diagnostic>) -> Option<RetrySpec> {
        let attempts = match &r.attempts {
            None => return None,
            Some(v) => match self.conv(v, o, |v| {
                let n = units::count(v, "`attempts`")?;
                if n == 0 {
                    return Err(Diagnostic::new(
                        "`attempts` counts tries including the first, so it is at least 1",
                        v.span,
                    )
                    .label("0 tries")
                    .help("`attempts 1` means no retries"));
                }
                if n > 1_000_000 {
                    return Err(Diagnostic::new(
                        format!("`attempts {n}` is more tries than squall simulates (1000000)"),
                        v.span,
                    )
                    .label("too many"));
                }
                Ok(n as u32)
            }) {
                Ok(n) => n,
                Err(d) => {
                    errs.push(d);
                    return None;
                }
            },
        };
        let backoff = match &r.backoff {
            None => return None,
            Some(BackoffAst::Fixed(v)) => {
                match self.conv(v, o, |v| units::ticks(v, self.clock, "a backoff wait")) {
                    Ok(wait) => Backoff::Fixed { wait },
                    Err(d) => {
                        errs.push(d);
                        return None;
                    }
                }
            }
            Some(BackoffAst::Exponential {
                base,
                multiplier,
                cap,
            }) => {
                let b = self.conv(base, o, |v| units::ticks(v, self.clock, "a backoff base"));
                let m = match multiplier {
                    None => Ok(2.0),
                    Some(m) => self.conv(m, o, |v| {
                        let x = units::real(v, "a backoff multiplier")?;
                        if x < 1.0 {
                            return Err(Diagnostic::new(
                                format!(
                                    "a backoff multiplier below 1 ({x}) would shrink the waits"
                                ),
                                v.span,
                            )
                            .label("less than 1"));
                        }
                        Ok(x)
                    }),
                };
                let c = match cap {
                    None => Ok(None),
                    Some(c) => self
                        .conv(c, o, |v| units::ticks(v, self.clock, "a backoff cap"))
                        .map(Some),
                };
                match (b, m, c) {
                    (Ok(base), Ok(multiplier), Ok(cap)) => {
                        if let Some(cv) = cap {
                            if cv < base {
                                errs.push(
                                    Diagnostic::new(format!("the backoff cap ({cv}) is below its base ({base})"), r.span)
                                        .label("cap below base")
                                        .help("the cap bounds the growing wait; make it at least the base"),
                                );
                                return None;
                            }
                        }
                        Backoff::Exponential {
                            base,
                            multiplier,
                            cap,
                        }
                    }
                    (b, m, c) => {
                        errs.extend(b.err());
                        errs.extend(m.err());
                        errs.extend(c.err());
                        return None;
                    }
                }
            }
        };
        Some(RetrySpec { attempts, backoff })
    }
}
