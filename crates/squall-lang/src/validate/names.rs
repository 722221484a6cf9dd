//! Looking up declared names (nodes, windows, variants, params, backoffs,
//! rngs), with "did you mean" help when a name is unknown.

use indexmap::IndexMap;

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::twice::Twice;
use crate::unknown::Unknown;

use super::Validator;
use crate::decl::VariantDecl;

impl Validator {
    /// A fault's `on` targets, each named once: `api` covers every
    /// replica, so `api, api[1]` names `api[1]` twice; `api[0], api[1]`
    /// are two.
    pub(super) fn check_targets(&mut self, fault: &str, ids: &[Target]) {
        for (k, id) in ids.iter().enumerate() {
            let same = |x: &Target| {
                x.node.name == id.node.name
                    && x.to.as_ref().map(|t| &t.name) == id.to.as_ref().map(|t| &t.name)
                    && (x.replica.is_none()
                        || id.replica.is_none()
                        || x.replica.map(|r| r.0) == id.replica.map(|r| r.0))
            };
            if ids[..k].iter().any(same) {
                self.err(
                    Diagnostic::new(
                        format!("fault `{fault}` names `{}` twice in its `on`", id.text()),
                        id.span(),
                    )
                    .label("named again")
                    .help("name each node once: the fault strikes every node it names"),
                );
            }
        }
    }

    pub(super) fn node(&mut self, names: &[String], id: &Ident) -> Option<usize> {
        let found = names.iter().position(|n| *n == id.name);
        if found.is_none() {
            self.err(
                Unknown::new("node", &id.name)
                    .label("not in any chain")
                    .at(id.span, names.iter().map(String::as_str)),
            );
        }
        found
    }

    pub(super) fn window(&mut self, windows: &[(String, Range)], id: &Ident) -> Option<usize> {
        let found = windows.iter().position(|(n, _)| *n == id.name);
        if found.is_none() {
            self.err(
                Unknown::new("window", &id.name)
                    .at(id.span, windows.iter().map(|(n, _)| n.as_str())),
            );
        }
        found
    }

    pub(super) fn variant(&mut self, variants: &[VariantDecl], id: &Ident) -> Option<usize> {
        let found = variants.iter().position(|v| v.name == id.name);
        if found.is_none() {
            self.err(
                Unknown::new("variant", &id.name)
                    .at(id.span, variants.iter().map(|v| v.name.as_str())),
            );
        }
        found
    }

    pub(super) fn param(&mut self, params: &IndexMap<String, Value>, id: &Ident) -> bool {
        if params.contains_key(&id.name) {
            return true;
        }
        self.err(
            Unknown::new("param", &id.name)
                .otherwise(format!("declare it: `param {} = ...`", id.name))
                .at(id.span, params.keys().map(String::as_str)),
        );
        false
    }

    pub(super) fn check_param_refs(&mut self, ast: &ScenarioAst, params: &IndexMap<String, Value>) {
        let mut refs: Vec<(String, Span)> = Vec::new();
        for item in &ast.items {
            item.each_value(&mut |v| {
                match &v.kind {
                    ValueKind::Param(n) => refs.push((n.clone(), v.span)),
                    // `$n/ms`: the name's own span, `$` included.
                    ValueKind::ParamRate(r) => refs.push((
                        r.name.clone(),
                        Span::new(v.span.start, v.span.start + 1 + r.name.len()),
                    )),
                    _ => {}
                }
            });
        }
        for (name, span) in refs {
            if !params.contains_key(&name) {
                self.err(
                    Unknown::param_ref(&name)
                        .otherwise(format!("declare it: `param {name} = ...`"))
                        .at(span, params.keys().map(String::as_str)),
                );
            }
        }
    }

    pub(super) fn backoff_index(
        &mut self,
        backoffs: &[(String, BackoffAst)],
        id: &Ident,
    ) -> Option<usize> {
        let found = backoffs.iter().position(|(n, _)| *n == id.name);
        if found.is_none() {
            self.err(
                Unknown::new("backoff", &id.name)
                    .otherwise_when_none(format!(
                        "declare it: `backoff {} = full_jitter 200ms x 2 cap 5s`",
                        id.name
                    ))
                    .at(id.span, backoffs.iter().map(|(n, _)| n.as_str())),
            );
        }
        found
    }

    /// `Some(None)` when no generator is named, `Some(Some(i))` when found.
    pub(super) fn rng_index(
        &mut self,
        rngs: &[RngAst],
        id: Option<&Ident>,
    ) -> Option<Option<usize>> {
        let Some(id) = id else { return Some(None) };
        match rngs.iter().position(|r| r.name.name == id.name) {
            Some(i) => Some(Some(i)),
            None => {
                self.err(
                    Unknown::new("rng", &id.name)
                        .label("no generator of this name")
                        .otherwise_when_none(format!(
                            "declare it: `rng {} {{ mulberry32 seed 42 }}`",
                            id.name
                        ))
                        .at(id.span, rngs.iter().map(|r| r.name.name.as_str())),
                );
                None
            }
        }
    }

    /// `what NAME is declared twice`, pointing at the second declaration.
    pub(super) fn declared_twice(&mut self, what: &str, id: &Ident) {
        self.err(
            Twice::Declared {
                kind: what,
                name: &id.name,
            }
            .at(id.span),
        );
    }
}
