//! Looking up declared names (nodes, windows, variants, params, backoffs,
//! rngs), with "did you mean" help when a name is unknown.

use indexmap::IndexMap;

use crate::ast::*;
use crate::diagnostic::{did_you_mean, suggest, Diagnostic};
use crate::span::Span;
use crate::twice::Twice;

use super::Validator;
use crate::decl::VariantDecl;

impl Validator {
    pub(super) fn node(&mut self, names: &[String], id: &Ident) -> Option<usize> {
        let found = names.iter().position(|n| *n == id.name);
        if found.is_none() {
            self.err(
                Diagnostic::new(format!("unknown node `{}`", id.name), id.span)
                    .label("not in any chain")
                    .maybe_help(did_you_mean(&id.name, names.iter().map(String::as_str))),
            );
        }
        found
    }

    pub(super) fn window(&mut self, windows: &[(String, Range)], id: &Ident) -> Option<usize> {
        let found = windows.iter().position(|(n, _)| *n == id.name);
        if found.is_none() {
            self.err(
                Diagnostic::new(format!("unknown window `{}`", id.name), id.span)
                    .label("no window of this name")
                    .maybe_help(did_you_mean(
                        &id.name,
                        windows.iter().map(|(n, _)| n.as_str()),
                    )),
            );
        }
        found
    }

    pub(super) fn variant(&mut self, variants: &[VariantDecl], id: &Ident) -> Option<usize> {
        let found = variants.iter().position(|v| v.name == id.name);
        if found.is_none() {
            self.err(
                Diagnostic::new(format!("unknown variant `{}`", id.name), id.span)
                    .label("no variant of this name")
                    .maybe_help(did_you_mean(
                        &id.name,
                        variants.iter().map(|v| v.name.as_str()),
                    )),
            );
        }
        found
    }

    pub(super) fn param(&mut self, params: &IndexMap<String, Value>, id: &Ident) -> bool {
        if params.contains_key(&id.name) {
            return true;
        }
        self.err(
            Diagnostic::new(format!("unknown param `{}`", id.name), id.span)
                .label("no param of this name")
                .help(
                    did_you_mean(&id.name, params.keys().map(String::as_str))
                        .unwrap_or_else(|| format!("declare it: `param {} = ...`", id.name)),
                ),
        );
        false
    }

    pub(super) fn check_param_refs(&mut self, ast: &ScenarioAst, params: &IndexMap<String, Value>) {
        let mut refs: Vec<(String, Span)> = Vec::new();
        for item in &ast.items {
            item.each_value(&mut |v| {
                if let ValueKind::Param(n) = &v.kind {
                    refs.push((n.clone(), v.span));
                }
            });
        }
        for (name, span) in refs {
            if !params.contains_key(&name) {
                self.err(
                    Diagnostic::new(format!("unknown param `${name}`"), span)
                        .label("no param of this name")
                        .help(
                            suggest(&name, params.keys().map(String::as_str))
                                .map(|s| format!("did you mean `${s}`?"))
                                .unwrap_or_else(|| format!("declare it: `param {name} = ...`")),
                        ),
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
                Diagnostic::new(format!("unknown backoff `{}`", id.name), id.span)
                    .label("no backoff of this name")
                    .maybe_help(did_you_mean(
                        &id.name,
                        backoffs.iter().map(|(n, _)| n.as_str()),
                    ))
                    .maybe_help(if backoffs.is_empty() {
                        Some(format!(
                            "declare it: `backoff {} = full_jitter 200ms x 2 cap 5s`",
                            id.name
                        ))
                    } else {
                        None
                    }),
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
                    Diagnostic::new(format!("unknown rng `{}`", id.name), id.span)
                        .label("no generator of this name")
                        .maybe_help(did_you_mean(
                            &id.name,
                            rngs.iter().map(|r| r.name.name.as_str()),
                        ))
                        .maybe_help(if rngs.is_empty() {
                            Some(format!(
                                "declare it: `rng {} {{ mulberry32 seed 42 }}`",
                                id.name
                            ))
                        } else {
                            None
                        }),
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
