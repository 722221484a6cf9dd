//! Values, ranges, expressions and the other constructs that print on one
//! line, in their canonical spelling (`4 rounds`, `200ms`, `12/round`, only
//! the parentheses an expression's meaning needs).

use crate::ast::*;

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
        ValueKind::ParamRate(r) => format!("${}/{}", r.name, r.unit),
        ValueKind::Size { bytes } => format!("{} B", number_text(*bytes)),
        ValueKind::Word(w) => w.clone(),
        ValueKind::Percent(n) => format!("{}%", number_text(*n)),
        ValueKind::Mark(Mark::End) => "end".to_string(),
        // Not written by users: the parser never makes these two alone.
        ValueKind::Mark(Mark::Start) => "start".to_string(),
        ValueKind::Mark(Mark::AfterWarmup) => "after warmup".to_string(),
    }
}

pub(super) fn range_text(r: &Range) -> String {
    let Range {
        start,
        end,
        span: _,
        start_terms,
        end_terms,
        half_open,
    } = r;
    if matches!(start.kind, ValueKind::Mark(Mark::AfterWarmup)) {
        return "after warmup".to_string();
    }
    let bound = |v: &Value, terms: &[Term]| {
        let mut t = value_text(v);
        for Term { minus, value } in terms {
            t.push_str(if *minus { " - " } else { " + " });
            t.push_str(&value_text(value));
        }
        t
    };
    let op = if *half_open { "..<" } else { ".." };
    format!("{}{op}{}", bound(start, start_terms), bound(end, end_terms))
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
        BackoffAst::Library(b) => settings_text(b),
    }
}

/// `KIND { name value  name value }` on one line (`KIND {}` without
/// settings): a library's backoff inside a retry policy.
pub fn settings_text(b: &KindBlockAst) -> String {
    let fields: Vec<String> = b
        .fields
        .iter()
        .map(|(n, v)| format!("{} {}", n.name, value_text(v)))
        .collect();
    if fields.is_empty() {
        format!("{} {{}}", b.kind.name)
    } else {
        format!("{} {{ {} }}", b.kind.name, fields.join("  "))
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

pub(super) fn script_text(steps: &[StepAst]) -> String {
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

pub(super) fn request_text(r: &RequestAst) -> String {
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

pub(super) fn idents_text(ids: &[Ident]) -> String {
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
pub(super) fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, _, _) => op_precedence(*op),
        // A leading `-` binds looser than `^`: `-2 ^ 2` is `-(2 ^ 2)`.
        ExprKind::Neg(_) => 3,
        ExprKind::Number(_) | ExprKind::Param(_) | ExprKind::Path(..) | ExprKind::Call(_, _) => 5,
    }
}

pub(super) fn op_precedence(op: BinOp) -> u8 {
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

pub(super) fn write_expr(e: &Expr, out: &mut String) {
    let Expr { kind, span: _ } = e;
    match kind {
        ExprKind::Number(n) => out.push_str(&number_text(*n)),
        ExprKind::Param(p) => {
            out.push('$');
            out.push_str(p);
        }
        ExprKind::Path(ids, index) => {
            for (i, id) in ids.iter().enumerate() {
                if i > 0 {
                    out.push('.');
                }
                out.push_str(&id.name);
                if let Some(x) = index.filter(|x| x.after == i) {
                    out.push_str(&format!("[{}]", x.index));
                }
            }
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

pub(super) fn write_operand(e: &Expr, parens: bool, out: &mut String) {
    if parens {
        out.push('(');
        write_expr(e, out);
        out.push(')');
    } else {
        write_expr(e, out);
    }
}

pub(super) fn bound_text(b: &Bound) -> String {
    match b {
        Bound::Expr(e) => {
            // `2 / round` alone would read back as the rate `2/round`.
            let reads_as_rate = matches!(&e.kind, ExprKind::Binary(BinOp::Div, a, b)
                if matches!(a.kind, ExprKind::Number(_))
                    && matches!(&b.kind, ExprKind::Path(ids, None)
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

/// A setting of calls that take time: its keyword and its parts, one space
/// apart (`errors 30% as 503`).
pub(super) fn timed_text(t: &Timed) -> String {
    let mut out = t.key.name.clone();
    for p in &t.parts {
        out.push(' ');
        match p {
            TimedPart::Word(w) => out.push_str(&w.name),
            TimedPart::Value(v) => out.push_str(&value_text(v)),
            TimedPart::Percent(v) => {
                out.push_str(&value_text(v));
                out.push('%');
            }
            TimedPart::Code(c, _) => out.push_str(&c.to_string()),
        }
    }
    out
}
