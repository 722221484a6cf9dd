//! Pass 4: the report's measures, tables, lines, diagnoses, `waits`, `herd`,
//! `operations`, `isolation` and `trace` items, then the `expect` lines.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::needs::{Need, Needs as Lacks};
use crate::template::{parse_template, Piece};
use crate::units;

use super::{Context, Names, Needs, Validator};
use crate::decl::Scenario;
use crate::unknown::Unknown;

impl Validator {
    /// Resolves the report items; returns the measures, which `expect` lines
    /// may still use, and the report without them.
    pub(super) fn report(
        &mut self,
        ast: &ScenarioAst,
        s: &Scenario,
    ) -> (Vec<(String, RExpr, Needs)>, ReportSpec) {
        let node_names: Vec<String> = s.nodes.iter().map(|n| n.name.clone()).collect();
        let Scenario {
            variants,
            windows,
            nodes,
            faults,
            params,
            sweeps,
            sources,
            backoffs,
            rngs,
            ..
        } = s;
        let clock = s.clock;
        let mut measures: Vec<(String, RExpr, Needs)> = Vec::new();
        let mut report = ReportSpec::default();
        for item in &ast.items {
            if let Item::Report(items) = item {
                for ri in items {
                    let names = Names {
                        variants,
                        windows,
                        nodes,
                        faults,
                        measures: &measures,
                        params,
                        sweeps,
                        senders: &s.senders,
                        clock,
                    };
                    match ri {
                        ReportItem::Replications(v) => self.replications(v, &mut report),
                        ReportItem::Measure(id, expr) => {
                            if measures.iter().any(|(n, _, _)| *n == id.name) {
                                self.declared_twice("measure", id);
                                continue;
                            }
                            if Metric::parse(&id.name).is_some() {
                                self.err(
                                    Diagnostic::new(
                                        format!("`{}` is a built-in metric", id.name),
                                        id.span,
                                    )
                                    .label("taken")
                                    .help("give the measure another name"),
                                );
                                continue;
                            }
                            if let Some((r, needs)) = self.expr(&names, expr) {
                                measures.push((id.name.clone(), r, needs));
                            }
                        }
                        ReportItem::Table(t) => {
                            if let Some(spec) = self.table(&names, t) {
                                report.items.push(ReportItemSpec::Table(spec));
                            }
                        }
                        ReportItem::Line(variant, raw, span) => {
                            let line_variant = match variant {
                                Some(id) => self.variant(variants, id).map(Some),
                                None => Some(None),
                            };
                            let ctx = Context {
                                variant: variants.len() == 1 || variant.is_some(),
                                window: false,
                                node: false,
                                what: "a line",
                            };
                            match parse_template(raw, *span) {
                                Err(d) => self.err(d),
                                Ok(pieces) => {
                                    let mut parts = Vec::new();
                                    for p in pieces {
                                        match p {
                                            Piece::Text(t) => parts.push(LinePart::Text(t)),
                                            Piece::Hole(e, digits) => {
                                                if let Some((r, needs)) = self.expr(&names, &e) {
                                                    self.check_context(needs, ctx, e.span);
                                                    parts.push(LinePart::Value(
                                                        r,
                                                        digits.unwrap_or(2),
                                                    ));
                                                }
                                            }
                                        }
                                    }
                                    if let Some(v) = line_variant {
                                        report.items.push(ReportItemSpec::Line(parts, v));
                                    }
                                }
                            }
                        }
                        ReportItem::Diagnose(d) => {
                            let node = self.node(&node_names, &d.node);
                            let window = self.window(windows, &d.window);
                            let baseline = self.window(windows, &d.baseline);
                            let against = match &d.against {
                                None => Some(None),
                                Some(id) => self.variant(variants, id).map(Some),
                            };
                            if let (Some(node), Some(window), Some(baseline), Some(against)) =
                                (node, window, baseline, against)
                            {
                                report.items.push(ReportItemSpec::Diagnose(DiagnoseSpec {
                                    node,
                                    window,
                                    baseline,
                                    against,
                                }));
                            }
                        }
                        ReportItem::Waits(w) => {
                            let mut ids = Vec::new();
                            for p in &w.policies {
                                ids.extend(self.backoff_index(backoffs, p));
                            }
                            if w.policies.is_empty() {
                                self.err(
                                    Lacks::new("a `waits` table", Need::Key("policies [..]"))
                                        .help("name backoff policies declared with `backoff NAME = ...`")
                                        .at(w.span),
                                );
                            }
                            let attempts = match &w.attempts {
                                None => Some(6),
                                Some(v) => self.literal_count_upto(
                                    v,
                                    "`attempts`",
                                    (1, MAX_WAITS_ATTEMPTS),
                                    "a `waits` table prints a row per retry",
                                ),
                            };
                            let rng = self.rng_index(rngs, w.rng.as_ref());
                            if let (Some(attempts), Some(rng)) = (attempts, rng) {
                                report.items.push(ReportItemSpec::Waits(WaitsSpec {
                                    title: w.title.clone(),
                                    policies: ids,
                                    attempts: attempts as u32,
                                    rng,
                                }));
                            }
                        }
                        ReportItem::Herd(h) => {
                            let policy = match &h.policy {
                                Some(p) => self.backoff_index(backoffs, p),
                                None => {
                                    self.err(
                                            Lacks::new("a `herd`", Need::AKey("policy"))
                                                .help("e.g. `policy full` naming `backoff full = full_jitter 200ms x 2 cap 5s`")
                                                .at(h.span),
                                        );
                                    None
                                }
                            };
                            let clients = match &h.clients {
                                Some(v) => self.literal_count_upto(
                                    v,
                                    "`clients`",
                                    (1, MAX_HERD_CLIENTS),
                                    "each client draws its wake-up, and the histogram prints a `#` per client",
                                ),
                                None => {
                                    self.err(
                                        Lacks::new("a `herd`", Need::Key("clients N"))
                                            .label("how many clients?")
                                            .at(h.span),
                                    );
                                    None
                                }
                            };
                            let attempt = match &h.attempt {
                                Some(v) => self.literal_count_upto(
                                    v,
                                    "`attempt`",
                                    (1, MAX_HERD_ATTEMPT),
                                    "each client draws every wait up to this retry",
                                ),
                                None => Some(1),
                            };
                            let bucket = match &h.bucket {
                                Some(v) => match units::ticks(v, clock, "a bucket") {
                                    Ok(0) => {
                                        self.err(
                                            Diagnostic::new(
                                                "a bucket must be at least one tick wide",
                                                v.span,
                                            )
                                            .label("zero width"),
                                        );
                                        None
                                    }
                                    Ok(b) => Some(b),
                                    Err(d) => {
                                        self.err(d);
                                        None
                                    }
                                },
                                None => Some(1),
                            };
                            let rng = self.rng_index(rngs, h.rng.as_ref());
                            if let (
                                Some(policy),
                                Some(clients),
                                Some(attempt),
                                Some(bucket),
                                Some(rng),
                            ) = (policy, clients, attempt, bucket, rng)
                            {
                                report.items.push(ReportItemSpec::Herd(HerdSpec {
                                    title: h.title.clone(),
                                    policy,
                                    clients: clients as u32,
                                    attempt: attempt as u32,
                                    bucket,
                                    rng,
                                }));
                            }
                        }
                        ReportItem::Operations(title, id) => match sources
                            .iter()
                            .position(|s| s.name == id.name)
                        {
                            Some(i) if !sources[i].ops.is_empty() => {
                                report.items.push(ReportItemSpec::Operations {
                                    title: title.clone(),
                                    source: i,
                                })
                            }
                            Some(_) => self.err(
                                Diagnostic::new(
                                    format!("source `{}` has no `sequential` operations", id.name),
                                    id.span,
                                )
                                .label("nothing to list"),
                            ),
                            None => self.err(
                                Unknown::new("source", &id.name)
                                    .at(id.span, sources.iter().map(|s| s.name.as_str())),
                            ),
                        },
                        ReportItem::Isolation(iso) => {
                            let node = self.node(&node_names, &iso.node);
                            if let Some(n) = node {
                                if nodes[n].response.is_none() {
                                    self.err(
                                        Diagnostic::new(
                                            format!(
                                                "`{}` has no `response` to isolate",
                                                iso.node.name
                                            ),
                                            iso.node.span,
                                        )
                                        .label("no `response` on this node"),
                                    );
                                }
                            }
                            let vs: Vec<usize> = iso
                                .variants
                                .iter()
                                .filter_map(|v| self.variant(variants, v))
                                .collect();
                            let window = match &iso.window {
                                Some(w) => self.window(windows, w),
                                None => {
                                    self.err(
                                        Lacks::new("an `isolation` table", Need::AKey("window"))
                                            .label("which window?")
                                            .help("e.g. `window measured`")
                                            .at(iso.span),
                                    );
                                    None
                                }
                            };
                            if iso.variants.is_empty() {
                                self.err(
                                    Lacks::new("an `isolation` table", Need::Key("variants [..]"))
                                        .label("no rows")
                                        .at(iso.span),
                                );
                            }
                            if let (Some(node), Some(window)) = (node, window) {
                                report.items.push(ReportItemSpec::Isolation(IsolationSpec {
                                    title: iso.title.clone(),
                                    node,
                                    variants: vs,
                                    window,
                                }));
                            }
                        }
                        ReportItem::Chart(c) => {
                            if let Some(spec) = self.chart(&node_names, s, c) {
                                report.items.push(ReportItemSpec::Chart(spec));
                            }
                        }
                        ReportItem::Trace(title, id) => {
                            if let Some(i) = self.node(&node_names, id) {
                                if nodes[i].breaker.is_none() && nodes[i].library_breaker.is_none()
                                {
                                    self.err(
                                        Diagnostic::new(
                                            format!("`{}` has no breaker to trace", id.name),
                                            id.span,
                                        )
                                        .label("no `breaker` on this node"),
                                    );
                                } else {
                                    report.items.push(ReportItemSpec::Trace {
                                        title: title.clone(),
                                        node: i,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        (measures, report)
    }

    /// `replications N`: at least 2 (one replication has no interval), at
    /// most [`MAX_REPLICATIONS`], once per report.
    fn replications(&mut self, v: &Value, report: &mut ReportSpec) {
        if report.replications.is_some() {
            self.err(
                crate::twice::Twice::Setting {
                    keyword: "replications",
                }
                .at(v.span),
            );
            return;
        }
        let Some(n) = self.literal_count(v, "`replications`", 2) else {
            return;
        };
        match u32::try_from(n) {
            Ok(n) if n <= MAX_REPLICATIONS => report.replications = Some(n),
            _ => self.err(
                Diagnostic::new(
                    format!("`replications` must be at most {MAX_REPLICATIONS}, found {n}"),
                    v.span,
                )
                .label("too many")
                .help("each replication repeats every run; 10 to 30 give a usable interval"),
            ),
        }
    }

    /// A count in `min..=max` written as a number; `why` says why it has
    /// that bound.
    fn literal_count_upto(
        &mut self,
        v: &Value,
        what: &str,
        (min, max): (u64, u64),
        why: &str,
    ) -> Option<u64> {
        let n = self.literal_count(v, what, min)?;
        if n > max {
            self.err(
                Diagnostic::new(format!("{what} must be at most {max}, found {n}"), v.span)
                    .label("too large")
                    .help(why.to_string()),
            );
            return None;
        }
        Some(n)
    }

    pub(super) fn literal_count(&mut self, v: &Value, what: &str, min: u64) -> Option<u64> {
        match units::count(v, what) {
            Ok(n) if n >= min => Some(n),
            Ok(n) => {
                self.err(
                    Diagnostic::new(format!("{what} must be at least {min}, found {n}"), v.span)
                        .label("too small"),
                );
                None
            }
            Err(mut d) => {
                if matches!(v.kind, ValueKind::Param(_)) {
                    d = Diagnostic::new(
                        format!("{what} in a report item takes a number, not a param"),
                        v.span,
                    )
                    .label("write the number here");
                }
                self.err(d);
                None
            }
        }
    }
}
