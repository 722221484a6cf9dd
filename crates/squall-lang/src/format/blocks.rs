//! The blocks inside items: a service's properties, a source's, a retry
//! policy's, rates and sequential operations.

use super::layout::{push_children, span_at, Inline, Node, Printer};
use super::values::*;
use crate::ast::*;

impl Printer<'_> {
    /// `budget KIND { ... }` or `breaker KIND { ... }`; without settings,
    /// just the keyword and the kind.
    fn kind_block(&mut self, keyword: &str, b: &KindBlockAst) -> Node {
        let head = format!("{keyword} {}", b.kind.name);
        if b.fields.is_empty() {
            return Self::leaf(head, span_at(b.span));
        }
        let mut node = self.block(head, span_at(b.span), Inline::IfFits);
        let children = b
            .fields
            .iter()
            .map(|(n, v)| Self::leaf(format!("{} {}", n.name, value_text(v)), span_at(n.span)))
            .collect();
        push_children(&mut node, children);
        node
    }

    /// `discipline WORD`, or with its settings `discipline WORD { ... }`
    /// laid out as a block named by its kind.
    fn discipline(&mut self, t: &Timed) -> Node {
        let (Some(TimedPart::Word(word)), true) = (t.parts.first(), t.parts.len() > 1) else {
            return Self::leaf(timed_text(t), span_at(t.span));
        };
        let mut node = self.block(
            format!("discipline {}", word.name),
            span_at(t.span),
            Inline::IfFits,
        );
        let mut children = Vec::new();
        for pair in t.parts[1..].chunks(2) {
            if let [TimedPart::Word(n), TimedPart::Value(v)] = pair {
                children.push(Self::leaf(
                    format!("{} {}", n.name, value_text(v)),
                    span_at(n.span),
                ));
            }
        }
        push_children(&mut node, children);
        node
    }

    pub(super) fn service_prop(&mut self, p: &ServiceProp) -> Node {
        match p {
            ServiceProp::Timed(t) if t.key.name == "discipline" => self.discipline(t),
            ServiceProp::Timed(t) => Self::leaf(timed_text(t), span_at(t.span)),
            ServiceProp::Capacity(v) => {
                Self::leaf(format!("capacity {}", value_text(v)), span_at(v.span))
            }
            ServiceProp::Retry(r) => {
                if let Some(name) = &r.named {
                    return Self::leaf(format!("retry {}", name.name), span_at(r.span));
                }
                let mut node = self.block("retry".to_string(), span_at(r.span), Inline::IfFits);
                let children = retry_children(self, r);
                push_children(&mut node, children);
                node
            }
            ServiceProp::Breaker(b) => {
                let BreakerAst {
                    after,
                    cooldown,
                    probes,
                    per_path,
                    span,
                } = b;
                let mut node = self.block("breaker".to_string(), span_at(*span), Inline::IfFits);
                let mut children = Vec::new();
                if let Some(a) = after {
                    children.push(Self::leaf(
                        format!("after {} failures", value_text(a)),
                        span_at(a.span),
                    ));
                }
                if let Some(c) = cooldown {
                    children.push(Self::leaf(
                        format!("cooldown {}", value_text(c)),
                        span_at(c.span),
                    ));
                }
                if let Some(p) = probes {
                    children.push(Self::leaf(
                        format!("probes {}", value_text(p)),
                        span_at(p.span),
                    ));
                }
                if *per_path {
                    children.push(Self::leaf("per path".to_string(), None));
                }
                push_children(&mut node, children);
                node
            }
            ServiceProp::Budget(b) => self.kind_block("budget", b),
            ServiceProp::Hedge(b) => self.kind_block("hedge", b),
            ServiceProp::Limiter(b) => self.kind_block("limiter", b),
            ServiceProp::Throttle(b) => self.kind_block("throttle", b),
            ServiceProp::LibraryBreaker(b) => self.kind_block("breaker", b),
            ServiceProp::Response(r) => {
                let ResponseBlockAst {
                    fields,
                    marker,
                    policy,
                    ledger,
                    span,
                } = r;
                let mut node = self.block("response".to_string(), span_at(*span), Inline::Never);
                let mut children = Vec::new();
                for f in fields {
                    let FieldAst {
                        name,
                        source,
                        core,
                        bytes,
                        timeout,
                    } = f;
                    let wait = timeout
                        .as_ref()
                        .map_or(String::new(), |t| format!(" timeout {}", value_text(t)));
                    let end = timeout.as_ref().map_or(bytes.span.end, |t| t.span.end);
                    children.push(Self::leaf(
                        format!(
                            "field {} from {} {} {}{wait}",
                            name.name,
                            source.name,
                            if *core { "core" } else { "optional" },
                            value_text(bytes)
                        ),
                        Some((name.span.start, end)),
                    ));
                }
                if let Some(m) = marker {
                    children.push(Self::leaf(
                        format!("marker {}", value_text(m)),
                        span_at(m.span),
                    ));
                }
                if let Some(p) = policy {
                    children.push(Self::leaf(
                        format!("policy {}", value_text(p)),
                        span_at(p.span),
                    ));
                }
                if let Some(l) = ledger {
                    let LedgerAst {
                        entries,
                        stale_for,
                        span,
                    } = l;
                    let mut ln = self.block("ledger".to_string(), span_at(*span), Inline::IfFits);
                    let mut lc = Vec::new();
                    if let Some(e) = entries {
                        lc.push(Self::leaf(
                            format!("entries {}", value_text(e)),
                            span_at(e.span),
                        ));
                    }
                    if let Some(s) = stale_for {
                        lc.push(Self::leaf(
                            format!("stale_for {}", value_text(s)),
                            span_at(s.span),
                        ));
                    }
                    push_children(&mut ln, lc);
                    children.push(ln);
                }
                push_children(&mut node, children);
                node
            }
        }
    }
}

pub(super) fn rate_node(r: &RateAst) -> Node {
    let RateAst { value, during, to } = r;
    let ramp = to
        .as_ref()
        .map_or(String::new(), |v| format!(" to {}", value_text(v)));
    match during {
        Some(d) => Printer::leaf(
            format!("rate {}{ramp} during {}", value_text(value), range_text(d)),
            Some((value.span.start, d.span.end)),
        ),
        None => Printer::leaf(format!("rate {}", value_text(value)), span_at(value.span)),
    }
}

pub(super) fn op_node(op: &OpAst) -> Node {
    let OpAst {
        label,
        request,
        attempts,
        policy,
    } = op;
    let mut t = format!("op {} {}", quoted(label), request_text(request));
    if let Some(a) = attempts {
        t.push_str(&format!(" attempts {}", value_text(a)));
    }
    if let Some(p) = policy {
        t.push_str(&format!(" policy {}", p.name));
    }
    Printer::leaf(t, span_at(request.span))
}

/// The properties of a retry policy, in canonical order.
pub(super) fn retry_children(p: &mut Printer<'_>, r: &RetryAst) -> Vec<Node> {
    let RetryAst {
        attempts,
        backoff,
        deadline,
        retry_after,
        unknown_attempts,
        pushback,
        gate,
        gate_window,
        named: _,
        span: _,
    } = r;
    let mut children = Vec::new();
    if let Some(a) = attempts {
        children.push(Printer::leaf(
            format!("attempts {}", value_text(a)),
            span_at(a.span),
        ));
    }
    if let Some(b) = backoff {
        if let BackoffRef::Inline(BackoffAst::Library(lib)) = b {
            p.skip_braces(lib.span);
        }
        let text = match b {
            BackoffRef::Inline(b) => format!("backoff {}", backoff_text(b)),
            BackoffRef::Named(id) => format!("backoff {}", id.name),
        };
        children.push(Printer::leaf(text, None));
    }
    if let Some(d) = deadline {
        children.push(Printer::leaf(
            format!("deadline {}", value_text(d)),
            span_at(d.span),
        ));
    }
    if let Some(r) = retry_after {
        children.push(Printer::leaf(
            format!("retry_after {}", r.name),
            span_at(r.span),
        ));
    }
    if let Some(b) = pushback {
        // `pushback grpc` alone; with settings, on one line.
        p.skip_braces(b.span);
        let text = if b.fields.is_empty() {
            format!("pushback {}", b.kind.name)
        } else {
            format!("pushback {}", settings_text(b))
        };
        children.push(Printer::leaf(text, span_at(b.span)));
    }
    if let Some(u) = unknown_attempts {
        children.push(Printer::leaf(
            format!("unknown_attempts {}", value_text(u)),
            span_at(u.span),
        ));
    }
    if let Some(g) = gate {
        let window = gate_window
            .as_ref()
            .map_or(String::new(), |w| format!(" window {}", value_text(w)));
        children.push(Printer::leaf(
            format!("gate {}%{window}", value_text(g)),
            span_at(g.span),
        ));
    }
    children
}

pub(super) fn source_prop(p: &SourceProp) -> Node {
    match p {
        SourceProp::Rate(r) => rate_node(r),
        SourceProp::At(list) => {
            let vs: Vec<String> = list
                .iter()
                .map(|a| match &a.count {
                    Some(n) => format!("{} x {}", value_text(&a.time), value_text(n)),
                    None => value_text(&a.time),
                })
                .collect();
            Printer::leaf(
                format!("at [{}]", vs.join(", ")),
                list.first().map(|a| a.time.span.start).zip(
                    list.last()
                        .map(|b| b.count.as_ref().unwrap_or(&b.time).span.end),
                ),
            )
        }
        SourceProp::Request(r) => {
            Printer::leaf(format!("request {}", request_text(r)), span_at(r.span))
        }
        // Printed as a block by the source (it holds braces).
        SourceProp::Sequential(ops) => {
            Printer::leaf(format!("sequential ({} ops)", ops.len()), None)
        }
        SourceProp::Enters(id) => Printer::leaf(format!("enters {}", id.name), span_at(id.span)),
        SourceProp::Arrivals(id) => {
            Printer::leaf(format!("arrivals {}", id.name), span_at(id.span))
        }
        SourceProp::Timed(t) => Printer::leaf(timed_text(t), span_at(t.span)),
    }
}
