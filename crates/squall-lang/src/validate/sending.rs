//! `provider` and `sender` blocks: names bound (each declared once, a
//! sender's `to` naming a provider, a variant's change naming a block).
//! Their settings are checked when every run is resolved
//! (`resolve/sending.rs`), which is where their values are read.

use crate::ast::{Item, ScenarioAst, SendBlockAst};
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
}
