//! `provider` and `sender` blocks (and a variant's changes to them): one
//! setting per line, a setting's nested block (`aimd { ... }`) on one line
//! when it fits.

use super::layout::{push_children, span_at, Inline, Node, Printer};
use super::values::{number_text, value_text};
use crate::ast::{CodeLit, SendBlockAst, SendPart, SendSetting};

fn code_text(c: &CodeLit) -> String {
    if c.hex {
        format!("0x{:02x}", c.code)
    } else {
        c.code.to_string()
    }
}

/// A part in canonical spelling (a nested block is printed by the caller).
fn part_text(p: &SendPart) -> Option<String> {
    Some(match p {
        SendPart::Word(w) => w.name.clone(),
        SendPart::Value(v) => value_text(v),
        SendPart::Percent(n, _) => format!("{}%", number_text(*n)),
        SendPart::Hex(c, _) => format!("0x{c:02x}"),
        SendPart::Codes(items, _) => {
            let list: Vec<String> = items
                .iter()
                .map(|i| match &i.to {
                    Some(to) => format!("{}..{}", code_text(&i.from), code_text(to)),
                    None => code_text(&i.from),
                })
                .collect();
            format!("[{}]", list.join(", "))
        }
        SendPart::Block(..) => return None,
    })
}

impl Printer<'_> {
    /// A `provider`/`sender` declaration (`inline`: `Never`) or a variant's
    /// change to one (`IfFits`).
    pub(super) fn send_block(&mut self, b: &SendBlockAst, inline: Inline) -> Node {
        let mut head = format!("{} {}", b.kind.keyword(), b.name.name);
        if let Some(to) = &b.to {
            head.push_str(&format!(" to {}", to.name));
        }
        let mut node = self.block(head, span_at(b.name.span), inline);
        let children = b.settings.iter().map(|s| self.send_setting(s)).collect();
        push_children(&mut node, children);
        node
    }

    fn send_setting(&mut self, s: &SendSetting) -> Node {
        let mut head = s.key.name.clone();
        for p in &s.parts {
            if let Some(t) = part_text(p) {
                head.push(' ');
                head.push_str(&t);
            }
        }
        match s.parts.last() {
            Some(SendPart::Block(inner, _)) => {
                let mut node = self.block(head, span_at(s.key.span), Inline::IfFits);
                let children = inner.iter().map(|i| self.send_setting(i)).collect();
                push_children(&mut node, children);
                node
            }
            _ => Self::leaf(head, span_at(s.span)),
        }
    }
}
