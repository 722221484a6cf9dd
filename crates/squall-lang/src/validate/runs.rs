//! Pass 3: variants and sweeps, and the names that must not collide across
//! kinds because paths use them.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::needs::{Need, Needs};
use crate::span::Span;
use crate::twice::Twice;

use super::Validator;
use crate::decl::{
    seed_value, Overrides, Scenario, Setting, SweepDecl, VariantDecl, MAX_SWEEP_POINTS, SEED_AXIS,
};
use crate::unknown::Unknown;

impl Validator {
    /// Reads the variants into `s` (one implicit `base` variant when the file
    /// declares none) and returns the span of each declared variant's name.
    pub(super) fn variants(&mut self, ast: &ScenarioAst, s: &mut Scenario) -> Vec<Span> {
        let (params, faults) = (&s.params, &s.faults);
        let mut variants: Vec<VariantDecl> = Vec::new();
        let mut variant_spans: Vec<Span> = Vec::new();
        for item in &ast.items {
            if let Item::Variant(decl) = item {
                if variants.iter().any(|v| v.name == decl.name.name) {
                    self.declared_twice("variant", &decl.name);
                    continue;
                }
                let mut o = Overrides::default();
                for vi in &decl.items {
                    match vi {
                        VariantItem::Send(b) => o.sending.push(b.clone()),
                        VariantItem::Set(name, value) => {
                            if self.param(params, name) {
                                o.sets.push(Setting {
                                    name: name.name.clone(),
                                    value: value.clone(),
                                    origin: None,
                                });
                            }
                        }
                        VariantItem::Without(ids) => {
                            for id in ids {
                                match faults.iter().position(|f| f.name == id.name) {
                                    Some(i) => o.without.push(i),
                                    None => self.err(
                                        Unknown::new("fault", &id.name)
                                            .at(id.span, faults.iter().map(|f| f.name.as_str())),
                                    ),
                                }
                            }
                        }
                        VariantItem::Service(ids, changes) => {
                            self.service_change(s, ids, changes, &mut o);
                        }
                        VariantItem::Source(id, props) => self.source_change(s, id, props, &mut o),
                    }
                }
                variants.push(VariantDecl {
                    name: decl.name.name.clone(),
                    label: decl.label.clone().unwrap_or_else(|| decl.name.name.clone()),
                    overrides: o,
                });
                variant_spans.push(decl.name.span);
            }
        }
        let implicit_variant = variants.is_empty();
        if implicit_variant {
            variants.push(VariantDecl {
                name: "base".into(),
                label: "base".into(),
                overrides: Overrides::default(),
            });
        }
        s.variants = variants;
        s.implicit_variant = implicit_variant;
        variant_spans
    }

    /// Reads the sweeps into `s`.
    pub(super) fn sweeps(&mut self, ast: &ScenarioAst, s: &mut Scenario) {
        let (params, variants) = (&s.params, &s.variants);
        let mut sweeps: Vec<SweepDecl> = Vec::new();
        for item in &ast.items {
            if let Item::Sweep(decl) = item {
                if sweeps.iter().any(|s| s.name == decl.name.name) {
                    self.declared_twice("sweep", &decl.name);
                    continue;
                }
                let base = match &decl.base {
                    None => 0,
                    Some(id) => match variants.iter().position(|v| v.name == id.name) {
                        Some(i) => i,
                        None => {
                            self.err(
                                Unknown::new("variant", &id.name)
                                    .at(id.span, variants.iter().map(|v| v.name.as_str())),
                            );
                            0
                        }
                    },
                };
                if decl.axes.is_empty() {
                    let who = format!("sweep `{}`", decl.name.name);
                    let axes = Need::AtLeastOne {
                        one: "axis",
                        many: "axes",
                    };
                    self.err(
                        Needs::new(&who, axes)
                            .help("add e.g. `attempts in [3, 2, 1]`")
                            .at(decl.name.span),
                    );
                }
                let mut axes = Vec::new();
                for (id, values) in &decl.axes {
                    let is_seed = id.name == SEED_AXIS;
                    if is_seed {
                        for v in values.iter().filter(|v| seed_value(v).is_none()) {
                            self.err(
                                Diagnostic::new(
                                    "a swept seed must be a whole number from 0 to 10^15",
                                    v.span,
                                )
                                .label("not a seed"),
                            );
                        }
                    }
                    if is_seed || self.param(params, id) {
                        if axes
                            .iter()
                            .any(|(n, _): &(String, Vec<Value>)| *n == id.name)
                        {
                            self.err(Twice::SweepAxis { param: &id.name }.at(id.span));
                        }
                        axes.push((id.name.clone(), values.clone()));
                    }
                }
                let sweep = SweepDecl {
                    name: decl.name.name.clone(),
                    label: decl.label.clone().unwrap_or_else(|| decl.name.name.clone()),
                    base,
                    axes,
                    from_cli: false,
                    flag: None,
                };
                if sweep.len() > MAX_SWEEP_POINTS {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "sweep `{}` has {} points, more than the {MAX_SWEEP_POINTS} squall runs",
                                sweep.name,
                                sweep.len()
                            ),
                            decl.name.span,
                        )
                        .label("too many points")
                        .help("the points are the product of the axes' lengths; sweep fewer values"),
                    );
                }
                sweeps.push(sweep);
            }
        }
        s.sweeps = sweeps;
    }

    /// Names used in paths must not collide across kinds.
    pub(super) fn check_name_collisions(
        &mut self,
        ast: &ScenarioAst,
        s: &Scenario,
        variant_spans: &[Span],
    ) {
        let (variants, windows, nodes) = (&s.variants, &s.windows, &s.nodes);
        let implicit_variant = s.implicit_variant;
        for (i, v) in variants.iter().enumerate() {
            if implicit_variant {
                break;
            }
            let span = variant_spans[i];
            if windows.iter().any(|(w, _)| *w == v.name) {
                self.err(
                    Diagnostic::new(
                        format!("`{}` names both a variant and a window", v.name),
                        span,
                    )
                    .label("also a window")
                    .help("paths such as `storm.during.db.calls` need distinct names"),
                );
            }
            if nodes.iter().any(|n| n.name == v.name) {
                self.err(
                    Diagnostic::new(
                        format!("`{}` names both a variant and a node", v.name),
                        span,
                    )
                    .label("also a node")
                    .help("paths such as `storm.during.db.calls` need distinct names"),
                );
            }
        }
        for item in &ast.items {
            if let Item::Window(id, _) = item {
                if nodes.iter().any(|n| n.name == id.name) {
                    self.err(
                        Diagnostic::new(
                            format!("`{}` names both a window and a node", id.name),
                            id.span,
                        )
                        .label("also a node")
                        .help("paths such as `storm.during.db.calls` need distinct names"),
                    );
                }
            }
        }
    }
}
