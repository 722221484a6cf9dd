//! A validated scenario plus overrides to a runnable [`Model`].

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::*;
use crate::seed::derive_seed;
use crate::span::Span;
use crate::timing::{CallerSpec, TimedFault};
use crate::units;
use crate::validate::{dedup, Overrides, Scenario, Setting};

/// How deep `$a = $b` chains of params may go.
const PARAM_DEPTH: usize = 16;

/// Which run of a scenario: a variant, or a point of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunKey {
    /// Variant by index.
    Variant(usize),
    /// Sweep by index, point by index (on the sweep's own base variant).
    Point(usize, usize),
    /// A sweep point applied on top of a variant: variant, sweep, point.
    Cross(usize, usize, usize),
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
            RunKey::Variant(v) => {
                let mut o = base.then(&self.variants[v].overrides);
                o.seed = Some(self.run_seed(key));
                o
            }
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
                o.seed = Some(self.run_seed(key));
                o
            }
            RunKey::Cross(v, s, p) => {
                let sweep = &self.sweeps[s];
                let mut o = base.then(&self.variants[v].overrides);
                if let Some(point) = sweep.point(p) {
                    for (name, value) in point {
                        o.sets.push(Setting {
                            name: name.clone(),
                            value: value.clone(),
                            origin: None,
                        });
                    }
                }
                o.seed = Some(self.run_seed(key));
                o
            }
        }
    }

    /// The seed of a run, derived from the scenario's `seed` and a label:
    /// `variant/<name>` for a variant, `point/<settings>` for a sweep point
    /// (its settings sorted by name, so the seed follows the point's values
    /// and not its position), `variant/<name>/point/<settings>` for a point
    /// on top of a variant.
    pub fn run_seed(&self, key: RunKey) -> u64 {
        let settings = |s: usize, p: usize| {
            let mut parts: Vec<String> = self
                .sweeps
                .get(s)
                .and_then(|sw| sw.point(p))
                .unwrap_or_default()
                .iter()
                .map(|(n, v)| format!("{n}={}", crate::format::value_text(v)))
                .collect();
            parts.sort();
            parts.join(",")
        };
        let label = match key {
            RunKey::Variant(v) => format!("variant/{}", self.variants[v].name),
            RunKey::Point(s, p) => format!("point/{}", settings(s, p)),
            RunKey::Cross(v, s, p) => {
                format!("variant/{}/point/{}", self.variants[v].name, settings(s, p))
            }
        };
        derive_seed(self.seed, &label)
    }

    /// Every run the file declares: variants, then sweep points.
    pub fn all_runs(&self) -> Vec<RunKey> {
        let mut keys: Vec<RunKey> = (0..self.variants.len()).map(RunKey::Variant).collect();
        for (s, sweep) in self.sweeps.iter().enumerate() {
            for p in 0..sweep.len() {
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
                ValueKind::Size { bytes } => return Some(*bytes),
                ValueKind::Word(_) | ValueKind::Mark(_) => return None,
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
                    d.label = format!("`${name}` gets its value from `{origin}`");
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

    fn model_list(&self, o: &Overrides) -> Result<Model, Vec<Diagnostic>> {
        let mut errs = Vec::new();
        let (start, ticks) = self.run_span(o, &mut errs);
        let warmup = match &self.warmup {
            Some(v) => self
                .conv(v, o, |v| units::ticks(v, self.clock, "the warm-up"))
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

        let rngs = self
            .rngs
            .iter()
            .map(|r| RngSpec {
                name: r.name.name.clone(),
                algorithm: match r.algorithm.as_ref().map(|a| a.name.as_str()) {
                    Some("mulberry32") => RngAlgorithm::Mulberry32,
                    _ => RngAlgorithm::SplitMix64,
                },
                seed: r.seed.map(|(s, _)| s),
            })
            .collect();
        let backoffs: Vec<(String, Backoff)> = self
            .backoffs
            .iter()
            .filter_map(|(name, b)| self.backoff(b, &mut cx).map(|b| (name.clone(), b)))
            .collect();

        let mut nodes = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let capacity = n.capacity.as_ref().and_then(|v| {
                cx.keep(self.conv(v, o, |v| units::whole_per_tick(v, self.clock, "a capacity")))
            });
            let retry = n
                .retry
                .as_ref()
                .and_then(|r| self.retry(r, &mut cx, &backoffs));
            let breaker = n.breaker.as_ref().and_then(|b| self.breaker(b, &mut cx));
            let routes = n
                .routes
                .iter()
                .map(|r| RouteSpec {
                    name: r.name.name.clone(),
                    method: r.method.as_deref().and_then(Method::parse),
                    path: r.path.clone(),
                    script: r
                        .script
                        .iter()
                        .filter_map(|s| self.step(s, &mut cx))
                        .collect(),
                })
                .collect();
            let composite = n.response.as_ref().and_then(|r| self.composite(r, &mut cx));
            nodes.push(NodeSpec {
                composite,
                name: n.name.clone(),
                downstream: n.downstream,
                capacity,
                retry,
                breaker,
                routes,
                server: None,
                caller: CallerSpec::default(),
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
                if let Some(x) = cx.keep(self.conv(&r.value, o, |v| {
                    units::per_tick(v, self.clock, "a source rate")
                })) {
                    base = Some(x);
                }
            }
            for r in rates.iter() {
                if let Some(d) = &r.during {
                    let rate = cx.keep(self.conv(&r.value, o, |v| {
                        units::per_tick(v, self.clock, "a source rate")
                    }));
                    let span = self.range(d, &mut cx, "the rate's range");
                    if let (Some(rate), Some((from, to))) = (rate, span) {
                        periods.push(RatePeriod { from, to, rate });
                    }
                }
            }
            let schedule = if !s.ops.is_empty() {
                let mut ops = Vec::new();
                for op in &s.ops {
                    let retry = self.op_retry(op, s.entry, &mut cx, &backoffs);
                    ops.push(OpSpec {
                        label: op.label.clone(),
                        request: request_spec(&op.request),
                        retry,
                    });
                }
                Schedule::Sequential(ops)
            } else if !s.times.is_empty() {
                let mut times = Vec::new();
                for v in &s.times {
                    if let Some(t) =
                        cx.keep(self.conv(v, o, |v| units::ticks(v, self.clock, "a send time")))
                    {
                        if t < start || t > ticks {
                            cx.errs.push(
                                Diagnostic::new(
                                    format!(
                                        "a send time of {t} is outside the run {start}..{ticks}"
                                    ),
                                    v.span,
                                )
                                .label("outside the run"),
                            );
                        } else {
                            times.push(t);
                        }
                    }
                }
                times.sort_unstable();
                Schedule::At(times)
            } else {
                Schedule::Rate
            };
            sources.push(SourceSpec {
                name: s.name.clone(),
                entry: s.entry,
                arrivals: s.arrivals,
                rate: base.unwrap_or(0.0),
                periods,
                schedule,
                request: s.request.as_ref().map(request_spec).unwrap_or_default(),
                deadline: None,
            });
        }

        let mut faults = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            if o.without.contains(&i) {
                continue;
            }
            let span = self.range(&f.during, &mut cx, "the fault's range");
            let capacity = f.capacity.as_ref().and_then(|v| {
                cx.keep(self.conv(v, o, |v| units::whole_per_tick(v, self.clock, "a capacity")))
            });
            let fail = f.fail.as_ref().and_then(|r| self.response(r, &mut cx));
            if let Some((from, to)) = span {
                let periodic = f.every.as_ref().and_then(|x| {
                    let t = |cx: &mut Cx<'_>, v: &Value, what: &str| {
                        cx.keep(self.conv(v, o, |v| units::ticks(v, self.clock, what)))
                    };
                    let every = t(&mut cx, &x.every, "a period")?;
                    if every == 0 {
                        cx.errs.push(
                            Diagnostic::new("a period of 0 ticks strikes never", x.every.span)
                                .label("zero period"),
                        );
                        return None;
                    }
                    let phase = match &x.phase {
                        Some(v) => t(&mut cx, v, "a phase")?,
                        None => 0,
                    };
                    let step = match &x.step {
                        Some(v) => t(&mut cx, v, "a phase step")?,
                        None => 0,
                    };
                    Some(Periodic { every, phase, step })
                });
                // A fault on several nodes strikes each of them alike.
                for &node in &f.nodes {
                    faults.push(FaultSpec {
                        periodic,
                        name: f.name.clone(),
                        node,
                        from,
                        to,
                        capacity,
                        fail: fail.clone(),
                        timed: TimedFault::default(),
                    });
                }
            }
        }
        let mut windows = Vec::new();
        for (name, r) in &self.windows {
            if let Some((from, to)) = self.range(r, &mut cx, &format!("window `{name}`")) {
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
            warmup,
            name: self.name.clone(),
            clock: self.clock,
            start,
            ticks,
            seed: o.seed.unwrap_or(self.seed),
            nodes,
            sources,
            faults,
            windows,
            rngs,
            backoffs,
            series_every: None,
        })
    }

    /// The run's first and last tick.
    fn run_span(&self, o: &Overrides, errs: &mut Vec<Diagnostic>) -> (u64, u64) {
        if let Some(r) = &self.run_range {
            let a = self.conv(&r.start, o, |v| {
                units::ticks(v, self.clock, "the run's start")
            });
            let b = self.conv(&r.end, o, |v| units::ticks(v, self.clock, "the run's end"));
            return match (a, b) {
                (Ok(a), Ok(b)) if a <= b => (a, b),
                (Ok(a), Ok(b)) => {
                    errs.push(
                        Diagnostic::new(
                            format!("the run starts at {a} after it ends at {b}"),
                            r.span,
                        )
                        .label("empty run")
                        .help("write `run first..last`, both inclusive"),
                    );
                    (1, 0)
                }
                (a, b) => {
                    errs.extend(a.err());
                    errs.extend(b.err());
                    (1, 0)
                }
            };
        }
        let warmup = match &self.warmup {
            None => 0,
            Some(v) => match self.conv(v, o, |v| units::ticks(v, self.clock, "the warm-up")) {
                Ok(w) => w,
                Err(d) => {
                    errs.push(d);
                    0
                }
            },
        };
        match &self.run {
            None => (1, 0),
            Some(v) => match self
                .conv(v, o, |v| units::ticks(v, self.clock, "the run length"))
                .map(|t| {
                    // The measured ticks come after the warm-up.
                    if t == 0 {
                        0
                    } else {
                        t + warmup
                    }
                }) {
                Ok(0) => {
                    errs.push(
                        Diagnostic::new("the run is 0 ticks long", v.span)
                            .label("nothing to simulate"),
                    );
                    (1, 0)
                }
                Ok(t) => (1, t),
                Err(d) => {
                    errs.push(d);
                    (1, 0)
                }
            },
        }
    }

    fn range(&self, r: &Range, cx: &mut Cx<'_>, what: &str) -> Option<(u64, u64)> {
        let (start, end, warmup) = (cx.start, cx.ticks, cx.warmup);
        let bound = |v: &Value| match v.kind {
            ValueKind::Mark(Mark::Start) => Ok(start),
            ValueKind::Mark(Mark::End) => Ok(end),
            ValueKind::Mark(Mark::AfterWarmup) => {
                if warmup == 0 {
                    Err(
                        Diagnostic::new("`after warmup`, but the scenario has no `warmup`", v.span)
                            .label("no warm-up")
                            .help("add e.g. `warmup 2min`, or write the range out"),
                    )
                } else {
                    Ok(start + warmup)
                }
            }
            _ => self.conv(v, cx.o, |v| units::ticks(v, self.clock, what)),
        };
        let a = bound(&r.start);
        let b = bound(&r.end);
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                cx.errs.extend(a.err());
                cx.errs.extend(b.err());
                return None;
            }
        };
        if a > b {
            cx.errs.push(
                Diagnostic::new(format!("{what} starts at {a} after it ends at {b}"), r.span)
                    .label("empty range")
                    .help("a range is `first..last`, both inclusive"),
            );
            return None;
        }
        if cx.start > cx.ticks {
            return None; // the run itself is already reported
        }
        if a < cx.start || b > cx.ticks {
            cx.errs.push(
                Diagnostic::new(
                    format!(
                        "{what} {a}..{b} is outside the run, which covers ticks {}..{}",
                        cx.start, cx.ticks
                    ),
                    r.span,
                )
                .label("outside the run")
                .help("ticks are numbered from the first tick of `run` to its last"),
            );
            return None;
        }
        Some((a, b))
    }

    fn backoff(&self, b: &BackoffAst, cx: &mut Cx<'_>) -> Option<Backoff> {
        let o = cx.o;
        let ticks = |cx: &mut Cx<'_>, v: &Value, what: &str| {
            cx.keep(self.conv(v, o, |v| units::ticks(v, self.clock, what)))
        };
        let multiplier = |cx: &mut Cx<'_>, m: &Option<Value>| match m {
            None => Some(2.0),
            Some(m) => cx.keep(self.conv(m, o, |v| {
                let x = units::real(v, "a backoff multiplier")?;
                if x < 1.0 {
                    return Err(Diagnostic::new(
                        format!("a backoff multiplier below 1 ({x}) would shrink the waits"),
                        v.span,
                    )
                    .label("less than 1"));
                }
                Ok(x)
            })),
        };
        let cap_of =
            |cx: &mut Cx<'_>, c: &Option<Value>, base: Option<u64>| -> Option<Option<u64>> {
                let Some(c) = c else { return Some(None) };
                let cv = ticks(cx, c, "a backoff cap")?;
                if let Some(base) = base {
                    if cv < base {
                        cx.errs.push(
                            Diagnostic::new(
                                format!("the backoff cap ({cv}) is below its base ({base})"),
                                c.span,
                            )
                            .label("cap below base")
                            .help("the cap bounds the growing wait; make it at least the base"),
                        );
                        return None;
                    }
                }
                Some(Some(cv))
            };
        let rng_of = |r: &Option<Ident>| {
            r.as_ref()
                .and_then(|id| self.rngs.iter().position(|x| x.name.name == id.name))
        };
        match b {
            BackoffAst::Fixed(v) => {
                ticks(cx, v, "a backoff wait").map(|wait| Backoff::Fixed { wait })
            }
            BackoffAst::Exponential {
                base,
                multiplier: m,
                cap,
            } => {
                let base = ticks(cx, base, "a backoff base");
                let m = multiplier(cx, m);
                let cap = cap_of(cx, cap, base);
                Some(Backoff::Exponential {
                    base: base?,
                    multiplier: m?,
                    cap: cap?,
                })
            }
            BackoffAst::FullJitter {
                base,
                multiplier: m,
                cap,
                rng,
            } => {
                let base = ticks(cx, base, "a backoff base");
                let m = multiplier(cx, m);
                let cap = cap_of(cx, cap, base);
                Some(Backoff::FullJitter {
                    base: base?,
                    multiplier: m?,
                    cap: cap?,
                    rng: rng_of(rng),
                })
            }
            BackoffAst::EqualJitter {
                base,
                multiplier: m,
                cap,
                rng,
            } => {
                let base = ticks(cx, base, "a backoff base");
                let m = multiplier(cx, m);
                let cap = cap_of(cx, cap, base);
                Some(Backoff::EqualJitter {
                    base: base?,
                    multiplier: m?,
                    cap: cap?,
                    rng: rng_of(rng),
                })
            }
            BackoffAst::Decorrelated { base, cap, rng } => {
                let base = ticks(cx, base, "a backoff base");
                let cap = cap_of(cx, cap, base);
                Some(Backoff::Decorrelated {
                    base: base?,
                    cap: cap?,
                    rng: rng_of(rng),
                })
            }
        }
    }

    fn retry(
        &self,
        r: &RetryAst,
        cx: &mut Cx<'_>,
        backoffs: &[(String, Backoff)],
    ) -> Option<RetrySpec> {
        if let Some(name) = &r.named {
            let (_, policy) = self.policies.iter().find(|(n, _)| *n == name.name)?;
            if policy.named.is_some() {
                return None; // policies name no other policy (the grammar allows no such thing)
            }
            return self.retry(policy, cx, backoffs);
        }
        let o = cx.o;
        let attempts =
            cx.keep(self.conv(r.attempts.as_ref()?, o, |v| attempts_count(v, "`attempts`")));
        let backoff = match r.backoff.as_ref()? {
            BackoffRef::Inline(b) => self.backoff(b, cx),
            BackoffRef::Named(id) => backoffs
                .iter()
                .find(|(n, _)| *n == id.name)
                .map(|(_, b)| b.clone()),
        };
        let deadline = match &r.deadline {
            None => Some(None),
            Some(v) => cx
                .keep(self.conv(v, o, |v| units::ticks(v, self.clock, "a deadline")))
                .map(Some),
        };
        let unknown = match &r.unknown_attempts {
            None => Some(2),
            Some(v) => cx.keep(self.conv(v, o, |v| attempts_count(v, "`unknown_attempts`"))),
        };
        let honor = r.retry_after.as_ref().is_none_or(|id| id.name != "ignore");
        Some(RetrySpec {
            attempts: attempts?,
            backoff: backoff?,
            deadline: deadline?,
            honor_retry_after: honor,
            unknown_attempts: unknown?,
        })
    }

    fn op_retry(
        &self,
        op: &OpAst,
        entry: usize,
        cx: &mut Cx<'_>,
        backoffs: &[(String, Backoff)],
    ) -> Option<RetrySpec> {
        let base = match &op.policy {
            Some(p) => {
                let (_, policy) = self.policies.iter().find(|(n, _)| *n == p.name)?;
                self.retry(policy, cx, backoffs)
            }
            None => None,
        };
        let Some(v) = &op.attempts else { return base };
        let attempts = cx.keep(self.conv(v, cx.o, |v| attempts_count(v, "`attempts`")))?;
        let base = base.or_else(|| {
            self.nodes[entry]
                .retry
                .as_ref()
                .and_then(|r| self.retry(r, cx, backoffs))
        });
        match base {
            Some(mut r) => {
                r.attempts = attempts;
                Some(r)
            }
            None => {
                cx.errs.push(
                    Diagnostic::new(
                        format!("`attempts` on an operation changes the retry policy of `{}`, which has none", self.nodes[entry].name),
                        v.span,
                    )
                    .label("no policy to change")
                    .help("give the entry service a `retry { ... }`, or name a policy with `policy NAME`"),
                );
                None
            }
        }
    }

    fn composite(&self, r: &ResponseBlockAst, cx: &mut Cx<'_>) -> Option<CompositeSpec> {
        let o = cx.o;
        let mut fields = Vec::new();
        let mut ok = true;
        for f in &r.fields {
            let source = self.nodes.iter().position(|n| n.name == f.source.name);
            let bytes = cx.keep(self.conv(&f.bytes, o, |v| units::bytes(v, "a field's size")));
            match (source, bytes) {
                (Some(source), Some(bytes)) => fields.push(FieldSpec {
                    name: f.name.name.clone(),
                    source,
                    core: f.core,
                    bytes,
                }),
                _ => ok = false,
            }
        }
        let marker = match &r.marker {
            None => Some(0),
            Some(v) => cx.keep(self.conv(v, o, |v| units::bytes(v, "a marker's size"))),
        };
        let policy = match &r.policy {
            None => Some(Degradation::AllOrNothing),
            Some(v) => cx.keep(self.conv(v, o, |v| match &v.kind {
                ValueKind::Word(w) => Degradation::parse(w).ok_or_else(|| {
                    Diagnostic::new(format!("unknown degradation policy `{w}`"), v.span)
                        .label("expected `all_or_nothing`, `skip_optional` or `stale_fallback`")
                        .maybe_help(crate::diagnostic::did_you_mean(w, ["all_or_nothing", "skip_optional", "stale_fallback"]))
                }),
                _ => Err(Diagnostic::new("a degradation policy is a word: `all_or_nothing`, `skip_optional` or `stale_fallback`", v.span)
                    .label("not a policy")),
            })),
        };
        let ledger = match &r.ledger {
            None => Some(None),
            Some(l) => {
                let entries = match &l.entries {
                    None => Some(0),
                    Some(v) => cx.keep(self.conv(v, o, |v| units::count(v, "ledger entries"))),
                };
                let stale = match &l.stale_for {
                    None => None,
                    Some(v) => cx.keep(
                        self.conv(v, o, |v| units::ticks(v, self.clock, "a staleness bound")),
                    ),
                };
                match (entries, stale) {
                    (Some(entries), Some(stale_for)) => {
                        Some(Some(LedgerSpec { entries, stale_for }))
                    }
                    _ => None,
                }
            }
        };
        let (marker, policy, ledger) = (marker?, policy?, ledger?);
        if policy == Degradation::StaleFallback && ledger.is_none() {
            cx.errs.push(
                Diagnostic::new(
                    "`stale_fallback` serves last known values, so it needs a `ledger`",
                    r.span,
                )
                .label("no ledger to fall back on")
                .help("add `ledger { entries 5000  stale_for 60s }` to the response"),
            );
            return None;
        }
        ok.then_some(CompositeSpec {
            fields,
            marker,
            policy,
            ledger,
        })
    }

    fn breaker(&self, b: &BreakerAst, cx: &mut Cx<'_>) -> Option<BreakerSpec> {
        let o = cx.o;
        let threshold = cx.keep(self.conv(b.after.as_ref()?, o, |v| {
            at_least_one(v, "a breaker threshold")
        }));
        let cooldown = cx.keep(self.conv(b.cooldown.as_ref()?, o, |v| {
            units::ticks(v, self.clock, "a cooldown")
        }));
        let probes = match &b.probes {
            None => Some(1),
            Some(v) => cx.keep(self.conv(v, o, |v| at_least_one(v, "`probes`"))),
        };
        Some(BreakerSpec {
            threshold: threshold?,
            cooldown: cooldown?,
            probes: probes?,
            per_path: b.per_path,
        })
    }

    fn step(&self, s: &StepAst, cx: &mut Cx<'_>) -> Option<StepSpec> {
        let o = cx.o;
        let response = self.response(&s.response, cx);
        let times = match &s.times {
            None => Some(None),
            Some(v) => cx
                .keep(self.conv(v, o, |v| units::count(v, "a step's count")))
                .map(Some),
        };
        let until = match &s.until {
            None => Some(None),
            Some(v) => cx
                .keep(self.conv(v, o, |v| units::ticks(v, self.clock, "a step's end")))
                .map(Some),
        };
        Some(StepSpec {
            response: response?,
            times: times?,
            until: until?,
        })
    }

    fn response(&self, r: &ResponseAst, cx: &mut Cx<'_>) -> Option<ResponseSpec> {
        Some(match r {
            ResponseAst::NetworkError => ResponseSpec::NetworkError,
            ResponseAst::Timeout => ResponseSpec::Timeout,
            ResponseAst::BodyError => ResponseSpec::BodyError,
            ResponseAst::Status {
                code,
                retry_after,
                span,
            } => {
                let Some(code) = crate::date::parse_status(code) else {
                    cx.errs.push(
                        Diagnostic::new(format!("`{code}` is not a status code"), *span)
                            .label("not a status"),
                    );
                    return None;
                };
                let retry_after = match retry_after {
                    None => None,
                    Some(RetryAfterAst::Delay(v)) => {
                        Some(RetryAfter::Delay(cx.keep(self.conv(v, cx.o, |v| {
                            units::ticks(v, self.clock, "a Retry-After delay")
                        }))?))
                    }
                    Some(RetryAfterAst::Date(text, dspan)) => {
                        let Some(at) = crate::date::parse_date(text) else {
                            cx.errs.push(
                                Diagnostic::new(
                                    format!("Retry-After `{text}` is not a date squall can read"),
                                    *dspan,
                                )
                                .label("cannot parse"),
                            );
                            return None;
                        };
                        let (Some(epoch), Some(tick_ms)) = (self.epoch, self.clock.tick_millis())
                        else {
                            cx.errs.push(
                                Diagnostic::new("a Retry-After date needs the scenario's `epoch` and a wall clock", *dspan)
                                    .label("a date, but no epoch")
                                    .help("add `epoch \"Wed, 14 Jan 2026 09:00:00 GMT\"` (the time of tick 0) and `clock ms` or `clock s`"),
                            );
                            return None;
                        };
                        let ms = at - epoch;
                        if ms < 0 {
                            cx.errs.push(
                                Diagnostic::new(
                                    "this Retry-After date is before the scenario's epoch",
                                    *dspan,
                                )
                                .label("in the past"),
                            );
                            return None;
                        }
                        Some(RetryAfter::At(ms as u64 / tick_ms))
                    }
                };
                ResponseSpec::Status { code, retry_after }
            }
        })
    }
}

/// Errors collected while resolving one run.
struct Cx<'a> {
    o: &'a Overrides,
    errs: &'a mut Vec<Diagnostic>,
    start: u64,
    ticks: u64,
    warmup: u64,
}

impl Cx<'_> {
    fn keep<T>(&mut self, r: Result<T, Diagnostic>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(d) => {
                self.errs.push(d);
                None
            }
        }
    }
}

fn request_spec(r: &RequestAst) -> RequestSpec {
    RequestSpec {
        method: Method::parse(&r.method).unwrap_or(Method::Get),
        path: r.path.clone(),
        key: r.key,
    }
}

/// A count of tries: a whole number, at least 1, at most a million.
fn attempts_count(v: &Value, what: &str) -> Result<u32, Diagnostic> {
    let n = units::count(v, what)?;
    if n == 0 {
        return Err(Diagnostic::new(
            format!("{what} counts tries including the first, so it is at least 1"),
            v.span,
        )
        .label("0 tries")
        .help("`attempts 1` means no retries"));
    }
    if n > 1_000_000 {
        return Err(Diagnostic::new(
            format!("{what} of {n} is more than squall simulates (1000000)"),
            v.span,
        )
        .label("too many"));
    }
    Ok(n as u32)
}

/// A whole count of at least 1 (a breaker's threshold or probes).
fn at_least_one(v: &Value, what: &str) -> Result<u32, Diagnostic> {
    let n = units::count(v, what)?;
    if n == 0 {
        return Err(Diagnostic::new(format!("{what} must be at least 1"), v.span).label("0"));
    }
    u32::try_from(n).map_err(|_| {
        Diagnostic::new(format!("{what} of {n} is too large"), v.span).label("too large")
    })
}
