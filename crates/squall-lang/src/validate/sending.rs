//! `provider` and `sender` blocks: names bound (each declared once, a
//! sender's `to` naming a provider, a variant's change naming a block).
//! Their settings are checked when every run is resolved
//! (`resolve/sending.rs`), which is where their values are read.

use crate::ast::{Item, ScenarioAst, SendBlockAst};
use crate::decl::Scenario;

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
    }
}
