//! `provider` and `sender` blocks: names bound (each declared once, a
//! sender's `to` naming a provider, a variant's change naming a block).
//! Their settings are checked when every run is resolved
//! (`resolve/sending.rs`), which is where their values are read. A source
//! that enters a sender feeds it records ([`Validator::check_feed`]).

use crate::ast::{Ident, Item, ScenarioAst, SendBlockAst, SourceAst, SourceProp};
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;

use super::Validator;

impl Validator {
    pub(super) fn sending(&mut self, ast: &ScenarioAst, s: &mut Scenario) {
        for item in &ast.items {
            let (list, b): (&mut Vec<SendBlockAst>, &SendBlockAst) = match item {
                Item::Provider(b) => (&mut s.providers, b),
                Item::Sender(b) => (&mut s.senders, b),
                _ => continue,
            };
            if list.iter().any(|d| d.name.name == b.name.name) {
                self.declared_twice(b.kind.keyword(), &b.name);
                continue;
            }
            list.push(b.clone());
        }
        // A sender's name starts paths (`fixed.outbox.delivered`): it must
        // not also name a variant, a window or a node.
        for b in &s.senders {
            let n = b.name.name.as_str();
            let other = if s.variants.iter().any(|v| v.name == n) {
                Some("a variant")
            } else if s.windows.iter().any(|(w, _)| w == n) {
                Some("a window")
            } else if s.nodes.iter().any(|x| x.name == n) {
                Some("a node")
            } else {
                None
            };
            if let Some(other) = other {
                self.err(
                    Diagnostic::new(format!("sender `{n}` has the name of {other}"), b.name.span)
                        .label("the name is taken")
                        .help("paths such as `fixed.outbox.delivered` need it to be unique; rename one"),
                );
            }
        }
    }

    /// A source that feeds sender `sender` sends records, not requests:
    /// what only a request or a client has (`request`, `sequential`,
    /// `deadline`, `clients`, `think`) is refused where it is written.
    pub(super) fn check_feed(&mut self, decl: &SourceAst, sender: &Ident) {
        for p in &decl.props {
            let (what, span) = match p {
                SourceProp::Request(r) => ("request", r.span),
                SourceProp::Sequential(ops) => match ops.first() {
                    Some(op) => ("sequential", op.request.span),
                    None => continue,
                },
                SourceProp::Timed(t) => (t.key.name.as_str(), t.span),
                _ => continue,
            };
            self.err(
                Diagnostic::new(
                    format!(
                        "source `{}` feeds sender `{}`: its records have no `{what}`",
                        decl.name.name, sender.name
                    ),
                    span,
                )
                .label("not for a sender's records")
                .help("a source that feeds a sender gives it records at its rate (or `at` times); what happens to them is the sender's: its `rate`, `attempts`, `max_age`"),
            );
        }
    }
}

/// The names of the file's `sender` blocks, in order: a source's `enters`
/// may name one.
pub(super) fn sender_names(ast: &ScenarioAst) -> Vec<&str> {
    ast.items
        .iter()
        .filter_map(|i| match i {
            Item::Sender(b) => Some(b.name.name.as_str()),
            _ => None,
        })
        .collect()
}
