//! One canonical layout for scenario files: what `squall fmt` prints.
//!
//! # The layout
//!
//! * Two spaces of indentation per block; one item per line inside
//!   `scenario`, `report` and `table` blocks.
//! * `source`, `service`, `retry`, `fault` and a variant's `source` block
//!   stay on one line when they fit in [`WIDTH`] columns and hold no comment
//!   (`source users { rate $demand  enters edge }`, two spaces between
//!   properties); otherwise one property per line. `variant` and `sweep`
//!   blocks stay on one line when they hold one item and fit.
//! * Values are printed canonically: `4 rounds`, `1 round`, `200ms`,
//!   `12/round`, numbers without `_` separators or trailing zeros.
//!   Expressions get single spaces around operators and only the
//!   parentheses their meaning needs.
//! * Inside a table: `rows`, `at`, `label`, then the columns in order; inside
//!   a sweep: its axes, then `variant`.
//! * A blank line in the source between two items is kept (several become
//!   one); none is added.
//!
//! # Comments
//!
//! Every comment is kept. A comment on a line of its own stays in front of
//! the item that follows it, at that item's indentation; a comment after
//! code stays at the end of that code's line. The formatter then checks its
//! own work: the result must parse to the same syntax tree (spans aside) and
//! carry the same comments in the same order; otherwise [`format_source`]
//! refuses with an error instead of losing anything.
//!
//! # Adding a construct
//!
//! The tree walk below matches every AST enum exhaustively and destructures
//! every struct field by name, so a new construct or a new field is a
//! compile error here until the formatter prints it.
//!
//! ```
//! let text = "scenario \"tiny\" { run 10 rounds  chain api->db  # the chain\n}";
//! let pretty = squall_lang::format::format_source(text).expect("formats");
//! assert_eq!(pretty, "scenario \"tiny\" {\n  run 10 rounds\n  chain api -> db  # the chain\n}\n");
//! ```

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::parse::parse_file;
use crate::span::Span;

/// The widest line the formatter makes by joining a block onto one line.
pub const WIDTH: usize = 100;

/// Formats a scenario file, keeping its comments.
///
/// Fails with the parse error when the text does not parse, and with an
/// explanation when the result would lose a comment or change the meaning.
pub fn format_source(source: &str) -> Result<String, Diagnostic> {
    let ast = parse_file(source)?;
    let lexed = lex(source);
    let mut printer = Printer::new(Some(source), lexed.comments.clone(), lexed.braces);
    let tree = printer.scenario(&ast);
    printer.render(&tree);
    let out = printer.finish();

    let again = parse_file(&out).map_err(|d| {
        Diagnostic::new(
            format!(
                "internal error: the formatted text does not parse ({})",
                d.message
            ),
            Span::default(),
        )
        .help("this is a bug in `squall fmt`; the file was left as it is")
    })?;
    if !same_modulo_spans(&ast, &again) {
        return Err(Diagnostic::new(
            "internal error: formatting would change what the file says",
            Span::default(),
        )
        .help("this is a bug in `squall fmt`; the file was left as it is"));
    }
    let before: Vec<&str> = lexed.comments.iter().map(|c| c.text.as_str()).collect();
    let after_lexed = lex(&out);
    let after: Vec<&str> = after_lexed
        .comments
        .iter()
        .map(|c| c.text.as_str())
        .collect();
    if before != after {
        let missing = lexed
            .comments
            .iter()
            .zip(after.iter().map(Some).chain(std::iter::repeat(None)))
            .find(|(c, a)| *a != Some(&c.text.as_str()))
            .map(|(c, _)| c);
        let span = missing.map_or(Span::default(), |c| Span::new(c.start, c.end));
        return Err(
            Diagnostic::new("cannot keep this comment in its place", span)
                .label("this comment")
                .help("move it onto a line of its own before an item; the file was left as it is"),
        );
    }
    Ok(out)
}

/// Formats a syntax tree with no source text (no comments, no blank lines).
pub fn format_ast(ast: &ScenarioAst) -> String {
    let mut printer = Printer::new(None, Vec::new(), Vec::new());
    let tree = printer.scenario(ast);
    printer.render(&tree);
    printer.finish()
}

/// True when two syntax trees say the same thing, ignoring where it was
/// written (every span).
pub fn same_modulo_spans(a: &ScenarioAst, b: &ScenarioAst) -> bool {
    match (serde_json::to_value(a), serde_json::to_value(b)) {
        (Ok(mut x), Ok(mut y)) => {
            strip_spans(&mut x);
            strip_spans(&mut y);
            x == y
        }
        _ => false,
    }
}

/// Replaces every serialized [`Span`] (an object of exactly `start` and
/// `end`) with `null`.
fn strip_spans(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            let is_span = map.len() == 2
                && map.get("start").is_some_and(serde_json::Value::is_u64)
                && map.get("end").is_some_and(serde_json::Value::is_u64);
            if is_span {
                *v = serde_json::Value::Null;
            } else {
                map.values_mut().for_each(strip_spans);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_spans),
        _ => {}
    }
}

// ------------------------------------------------------------- printing --

/// A number as the grammar reads it: shortest round-trip digits.
pub fn number_text(x: f64) -> String {
    format!("{x}")
}

/// A value in canonical spelling.
pub fn value_text(v: &Value) -> String {
    let Value { kind, span: _ } = v;
    match kind {
        ValueKind::Number(n) => number_text(*n),
        ValueKind::Rate {
            n,
            unit,
            unit_span: _,
        } => format!("{}/{unit}", number_text(*n)),
        ValueKind::Duration { n, unit } => match unit {
            TimeUnit::Round => {
                if *n == 1.0 {
                    "1 round".to_string()
                } else {
                    format!("{} rounds", number_text(*n))
                }
            }
            TimeUnit::Ms | TimeUnit::S | TimeUnit::Min | TimeUnit::H => {
                format!("{}{}", number_text(*n), unit.as_str())
            }
        },
        ValueKind::Param(name) => format!("${name}"),
        ValueKind::Size { bytes } => format!("{} B", number_text(*bytes)),
        ValueKind::Word(w) => w.clone(),
        ValueKind::Mark(Mark::End) => "end".to_string(),
        // Not written by users: the parser never makes these two alone.
        ValueKind::Mark(Mark::Start) => "start".to_string(),
        ValueKind::Mark(Mark::AfterWarmup) => "after warmup".to_string(),
    }
}

fn range_text(r: &Range) -> String {
    let Range {
        start,
        end,
        span: _,
    } = r;
    if matches!(start.kind, ValueKind::Mark(Mark::AfterWarmup)) {
        return "after warmup".to_string();
    }
    format!("{}..{}", value_text(start), value_text(end))
}

/// A backoff policy as written after `backoff` (or `backoff NAME =`).
pub fn backoff_text(b: &BackoffAst) -> String {
    let growth = |kind: &str,
                  base: &Value,
                  multiplier: &Option<Value>,
                  cap: &Option<Value>,
                  rng: Option<&Ident>| {
        let mut t = format!("{kind} {}", value_text(base));
        if let Some(m) = multiplier {
            t.push_str(&format!(" x {}", value_text(m)));
        }
        if let Some(c) = cap {
            t.push_str(&format!(" cap {}", value_text(c)));
        }
        if let Some(r) = rng {
            t.push_str(&format!(" rng {}", r.name));
        }
        t
    };
    match b {
        BackoffAst::Fixed(v) => format!("fixed {}", value_text(v)),
        BackoffAst::Exponential {
            base,
            multiplier,
            cap,
        } => growth("exponential", base, multiplier, cap, None),
        BackoffAst::FullJitter {
            base,
            multiplier,
            cap,
            rng,
        } => growth("full_jitter", base, multiplier, cap, rng.as_ref()),
        BackoffAst::EqualJitter {
            base,
            multiplier,
            cap,
            rng,
        } => growth("equal_jitter", base, multiplier, cap, rng.as_ref()),
        BackoffAst::Decorrelated { base, cap, rng } => {
            growth("decorrelated", base, &None, cap, rng.as_ref())
        }
    }
}

/// A scripted response as written.
pub fn response_text(r: &ResponseAst) -> String {
    match r {
        ResponseAst::Status {
            code,
            retry_after,
            span: _,
        } => match retry_after {
            None => code.clone(),
            Some(RetryAfterAst::Delay(v)) => format!("{code} retry_after {}", value_text(v)),
            Some(RetryAfterAst::Date(d, _)) => format!("{code} retry_after {}", quoted(d)),
        },
        ResponseAst::NetworkError => "network_error".to_string(),
        ResponseAst::Timeout => "timeout".to_string(),
        ResponseAst::BodyError => "body_error".to_string(),
    }
}

fn script_text(steps: &[StepAst]) -> String {
    let parts: Vec<String> = steps
        .iter()
        .map(|s| {
            let StepAst {
                response,
                times,
                until,
                span: _,
            } = s;
            let mut t = response_text(response);
            if let Some(n) = times {
                t.push_str(&format!(" x {}", value_text(n)));
            }
            if let Some(u) = until {
                t.push_str(&format!(" until {}", value_text(u)));
            }
            t
        })
        .collect();
    parts.join(" then ")
}

fn request_text(r: &RequestAst) -> String {
    let RequestAst {
        method,
        path,
        key,
        span: _,
    } = r;
    if *key {
        format!("{method} {path} idempotency_key")
    } else {
        format!("{method} {path}")
    }
}

fn idents_text(ids: &[Ident]) -> String {
    ids.iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A quoted string with `"`, `\`, newlines and tabs escaped.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Binding strength, loosest first.
fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, _, _) => op_precedence(*op),
        // A leading `-` binds looser than `^`: `-2 ^ 2` is `-(2 ^ 2)`.
        ExprKind::Neg(_) => 3,
        ExprKind::Number(_) | ExprKind::Param(_) | ExprKind::Path(_) | ExprKind::Call(_, _) => 5,
    }
}

fn op_precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => 1,
        BinOp::Mul | BinOp::Div => 2,
        BinOp::Pow => 4,
    }
}

/// An expression with single spaces around operators and only the
/// parentheses its meaning needs.
pub fn expr_text(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(e, &mut out);
    out
}

fn write_expr(e: &Expr, out: &mut String) {
    let Expr { kind, span: _ } = e;
    match kind {
        ExprKind::Number(n) => out.push_str(&number_text(*n)),
        ExprKind::Param(p) => {
            out.push('$');
            out.push_str(p);
        }
        ExprKind::Path(ids) => {
            let names: Vec<&str> = ids.iter().map(|i| i.name.as_str()).collect();
            out.push_str(&names.join("."));
        }
        ExprKind::Call(name, args) => {
            out.push_str(&name.name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(a, out);
            }
            out.push(')');
        }
        ExprKind::Neg(x) => {
            out.push('-');
            write_operand(x, precedence(x) < 3, out);
        }
        ExprKind::Binary(op, a, b) => {
            let p = op_precedence(*op);
            let right_assoc = matches!(op, BinOp::Pow);
            let (pa, pb) = (precedence(a), precedence(b));
            write_operand(a, pa < p || (pa == p && right_assoc), out);
            out.push(' ');
            out.push_str(op.as_str());
            out.push(' ');
            write_operand(b, pb < p || (pb == p && !right_assoc), out);
        }
    }
}

fn write_operand(e: &Expr, parens: bool, out: &mut String) {
    if parens {
        out.push('(');
        write_expr(e, out);
        out.push(')');
    } else {
        write_expr(e, out);
    }
}

fn bound_text(b: &Bound) -> String {
    match b {
        Bound::Expr(e) => {
            // `2 / round` alone would read back as the rate `2/round`.
            let reads_as_rate = matches!(&e.kind, ExprKind::Binary(BinOp::Div, a, b)
                if matches!(a.kind, ExprKind::Number(_))
                    && matches!(&b.kind, ExprKind::Path(ids)
                        if ids.len() == 1 && ids[0].name.chars().all(|c| c.is_ascii_alphabetic())));
            if reads_as_rate {
                format!("({})", expr_text(e))
            } else {
                expr_text(e)
            }
        }
        Bound::Quantity(v) => value_text(v),
    }
}

/// The text after `expect`: the value and its check.
pub fn expect_text(e: &ExpectAst) -> String {
    let ExpectAst {
        lhs,
        check,
        span: _,
    } = e;
    let check = match check {
        ExpectCheck::Compare(op, b) => format!("{} {}", op.as_str(), bound_text(b)),
        ExpectCheck::Range(lo, hi) => format!("in {}..{}", bound_text(lo), bound_text(hi)),
        ExpectCheck::Near(x, tol) => {
            let tol = match tol {
                Tolerance::Percent(p, _) => format!("{}%", number_text(*p)),
                Tolerance::Absolute(b) => bound_text(b),
            };
            format!("== {} within {tol}", bound_text(x))
        }
    };
    format!("expect {} {check}", expr_text(lhs))
}

// ------------------------------------------------------------- comments --

/// A `# ...` comment in the source.
#[derive(Debug, Clone, PartialEq)]
struct Comment {
    /// Offset of the `#`.
    start: usize,
    /// Offset of the end of its line.
    end: usize,
    /// From `#` to the end of the line, trailing spaces removed.
    text: String,
    /// True when code precedes it on its line.
    trailing: bool,
}

/// What the formatter needs to know about the source beyond the AST.
struct Lexed {
    comments: Vec<Comment>,
    /// Every `{ ... }` pair outside strings and comments, in order of `{`.
    braces: Vec<(usize, usize)>,
}

/// Finds comments and brace pairs, skipping quoted strings.
fn lex(src: &str) -> Lexed {
    let bytes = src.as_bytes();
    let mut comments = Vec::new();
    let mut braces: Vec<(usize, usize)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut line_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line_start = i + 1,
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'#' => {
                let end = src[i..].find('\n').map_or(src.len(), |n| i + n);
                let trailing = !src[line_start..i].trim().is_empty();
                comments.push(Comment {
                    start: i,
                    end,
                    text: src[i..end].trim_end().to_string(),
                    trailing,
                });
                i = end;
                continue;
            }
            b'{' => {
                open.push(braces.len());
                braces.push((i, i));
            }
            b'}' => {
                if let Some(k) = open.pop() {
                    braces[k].1 = i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Lexed { comments, braces }
}

/// Offset of `word` as a whole word in `src[from..to]`, outside strings and
/// comments.
fn find_word(src: &str, from: usize, to: usize, word: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let to = to.min(src.len());
    let mut i = from;
    while i < to {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < to && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'#' => {
                i = src[i..].find('\n').map_or(to, |n| i + n);
                continue;
            }
            _ => {
                let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
                if src[i..].starts_with(word)
                    && (i == 0 || !is_word(bytes[i - 1]))
                    && !bytes.get(i + word.len()).copied().is_some_and(is_word)
                {
                    return Some(i);
                }
            }
        }
        i += 1;
    }
    None
}

fn has_blank_line(s: &str) -> bool {
    let mut newlines = 0;
    for c in s.chars() {
        match c {
            '\n' => {
                newlines += 1;
                if newlines >= 2 {
                    return true;
                }
            }
            ' ' | '\t' | '\r' => {}
            _ => newlines = 0,
        }
    }
    false
}

// ----------------------------------------------------------------- tree --

/// When a block may be printed on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inline {
    /// Always one item per line.
    Never,
    /// On one line when it fits.
    IfFits,
    /// On one line when it holds at most one item and fits.
    IfSingle,
}

/// One line of output, or a block with its lines.
#[derive(Debug)]
struct Node {
    /// The text of the line (a block's header, without `{`).
    head: String,
    /// Where it was written: `(start, end)`; `None` when unknown.
    at: Option<(usize, usize)>,
    block: Option<BlockNode>,
}

#[derive(Debug)]
struct BlockNode {
    /// Offsets of `{` and `}` in the source.
    braces: Option<(usize, usize)>,
    inline: Inline,
    children: Vec<Node>,
}

fn span_at(s: Span) -> Option<(usize, usize)> {
    Some((s.start, s.end))
}

fn join_at(a: Option<(usize, usize)>, b: Option<(usize, usize)>) -> Option<(usize, usize)> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (a, None) => a,
        (None, b) => b,
    }
}

fn expr_end(e: &Expr) -> usize {
    e.span.end
}

struct Printer<'s> {
    src: Option<&'s str>,
    comments: Vec<Comment>,
    next_comment: usize,
    braces: Vec<(usize, usize)>,
    next_brace: usize,
    lines: Vec<String>,
    /// The last line, still open for a trailing comment.
    pending: Option<String>,
    indent: usize,
    /// Source offset just after the last thing printed.
    last_end: usize,
    /// True right after `{` (and at the top of the file): no blank line.
    block_start: bool,
}

impl<'s> Printer<'s> {
    fn new(src: Option<&'s str>, comments: Vec<Comment>, braces: Vec<(usize, usize)>) -> Self {
        Printer {
            src,
            comments,
            next_comment: 0,
            braces,
            next_brace: 0,
            lines: Vec::new(),
            pending: None,
            indent: 0,
            last_end: 0,
            block_start: true,
        }
    }

    fn take_brace(&mut self) -> Option<(usize, usize)> {
        let b = self.braces.get(self.next_brace).copied();
        self.next_brace += 1;
        b
    }

    fn block(&mut self, head: String, at: Option<(usize, usize)>, inline: Inline) -> Node {
        let braces = self.take_brace();
        let at = join_at(at, braces.map(|(o, c)| (o, c + 1)));
        Node {
            head,
            at,
            block: Some(BlockNode {
                braces,
                inline,
                children: Vec::new(),
            }),
        }
    }

    fn leaf(head: String, at: Option<(usize, usize)>) -> Node {
        Node {
            head,
            at,
            block: None,
        }
    }

    // -------------------------------------------------- AST to tree --

    fn scenario(&mut self, ast: &ScenarioAst) -> Node {
        let ScenarioAst {
            name,
            name_span,
            items,
        } = ast;
        let mut node = self.block(
            format!("scenario {}", quoted(name)),
            span_at(*name_span),
            Inline::Never,
        );
        let children: Vec<Node> = items.iter().map(|i| self.item(i)).collect();
        push_children(&mut node, children);
        node
    }

    fn item(&mut self, item: &Item) -> Node {
        match item {
            Item::Clock(id) => Self::leaf(format!("clock {}", id.name), span_at(id.span)),
            Item::Run(v) => Self::leaf(format!("run {}", value_text(v)), span_at(v.span)),
            Item::RunRange(r) => Self::leaf(format!("run {}", range_text(r)), span_at(r.span)),
            Item::Warmup(v) => Self::leaf(format!("warmup {}", value_text(v)), span_at(v.span)),
            Item::Epoch(text, span) => {
                Self::leaf(format!("epoch {}", quoted(text)), span_at(*span))
            }
            Item::Rng(decl) => {
                let RngAst {
                    name,
                    algorithm,
                    seed,
                } = decl;
                let mut node = self.block(
                    format!("rng {}", name.name),
                    span_at(name.span),
                    Inline::IfFits,
                );
                let mut children = Vec::new();
                if let Some(a) = algorithm {
                    children.push(Self::leaf(a.name.clone(), span_at(a.span)));
                }
                if let Some((s, span)) = seed {
                    children.push(Self::leaf(format!("seed {s}"), span_at(*span)));
                }
                push_children(&mut node, children);
                node
            }
            Item::Backoff(name, b) => Self::leaf(
                format!("backoff {} = {}", name.name, backoff_text(b)),
                span_at(name.span),
            ),
            Item::Policy(name, r) => {
                let mut node = self.block(
                    format!("policy {}", name.name),
                    span_at(name.span),
                    Inline::IfFits,
                );
                let children = retry_children(r);
                push_children(&mut node, children);
                node
            }
            Item::Endpoint(decl) => {
                let EndpointAst { node: id, routes } = decl;
                let mut node = self.block(
                    format!("endpoint {}", id.name),
                    span_at(id.span),
                    Inline::IfSingle,
                );
                let children = routes
                    .iter()
                    .map(|r| {
                        let RouteAst {
                            name,
                            method,
                            path,
                            script,
                        } = r;
                        let head = match (method, path) {
                            (Some(m), Some(p)) => format!("route {} {m} {p}", name.name),
                            _ => "default".to_string(),
                        };
                        let mut route = self.block(head, span_at(name.span), Inline::IfFits);
                        let at = script
                            .first()
                            .map(|s| s.span.start)
                            .zip(script.last().map(|s| s.span.end));
                        push_children(&mut route, vec![Self::leaf(script_text(script), at)]);
                        route
                    })
                    .collect();
                push_children(&mut node, children);
                node
            }
            Item::Seed(n, span) => Self::leaf(format!("seed {n}"), span_at(*span)),
            Item::Param(id, v) => Self::leaf(
                format!("param {} = {}", id.name, value_text(v)),
                Some((id.span.start, v.span.end)),
            ),
            Item::Source(decl) => {
                let SourceAst { name, props, span } = decl;
                let mut node = self.block(
                    format!("source {}", name.name),
                    span_at(*span),
                    Inline::IfFits,
                );
                let children = props
                    .iter()
                    .map(|p| match p {
                        SourceProp::Sequential(ops) => {
                            let mut seq = self.block("sequential".to_string(), None, Inline::Never);
                            let lines = ops.iter().map(op_node).collect();
                            push_children(&mut seq, lines);
                            seq
                        }
                        other => source_prop(other),
                    })
                    .collect();
                push_children(&mut node, children);
                node
            }
            Item::Chain(ids, fan) => {
                let names: Vec<&str> = ids.iter().map(|i| i.name.as_str()).collect();
                let at = match (ids.first(), fan.last().or(ids.last())) {
                    (Some(a), Some(b)) => Some((a.span.start, b.span.end)),
                    _ => None,
                };
                let mut text = format!("chain {}", names.join(" -> "));
                if !fan.is_empty() {
                    text.push_str(&format!(" -> [{}]", idents_text(fan)));
                }
                Self::leaf(text, at)
            }
            Item::Service(decl) => {
                let ServiceAst { names, props } = decl;
                let list: Vec<&str> = names.iter().map(|i| i.name.as_str()).collect();
                let at = names.first().map(|n| (n.span.start, n.span.end));
                let mut node =
                    self.block(format!("service {}", list.join(", ")), at, Inline::IfFits);
                let children = props.iter().map(|p| self.service_prop(p)).collect();
                push_children(&mut node, children);
                node
            }
            Item::Fault(decl) => {
                let FaultAst { name, props, span } = decl;
                let mut node = self.block(
                    format!("fault {}", name.name),
                    span_at(*span),
                    Inline::IfFits,
                );
                let children = props
                    .iter()
                    .map(|p| match p {
                        FaultProp::On(ids) => Self::leaf(
                            format!("on {}", idents_text(ids)),
                            ids.first()
                                .map(|a| a.span.start)
                                .zip(ids.last().map(|b| b.span.end)),
                        ),
                        FaultProp::Fail(r) => {
                            Self::leaf(format!("fail {}", response_text(r)), None)
                        }
                        FaultProp::Every(x) => {
                            let EveryAst {
                                every,
                                phase,
                                step,
                                span,
                            } = x;
                            let mut t = format!("every {}", value_text(every));
                            if let Some(p) = phase {
                                t.push_str(&format!(" phase {}", value_text(p)));
                            }
                            if let Some(s) = step {
                                t.push_str(&format!(" step {} per field", value_text(s)));
                            }
                            Self::leaf(t, span_at(*span))
                        }
                        FaultProp::During(r) => {
                            Self::leaf(format!("during {}", range_text(r)), span_at(r.span))
                        }
                        FaultProp::Capacity(v) => {
                            Self::leaf(format!("capacity {}", value_text(v)), span_at(v.span))
                        }
                    })
                    .collect();
                push_children(&mut node, children);
                node
            }
            Item::Window(id, r) => Self::leaf(
                format!("window {} {}", id.name, range_text(r)),
                Some((id.span.start, r.span.end)),
            ),
            Item::Variant(decl) => {
                let VariantAst { name, label, items } = decl;
                let head = match label {
                    Some(l) => format!("variant {} {}", name.name, quoted(l)),
                    None => format!("variant {}", name.name),
                };
                let mut node = self.block(head, span_at(name.span), Inline::IfSingle);
                let children = items.iter().map(|i| self.variant_item(i)).collect();
                push_children(&mut node, children);
                node
            }
            Item::Sweep(decl) => {
                let SweepAst {
                    name,
                    label,
                    axes,
                    base,
                } = decl;
                let head = match label {
                    Some(l) => format!("sweep {} {}", name.name, quoted(l)),
                    None => format!("sweep {}", name.name),
                };
                let mut node = self.block(head, span_at(name.span), Inline::IfSingle);
                let mut children: Vec<Node> = axes
                    .iter()
                    .map(|(id, values)| {
                        let vs: Vec<String> = values.iter().map(value_text).collect();
                        let end = values.last().map_or(id.span.end, |v| v.span.end);
                        Self::leaf(
                            format!("{} in [{}]", id.name, vs.join(", ")),
                            Some((id.span.start, end)),
                        )
                    })
                    .collect();
                if let Some(b) = base {
                    children.push(Self::leaf(format!("variant {}", b.name), span_at(b.span)));
                }
                push_children(&mut node, children);
                node
            }
            Item::Report(items) => {
                let mut node = self.block("report".to_string(), None, Inline::Never);
                let children = items.iter().map(|i| self.report_item(i)).collect();
                push_children(&mut node, children);
                node
            }
            Item::Expect(e) => Self::leaf(expect_text(e), span_at(e.span)),
        }
    }

    fn service_prop(&mut self, p: &ServiceProp) -> Node {
        match p {
            ServiceProp::Capacity(v) => {
                Self::leaf(format!("capacity {}", value_text(v)), span_at(v.span))
            }
            ServiceProp::Retry(r) => {
                if let Some(name) = &r.named {
                    return Self::leaf(format!("retry {}", name.name), span_at(r.span));
                }
                let mut node = self.block("retry".to_string(), span_at(r.span), Inline::IfFits);
                let children = retry_children(r);
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
                    } = f;
                    children.push(Self::leaf(
                        format!(
                            "field {} from {} {} {}",
                            name.name,
                            source.name,
                            if *core { "core" } else { "optional" },
                            value_text(bytes)
                        ),
                        Some((name.span.start, bytes.span.end)),
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

    fn variant_item(&mut self, i: &VariantItem) -> Node {
        match i {
            VariantItem::Set(id, v) => Self::leaf(
                format!("set {} = {}", id.name, value_text(v)),
                Some((id.span.start, v.span.end)),
            ),
            VariantItem::Without(ids) => Self::leaf(
                format!("without {}", idents_text(ids)),
                ids.first()
                    .map(|a| a.span.start)
                    .zip(ids.last().map(|b| b.span.end)),
            ),
            VariantItem::Source(id, rates) => {
                let mut node = self.block(
                    format!("source {}", id.name),
                    span_at(id.span),
                    Inline::IfFits,
                );
                let children = rates.iter().map(rate_node).collect();
                push_children(&mut node, children);
                node
            }
        }
    }

    fn report_item(&mut self, i: &ReportItem) -> Node {
        match i {
            ReportItem::Measure(id, e) => Self::leaf(
                format!("measure {} = {}", id.name, expr_text(e)),
                Some((id.span.start, expr_end(e))),
            ),
            ReportItem::Line(variant, raw, span) => Self::leaf(
                match variant {
                    Some(v) => format!("line {} \"{raw}\"", v.name),
                    None => format!("line \"{raw}\""),
                },
                Some((span.start.saturating_sub(1), span.end + 1)),
            ),
            ReportItem::Waits(w) => {
                let WaitsAst {
                    title,
                    policies,
                    attempts,
                    rng,
                    span,
                } = w;
                let mut node = self.block(
                    format!("waits {}", quoted(title)),
                    span_at(*span),
                    Inline::IfFits,
                );
                let mut children = vec![Self::leaf(
                    format!("policies [{}]", idents_text(policies)),
                    None,
                )];
                if let Some(a) = attempts {
                    children.push(Self::leaf(
                        format!("attempts {}", value_text(a)),
                        span_at(a.span),
                    ));
                }
                if let Some(r) = rng {
                    children.push(Self::leaf(format!("rng {}", r.name), span_at(r.span)));
                }
                push_children(&mut node, children);
                node
            }
            ReportItem::Herd(h) => {
                let HerdAst {
                    title,
                    policy,
                    clients,
                    attempt,
                    bucket,
                    rng,
                    span,
                } = h;
                let mut node = self.block(
                    format!("herd {}", quoted(title)),
                    span_at(*span),
                    Inline::IfFits,
                );
                let mut children = Vec::new();
                if let Some(p) = policy {
                    children.push(Self::leaf(format!("policy {}", p.name), span_at(p.span)));
                }
                for (kw, v) in [
                    ("clients", clients),
                    ("attempt", attempt),
                    ("bucket", bucket),
                ] {
                    if let Some(v) = v {
                        children.push(Self::leaf(
                            format!("{kw} {}", value_text(v)),
                            span_at(v.span),
                        ));
                    }
                }
                if let Some(r) = rng {
                    children.push(Self::leaf(format!("rng {}", r.name), span_at(r.span)));
                }
                push_children(&mut node, children);
                node
            }
            ReportItem::Operations(title, id) => Self::leaf(
                format!("operations {} of {}", quoted(title), id.name),
                span_at(id.span),
            ),
            ReportItem::Trace(title, id) => Self::leaf(
                format!("trace {} of {}", quoted(title), id.name),
                span_at(id.span),
            ),
            ReportItem::Isolation(iso) => {
                let IsolationAst {
                    title,
                    node: id,
                    variants,
                    window,
                    span,
                } = iso;
                let mut node = self.block(
                    format!("isolation {} of {}", quoted(title), id.name),
                    span_at(*span),
                    Inline::IfFits,
                );
                let mut children = vec![Self::leaf(
                    format!("variants [{}]", idents_text(variants)),
                    None,
                )];
                if let Some(w) = window {
                    children.push(Self::leaf(format!("window {}", w.name), span_at(w.span)));
                }
                push_children(&mut node, children);
                node
            }
            ReportItem::Diagnose(d) => {
                let DiagnoseAst {
                    node,
                    window,
                    baseline,
                    against,
                    span,
                } = d;
                let mut t = format!(
                    "diagnose {} in {} vs {}",
                    node.name, window.name, baseline.name
                );
                if let Some(a) = against {
                    t.push_str(&format!(" against {}", a.name));
                }
                Self::leaf(t, span_at(*span))
            }
            ReportItem::Table(t) => self.table(t),
        }
    }

    fn table(&mut self, t: &TableAst) -> Node {
        let TableAst {
            title,
            span,
            rows,
            at,
            labels,
            columns,
        } = t;
        let mut node = self.block(
            format!("table {}", quoted(title)),
            Some((span.start, span.start)),
            Inline::Never,
        );
        let mut children = Vec::new();
        if !rows.is_empty() {
            let texts: Vec<String> = rows.iter().map(axis_text).collect();
            let spans: Vec<Span> = rows.iter().map(axis_span).collect();
            let at = match (spans.first(), spans.last()) {
                (Some(a), Some(b)) => Some((a.start, b.end)),
                _ => None,
            };
            children.push(Self::leaf(format!("rows {}", texts.join(" x ")), at));
        }
        if let Some(id) = at {
            children.push(Self::leaf(format!("at {}", id.name), span_at(id.span)));
        }
        if !labels.is_empty() {
            let pos = self
                .src
                .and_then(|src| find_word(src, span.start, span.end, "label"));
            let list: Vec<String> = labels.iter().map(|l| quoted(l)).collect();
            children.push(Self::leaf(
                format!("label {}", list.join(", ")),
                pos.map(|p| (p, p + "label".len())),
            ));
        }
        for c in columns {
            let ColumnAst {
                title,
                expr,
                digits,
            } = c;
            let mut text = format!("column {} = {}", quoted(title), expr_text(expr));
            if let Some(d) = digits {
                text.push_str(&format!(" :.{d}"));
            }
            children.push(Self::leaf(text, Some((expr.span.start, expr.span.end))));
        }
        push_children(&mut node, children);
        node
    }

    // ------------------------------------------------ tree to text --

    fn has_comment_in(&self, braces: Option<(usize, usize)>) -> bool {
        let Some((open, close)) = braces else {
            return false;
        };
        self.comments[self.next_comment..]
            .iter()
            .any(|c| c.start > open && c.start < close)
    }

    /// The node on one line, if its kind and contents allow it.
    fn one_line(&self, node: &Node) -> Option<String> {
        let Some(b) = &node.block else {
            return Some(node.head.clone());
        };
        let allowed = match b.inline {
            Inline::Never => false,
            Inline::IfFits => true,
            Inline::IfSingle => b.children.len() <= 1,
        };
        if !allowed || self.has_comment_in(b.braces) {
            return None;
        }
        if b.children.is_empty() {
            return Some(format!("{} {{ }}", node.head));
        }
        let parts: Option<Vec<String>> = b.children.iter().map(|c| self.one_line(c)).collect();
        Some(format!("{} {{ {} }}", node.head, parts?.join("  ")))
    }

    fn render(&mut self, node: &Node) {
        let start = node.at.map(|a| a.0);
        if let Some(text) = self.one_line(node) {
            if self.indent * 2 + text.chars().count() <= WIDTH || node.block.is_none() {
                self.emit(start, node.at.map(|a| a.1), text);
                return;
            }
        }
        let Some(b) = &node.block else {
            return;
        };
        let open_end = b.braces.map(|(o, _)| o + 1);
        self.emit(start, open_end, format!("{} {{", node.head));
        self.indent += 1;
        self.block_start = true;
        for child in &b.children {
            self.render(child);
        }
        let close = b.braces.map(|(_, c)| c);
        self.settle(close, false);
        self.indent -= 1;
        self.emit_closing(close);
    }

    /// Closes the pending line (attaching a trailing comment that comes
    /// before `next`) and prints the full-line comments before `next`.
    fn settle(&mut self, next: Option<usize>, blank_allowed: bool) {
        let limit = next.unwrap_or(usize::MAX);
        if let Some(mut line) = self.pending.take() {
            if let Some(c) = self.comments.get(self.next_comment) {
                if c.trailing && c.start < limit && next.is_some() {
                    line.push_str("  ");
                    line.push_str(&c.text);
                    self.last_end = c.end;
                    self.next_comment += 1;
                }
            }
            self.lines.push(line);
        }
        if next.is_none() {
            return;
        }
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.start >= limit {
                break;
            }
            let c = c.clone();
            self.next_comment += 1;
            self.blank_line_before(c.start);
            self.lines
                .push(format!("{}{}", "  ".repeat(self.indent), c.text));
            self.last_end = c.end;
            self.block_start = false;
        }
        if blank_allowed {
            if let Some(n) = next {
                self.blank_line_before(n);
            }
        }
    }

    fn blank_line_before(&mut self, at: usize) {
        let Some(src) = self.src else {
            return;
        };
        if !self.block_start
            && at >= self.last_end
            && has_blank_line(src.get(self.last_end..at).unwrap_or(""))
        {
            self.lines.push(String::new());
        }
    }

    fn emit(&mut self, start: Option<usize>, end: Option<usize>, text: String) {
        self.settle(start, true);
        self.pending = Some(format!("{}{text}", "  ".repeat(self.indent)));
        if let Some(e) = end {
            self.last_end = self.last_end.max(e);
        }
        self.block_start = false;
    }

    fn emit_closing(&mut self, close: Option<usize>) {
        self.pending = Some(format!("{}}}", "  ".repeat(self.indent)));
        if let Some(c) = close {
            self.last_end = c + 1;
        }
        self.block_start = false;
    }

    fn finish(mut self) -> String {
        // Comments after the scenario's closing brace.
        self.settle(Some(usize::MAX - 1), true);
        let mut out = self.lines.join("\n");
        out.push('\n');
        out
    }
}

fn push_children(node: &mut Node, children: Vec<Node>) {
    if let Some(b) = &mut node.block {
        b.children = children;
    }
}

fn rate_node(r: &RateAst) -> Node {
    let RateAst { value, during } = r;
    match during {
        Some(d) => Printer::leaf(
            format!("rate {} during {}", value_text(value), range_text(d)),
            Some((value.span.start, d.span.end)),
        ),
        None => Printer::leaf(format!("rate {}", value_text(value)), span_at(value.span)),
    }
}

fn op_node(op: &OpAst) -> Node {
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
fn retry_children(r: &RetryAst) -> Vec<Node> {
    let RetryAst {
        attempts,
        backoff,
        deadline,
        retry_after,
        unknown_attempts,
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
    if let Some(u) = unknown_attempts {
        children.push(Printer::leaf(
            format!("unknown_attempts {}", value_text(u)),
            span_at(u.span),
        ));
    }
    children
}

fn source_prop(p: &SourceProp) -> Node {
    match p {
        SourceProp::Rate(r) => rate_node(r),
        SourceProp::At(list) => {
            let vs: Vec<String> = list.iter().map(value_text).collect();
            Printer::leaf(
                format!("at [{}]", vs.join(", ")),
                list.first()
                    .map(|a| a.span.start)
                    .zip(list.last().map(|b| b.span.end)),
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
    }
}

fn names_text(list: &Option<Vec<Ident>>) -> String {
    match list {
        None => String::new(),
        Some(l) => {
            let names: Vec<&str> = l.iter().map(|i| i.name.as_str()).collect();
            format!(" [{}]", names.join(", "))
        }
    }
}

fn axis_text(a: &AxisAst) -> String {
    match a {
        AxisAst::Variants(list, _) => format!("variants{}", names_text(list)),
        AxisAst::Windows(list, _) => format!("windows{}", names_text(list)),
        AxisAst::Sweep(id) => format!("sweep {}", id.name),
    }
}

fn axis_span(a: &AxisAst) -> Span {
    match a {
        AxisAst::Variants(_, s) | AxisAst::Windows(_, s) => *s,
        AxisAst::Sweep(id) => id.span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(s: &str) -> String {
        match format_source(s) {
            Ok(t) => t,
            Err(d) => format!("error: {}", d.message),
        }
    }

    #[test]
    fn parentheses_only_where_needed() {
        let text = "scenario \"x\" { report { measure a = (1 + 2) * 3 - (4 - 5) + -(2 ^ 3) ^ 2 / (a.b ^ (c ^ d)) } }";
        let out = fmt(text);
        assert!(
            out.contains("measure a = (1 + 2) * 3 - (4 - 5) + -(2 ^ 3) ^ 2 / a.b ^ c ^ d"),
            "{out}"
        );
    }

    #[test]
    fn comments_stay_in_place() {
        let text = "# head\n\nscenario \"x\" {   # opener\n  # before run\n  run 4 rounds # after run\n\n\n  service db {\n    # inside\n    capacity 3/round\n  }\n  # at the end\n}\n# after all\n";
        let out = fmt(text);
        assert_eq!(
            out,
            "# head\n\nscenario \"x\" {  # opener\n  # before run\n  run 4 rounds  # after run\n\n  service db {\n    # inside\n    capacity 3/round\n  }\n  # at the end\n}\n# after all\n"
        );
        assert_eq!(fmt(&out), out);
    }

    #[test]
    fn strings_with_hashes_are_not_comments() {
        let text = "scenario \"a # b\" { report { line \"x # {1}\" } }";
        let out = fmt(text);
        assert_eq!(
            out,
            "scenario \"a # b\" {\n  report {\n    line \"x # {1}\"\n  }\n}\n"
        );
    }

    #[test]
    fn values_are_canonical() {
        let text = "scenario \"x\" { run 1_000 rounds  param a = 1 round  param b = 200 ms  param c = 4 / round  param d = 2.50 }";
        let out = fmt(text);
        assert!(out.contains("run 1000 rounds\n"), "{out}");
        assert!(out.contains("param a = 1 round\n"), "{out}");
        assert!(out.contains("param b = 200ms\n"), "{out}");
        assert!(out.contains("param c = 4/round\n"), "{out}");
        assert!(out.contains("param d = 2.5\n"), "{out}");
    }

    #[test]
    fn expect_forms() {
        let text = "scenario \"x\" { expect a.b in 6.0..6.5  expect a.b == 25 rounds within 10%  expect a.b==3 within 0.1 expect a.b>=2/round }";
        let out = fmt(text);
        assert!(out.contains("  expect a.b in 6..6.5\n"), "{out}");
        assert!(
            out.contains("  expect a.b == 25 rounds within 10%\n"),
            "{out}"
        );
        assert!(out.contains("  expect a.b == 3 within 0.1\n"), "{out}");
        assert!(out.contains("  expect a.b >= 2/round\n"), "{out}");
        // An expression that starts like a rate stays an expression.
        let text = "scenario \"x\" { expect a < 100 / storm.normal  expect a < (2 / round) }";
        let out = fmt(text);
        assert!(out.contains("  expect a < 100 / storm.normal\n"), "{out}");
        assert!(out.contains("  expect a < (2 / round)\n"), "{out}");
    }

    #[test]
    fn long_blocks_break() {
        let long = "x".repeat(90);
        let text = format!("scenario \"x\" {{ source {long} {{ rate 1/round  enters a }} }}");
        let out = fmt(&text);
        assert!(
            out.contains(&format!(
                "  source {long} {{\n    rate 1/round\n    enters a\n  }}\n"
            )),
            "{out}"
        );
    }
}
