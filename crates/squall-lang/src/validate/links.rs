//! A fault's targets when they are links (`on api -> db`): both ends must
//! be nodes, a fault strikes nodes or links but not both, and a link takes
//! only the effects that make sense between two nodes. Whether `api`
//! calls `db`, and whether a lost try can end, is checked with the
//! resolved model (`resolve/links.rs`).

use crate::ast::{FaultAst, FaultProp, Target};
use crate::diagnostic::Diagnostic;

use super::Validator;

/// What a link takes, for the help of a refusal.
pub(crate) const LINK_EFFECTS: &str = "a link takes `latency + D`, `answer latency + D`, \
     `errors P% as CODE`, `fail RESPONSE` and `partition`";

/// A fault's resolved targets: for each, the node it strikes (a link's
/// callee) and, for a link, its caller.
pub(super) type Targets = (Vec<usize>, Vec<Option<usize>>);

impl Validator {
    /// The nodes `ids` name (a link's two ends each looked up, with
    /// did-you-mean), or `None` when one is unknown; a fault that names
    /// nodes and links at once is refused.
    pub(super) fn fault_targets(
        &mut self,
        fault: &str,
        ids: &[Target],
        names: &[String],
    ) -> Option<Targets> {
        let links = ids.iter().filter(|t| t.to.is_some()).count();
        if links > 0 && links < ids.len() {
            if let Some(node) = ids.iter().find(|t| t.to.is_none()) {
                self.err(
                    Diagnostic::new(
                        format!("fault `{fault}` strikes nodes and links at once"),
                        node.span(),
                    )
                    .label("a node, among links")
                    .help(
                        "a node fault acts at the callee, a link fault between two nodes: \
                         declare them as two faults",
                    ),
                );
            }
        }
        let mut nodes = Vec::new();
        let mut callers = Vec::new();
        let mut ok = true;
        for t in ids {
            let node = self.node(names, &t.node);
            match &t.to {
                None => {
                    ok &= node.is_some();
                    nodes.extend(node);
                    callers.push(None);
                }
                Some(to) => {
                    let callee = self.node(names, to);
                    ok &= node.is_some() && callee.is_some();
                    nodes.extend(callee);
                    callers.push(node);
                }
            }
        }
        ok.then_some((nodes, callers))
    }

    /// The effects of fault `decl`: on links, those a link cannot take
    /// are refused at their span; on nodes, `partition` is.
    pub(super) fn check_link_effects(&mut self, decl: &FaultAst) {
        let fault = &decl.name.name;
        let links = decl.props.iter().any(|p| match p {
            FaultProp::On(ids) => ids.iter().any(|t| t.to.is_some()),
            _ => false,
        });
        for p in &decl.props {
            let (word, span) = match p {
                FaultProp::Capacity(v) => ("capacity", v.span),
                FaultProp::Timed(t) if t.key.name == "workers" => ("workers", t.span),
                FaultProp::Timed(t) if t.key.name == "latency" && t.has("x") => {
                    ("latency x", t.span)
                }
                FaultProp::Timed(t) if t.key.name == "partition" && !links => {
                    self.err(
                        Diagnostic::new(
                            format!("`partition` cuts a link, and fault `{fault}` strikes nodes"),
                            t.span,
                        )
                        .label("not on a link")
                        .help(
                            "name the link it cuts, e.g. `on api -> db`; \
                             to make a node answer nothing, write `fail timeout`",
                        ),
                    );
                    continue;
                }
                _ => continue,
            };
            if links {
                self.err(
                    Diagnostic::new(
                        format!("`{word}` acts at a node, and fault `{fault}` strikes links"),
                        span,
                    )
                    .label("not on a link")
                    .help(format!(
                        "{LINK_EFFECTS}; for `{word}`, declare a fault `on` the callee"
                    )),
                );
            }
        }
    }
}
