//! A fault's targets when they are links (`on api -> db`): both ends must
//! be nodes, a fault strikes nodes or links but not both, and a link takes
//! only the effects that make sense between two nodes. A link's steady
//! latency (`link api -> db { ... }`): both ends nodes, one declaration per
//! link, each leg given once. Whether `api` calls `db`, and whether a lost
//! try can end, is checked with the resolved model (`resolve/links.rs`).

use crate::ast::{FaultAst, FaultProp, Item, ScenarioAst, Target};
use crate::decl::{LinkDecl, Scenario};
use crate::diagnostic::Diagnostic;
use crate::twice::Twice;

use super::Validator;

/// What a link takes, for the help of a refusal.
pub(crate) const LINK_EFFECTS: &str = "a link takes `latency + D [jitter J]`, `answer latency + D \
     [jitter J]`, `errors P% as CODE`, `fail RESPONSE` and `partition`";

/// A fault's resolved targets: for each, the node it strikes (a link's
/// callee) and, for a link, its caller.
pub(super) type Targets = (Vec<usize>, Vec<Option<usize>>);

impl Validator {
    /// The file's `link` declarations, their ends bound, into `s.links`.
    pub(super) fn link_decls(&mut self, ast: &ScenarioAst, s: &mut Scenario) {
        let names: Vec<String> = s.nodes.iter().map(|n| n.name.clone()).collect();
        for item in &ast.items {
            let Item::Link(decl) = item else { continue };
            let caller = self.node(&names, &decl.from);
            let callee = self.node(&names, &decl.to);
            let (Some(caller), Some(callee)) = (caller, callee) else {
                continue;
            };
            let span = decl.ends_span();
            if s.links
                .iter()
                .any(|l| l.caller == caller && l.callee == callee)
            {
                let name = format!("{} -> {}", decl.from.name, decl.to.name);
                self.err(
                    Twice::Declared {
                        kind: "link",
                        name: &name,
                    }
                    .at(span)
                    .help("give both legs in one `link` block: `latency ...  answer latency ...`"),
                );
                continue;
            }
            let mut link = LinkDecl {
                caller,
                callee,
                span,
                latency: None,
                answer: None,
            };
            for t in &decl.props {
                let leg = match t.key.name.as_str() {
                    "latency" => &mut link.latency,
                    _ => &mut link.answer,
                };
                if leg.is_some() {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "link `{} -> {}` gives `{}` twice",
                                decl.from.name, decl.to.name, t.key.name
                            ),
                            t.span,
                        )
                        .label("given again")
                        .help("a leg has one latency distribution; faults on the link add to it"),
                    );
                }
                *leg = Some(t.clone());
            }
            if decl.props.is_empty() {
                self.err(
                    Diagnostic::new(
                        format!(
                            "link `{} -> {}` gives no latency",
                            decl.from.name, decl.to.name
                        ),
                        span,
                    )
                    .label("a link that takes no time")
                    .help("give it `latency 2ms`, `answer latency 2ms` or both (any distribution a service's `latency` takes)"),
                );
            }
            s.links.push(link);
        }
    }

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
