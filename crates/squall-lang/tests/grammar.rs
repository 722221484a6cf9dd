//! Table-driven tests of the grammar's small pieces: values, expressions,
//! templates, and the conversion of units into ticks.

use squall_lang::ast::{Expr, ExprKind, TimeUnit, Value, ValueKind};
use squall_lang::parse::{parse_template_expr, parse_value};
use squall_lang::template::{parse_template, Piece};
use squall_lang::units;
use squall_lang::{Clock, Span};

/// A value as a short string, to compare in tables.
fn show_value(v: &Value) -> String {
    match &v.kind {
        ValueKind::Number(n) => format!("{n}"),
        ValueKind::Rate { n, unit, .. } => format!("{n}/{unit}"),
        ValueKind::Duration { n, unit } => format!("{n} {}", unit.as_str()),
        ValueKind::Param(p) => format!("${p}"),
        ValueKind::ParamRate(r) => format!("${}/{}", r.name, r.unit),
        ValueKind::Size { bytes } => format!("{bytes} B"),
        ValueKind::Word(w) => format!("word {w}"),
        ValueKind::Percent(p) => format!("{p}%"),
        ValueKind::Mark(m) => format!("{m:?}"),
    }
}

#[test]
fn values() {
    let cases = [
        ("4", "4"),
        ("1.5", "1.5"),
        ("1_000", "1000"),
        ("4/round", "4/round"),
        ("12 / s", "12/s"),
        ("0.5/ms", "0.5/ms"),
        ("4/sec", "4/sec"), // accepted here, refused by `units::per_tick`
        ("4 rounds", "4 round"),
        ("180 B", "180 B"),
        ("2 KiB", "2048 B"),
        ("stale_fallback", "word stale_fallback"),
        ("1 round", "1 round"),
        ("200ms", "200 ms"),
        ("2s", "2 s"),
        ("15min", "15 min"),
        ("1 h", "1 h"),
        ("$attempts", "$attempts"),
        ("$a_b2", "$a_b2"),
    ];
    for (text, want) in cases {
        let v = parse_value(text).unwrap_or_else(|d| panic!("{text}: {}", d.message));
        assert_eq!(show_value(&v), want, "{text}");
        assert_eq!(v.span, Span::new(0, text.len()), "{text}: span");
    }
}

#[test]
fn bad_values() {
    // (text, column of the error, start of the message)
    let cases = [
        ("", 1, "expected a value"),
        ("-4", 1, "expected a value"),
        ("4 apples", 3, "expected"),
        ("4/", 3, "expected a unit"),
        ("$", 2, "expected a name"),
        ("$1", 2, "expected a name"),
        ("1.", 2, "expected"),
        ("4 roundsx", 3, "unknown time unit `roundsx`"),
        ("4 secs", 3, "unknown time unit `secs`"),
        (
            "4/round extra",
            9,
            "expected end of the value, found `extra`",
        ),
    ];
    for (text, col, want) in cases {
        let d = match parse_value(text) {
            Ok(v) => panic!("{text:?} parsed as {}", show_value(&v)),
            Err(d) => d,
        };
        assert!(
            d.message.starts_with(want),
            "{text:?}: message {:?} does not start with {want:?}",
            d.message
        );
        assert_eq!(d.span.line_col(text), (1, col), "{text:?}: {}", d.message);
    }
}

/// An expression in prefix form: `(+ 1 (* 2 3))`.
fn sexpr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Number(n) => format!("{n}"),
        ExprKind::Param(p) => format!("${p}"),
        ExprKind::Path(ids, _) => ids
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join("."),
        ExprKind::Call(name, args) => {
            let args: Vec<String> = args.iter().map(sexpr).collect();
            format!("{}({})", name.name, args.join(", "))
        }
        ExprKind::Neg(x) => format!("(- {})", sexpr(x)),
        ExprKind::Binary(op, a, b) => format!("({} {} {})", op.as_str(), sexpr(a), sexpr(b)),
    }
}

#[test]
fn precedence() {
    let cases = [
        ("1 + 2 * 3 ^ 2", "(+ 1 (* 2 (^ 3 2)))"),
        ("1 - 2 - 3", "(- (- 1 2) 3)"),
        ("8 / 4 / 2", "(/ (/ 8 4) 2)"),
        ("2 ^ 3 ^ 2", "(^ 2 (^ 3 2))"),
        ("-2 ^ 2", "(- (^ 2 2))"),
        ("2 ^ -1", "(^ 2 (- 1))"),
        ("2 ^ -1 ^ 2", "(^ 2 (- (^ 1 2)))"),
        ("-a * b", "(* (- a) b)"),
        ("- - 1", "(- (- 1))"),
        ("1 - -1", "(- 1 (- 1))"),
        ("(1 + 2) * 3", "(* (+ 1 2) 3)"),
        ("2 * (3 + 4) ^ 2", "(* 2 (^ (+ 3 4) 2))"),
        (
            "1.1 * storm.during.db.call_rate",
            "(* 1.1 storm.during.db.call_rate)",
        ),
        ("max(a, b + 1) / $n", "(/ max(a, (+ b 1)) $n)"),
        (
            "recovery(db, brownout, 1.1 * normal)",
            "recovery(db, brownout, (* 1.1 normal))",
        ),
    ];
    for (text, want) in cases {
        let (e, digits) =
            parse_template_expr(text).unwrap_or_else(|d| panic!("{text}: {}", d.message));
        assert_eq!(sexpr(&e), want, "{text}");
        assert_eq!(digits, None, "{text}");
        assert_eq!(e.span, Span::new(0, text.len()), "{text}: span");
    }
}

#[test]
fn power_binds_tighter_than_unary_minus() {
    // As in mathematics (and Python): `-2 ^ 2` is `-(2 ^ 2)`, not `(-2) ^ 2`.
    let (e, _) = parse_template_expr("-2 ^ 2").unwrap();
    assert_eq!(sexpr(&e), "(- (^ 2 2))");
    // Unary minus still binds tighter than `*`.
    let (e, _) = parse_template_expr("-a * b").unwrap();
    assert_eq!(sexpr(&e), "(* (- a) b)");
}

#[test]
fn template_holes() {
    // (raw template, pieces as text: `[text]` or `{expr:digits}`)
    let cases = [
        ("plain", "[plain]"),
        ("", ""),
        ("{x}", "{x:-}"),
        ("{x:.3}", "{x:3}"),
        ("{ x :.0 }", "{x:0}"),
        ("a {x} b", "[a ]{x:-}[ b]"),
        ("{{x}}", "[{x}]"),
        ("{{{x}}}", "[{]{x:-}[}]"),
        ("}}{{", "[}{]"),
        ("{a.b:.2}/{c:.1}", "{a.b:2}[/]{c:1}"),
        ("tab\\there", "[tab\there]"),
        ("q\\\"q", "[q\"q]"),
        ("é {x} →", "[é ]{x:-}[ →]"),
        ("\\é", "[é]"),
    ];
    for (raw, want) in cases {
        let pieces =
            parse_template(raw, Span::new(0, raw.len())).unwrap_or_else(|d| panic!("{raw}: {d:?}"));
        let got: String = pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => format!("[{t}]"),
                Piece::Hole(e, d) => format!(
                    "{{{}:{}}}",
                    sexpr(e),
                    d.map_or("-".to_string(), |d| d.to_string())
                ),
            })
            .collect();
        assert_eq!(got, want, "{raw:?}");
    }
}

#[test]
fn template_spans_are_file_offsets() {
    // The template starts at byte 100 of some file.
    let raw = "ab {foo.bar + 1:.2}";
    let pieces = parse_template(raw, Span::new(100, 100 + raw.len())).unwrap();
    let Piece::Hole(e, _) = &pieces[1] else {
        panic!("expected a hole, found {:?}", pieces[1]);
    };
    assert_eq!(e.span, Span::new(104, 115));
    let ExprKind::Binary(_, lhs, _) = &e.kind else {
        panic!("expected a sum");
    };
    let ExprKind::Path(ids, _) = &lhs.kind else {
        panic!("expected a path");
    };
    assert_eq!(ids[1].span, Span::new(108, 111));
}

#[test]
fn bad_templates() {
    // (raw, byte offset of the error in the raw text, message start)
    let cases = [
        ("a {x", 2, "unclosed `{`"),
        ("{", 0, "unclosed `{`"),
        ("a } b", 2, "a lone `}`"),
        ("{}", 1, "expected"),
        ("{x +}", 4, "expected"),
        ("{x:.}", 4, "expected a number, found `}`"),
        ("{x:.99}", 2, "99 digits"),
        ("{{x}", 3, "a lone `}`"),
    ];
    for (raw, at, want) in cases {
        let d = match parse_template(raw, Span::new(10, 10 + raw.len())) {
            Ok(p) => panic!("{raw:?} parsed as {p:?}"),
            Err(d) => d,
        };
        assert!(
            d.message.starts_with(want),
            "{raw:?}: {:?} does not start with {want:?}",
            d.message
        );
        assert_eq!(d.span.start, 10 + at, "{raw:?}: {}", d.message);
    }
}

fn value(text: &str) -> Value {
    parse_value(text).unwrap_or_else(|d| panic!("{text}: {}", d.message))
}

#[test]
fn ticks_per_clock() {
    // (value, clock, ticks or the start of the error)
    let cases: [(&str, Clock, Result<u64, &str>); 17] = [
        ("4", Clock::Round, Ok(4)),
        ("4 rounds", Clock::Round, Ok(4)),
        ("1 round", Clock::Round, Ok(1)),
        (
            "200ms",
            Clock::Round,
            Err("`ms` does not fit `clock round`"),
        ),
        ("2s", Clock::Round, Err("`s` does not fit `clock round`")),
        ("1.5 rounds", Clock::Round, Err("the wait is 1.5 rounds,")),
        ("200ms", Clock::Ms, Ok(200)),
        ("2s", Clock::Ms, Ok(2000)),
        ("1.5s", Clock::Ms, Ok(1500)),
        ("2min", Clock::Ms, Ok(120_000)),
        ("1h", Clock::S, Ok(3600)),
        ("1500ms", Clock::S, Err("the wait is 1.5 s,")),
        ("2000ms", Clock::S, Ok(2)),
        (
            "4 rounds",
            Clock::Ms,
            Err("`round` does not fit `clock ms`"),
        ),
        ("4/round", Clock::Round, Err("the wait takes a duration")),
        ("$x", Clock::Round, Err("the wait takes a duration")),
        ("0", Clock::S, Ok(0)),
    ];
    for (text, clock, want) in cases {
        let got = units::ticks(&value(text), clock, "the wait").map_err(|d| d.message);
        match (&got, want) {
            (Ok(a), Ok(b)) => assert_eq!(*a, b, "{text} with {clock:?}"),
            (Err(m), Err(start)) => {
                assert!(m.starts_with(start), "{text} with {clock:?}: {m:?}")
            }
            _ => panic!("{text} with {clock:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn rates_per_clock() {
    let cases: [(&str, Clock, Result<f64, &str>); 12] = [
        ("4/round", Clock::Round, Ok(4.0)),
        ("4/rounds", Clock::Round, Ok(4.0)),
        ("0.25/round", Clock::Round, Ok(0.25)),
        ("12/s", Clock::S, Ok(12.0)),
        ("12/s", Clock::Ms, Ok(0.012)),
        ("5/ms", Clock::Ms, Ok(5.0)),
        ("5/ms", Clock::S, Ok(5000.0)),
        ("120/min", Clock::S, Ok(2.0)),
        ("3600/h", Clock::S, Ok(1.0)),
        ("4/s", Clock::Round, Err("`s` does not fit `clock round`")),
        ("4/round", Clock::Ms, Err("`round` does not fit `clock ms`")),
        ("4/sec", Clock::S, Err("unknown unit `sec` in a rate")),
    ];
    for (text, clock, want) in cases {
        let got = units::per_tick(&value(text), clock, "the rate").map_err(|d| d.message);
        match (&got, want) {
            (Ok(a), Ok(b)) => assert!((a - b).abs() < 1e-12, "{text} with {clock:?}: {a}"),
            (Err(m), Err(start)) => {
                assert!(m.starts_with(start), "{text} with {clock:?}: {m:?}")
            }
            _ => panic!("{text} with {clock:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn unknown_rate_unit_suggests_a_known_one() {
    let d = units::per_tick(&value("4/sec"), Clock::S, "a rate").unwrap_err();
    // The unit word itself is pointed at: `4/` is two bytes.
    assert_eq!(d.span, Span::new(2, 5));
    assert!(
        d.help.as_deref().unwrap_or("").contains("`4/round`"),
        "{d:?}"
    );
}

#[test]
fn whole_per_tick_capacities() {
    let ok = units::whole_per_tick(&value("12/round"), Clock::Round, "a capacity");
    assert_eq!(ok.map_err(|d| d.message), Ok(12));
    let ok = units::whole_per_tick(&value("3000/s"), Clock::Ms, "a capacity");
    assert_eq!(ok.map_err(|d| d.message), Ok(3));
    let err = units::whole_per_tick(&value("12/min"), Clock::S, "a capacity").unwrap_err();
    assert!(
        err.message.contains("must be a whole number"),
        "{}",
        err.message
    );
}

#[test]
fn counts_and_reals() {
    assert_eq!(units::count(&value("3"), "`attempts`").ok(), Some(3));
    assert!(units::count(&value("2.5"), "`attempts`").is_err());
    assert!(units::count(&value("3/round"), "`attempts`").is_err());
    assert_eq!(units::real(&value("1.5"), "a multiplier").ok(), Some(1.5));
    assert!(units::real(&value("2s"), "a multiplier").is_err());
}

#[test]
fn time_units() {
    let cases = [
        ("round", Some(TimeUnit::Round), None),
        ("rounds", Some(TimeUnit::Round), None),
        ("ms", Some(TimeUnit::Ms), Some(1)),
        ("s", Some(TimeUnit::S), Some(1000)),
        ("min", Some(TimeUnit::Min), Some(60_000)),
        ("h", Some(TimeUnit::H), Some(3_600_000)),
        ("sec", None, None),
    ];
    for (text, unit, millis) in cases {
        assert_eq!(TimeUnit::parse(text), unit, "{text}");
        assert_eq!(unit.and_then(TimeUnit::millis), millis, "{text}");
    }
}

#[test]
fn fmt_keeps_a_literal_its_double_holds_only_approximately() {
    let text = "scenario \"big\" {\n  run 10 rounds\n  chain api -> db\n  expect db.calls < 18446744073709551616\n  expect db.calls < 1_000.50\n}\n";
    let out = squall_lang::format::format_source(text).expect("formats");
    assert!(out.contains("< 18446744073709551616\n"), "{out}");
    // Exact literals keep their canonical spelling.
    assert!(out.contains("< 1000.5\n"), "{out}");
}

#[test]
fn an_expect_lines_text_stops_at_its_last_token() {
    // The comments after an `expect` line (and the blank lines around
    // them) belong to nobody: the line's text, shown in the report, is
    // the line as written up to its last token. A `#` inside the line's
    // own comment after the check goes too.
    let text = "scenario \"t\" {\n  clock round\n  run 10 rounds\n\
        source users { rate 1/round  enters db }\n  chain db\n\
        window all 1..10\n\
        expect all.db.call_rate > 0.5   # at least half\n\
        \n  # the next one is about drops\n  # (a second comment line)\n\n\
        expect all.dropped <= 0\n  # trailing comment\n}\n";
    let s = squall_lang::load("t.squall", text)
        .unwrap_or_else(|d| panic!("does not load:\n{}", d.to_plain()));
    let texts: Vec<(&str, usize)> = s
        .report
        .expects
        .iter()
        .map(|e| (e.text.as_str(), e.line))
        .collect();
    assert_eq!(
        texts,
        [
            ("expect all.db.call_rate > 0.5", 7),
            ("expect all.dropped <= 0", 12)
        ]
    );
}

#[test]
fn fmt_round_trips_library_backoffs_and_pushback() {
    // Formatting keeps every library backoff and pushback as written
    // (same syntax tree), and a second pass changes nothing.
    let text = crate::common::input("ok", "library-backoffs");
    let once = squall_lang::format::format_source(&text).expect("formats");
    let twice = squall_lang::format::format_source(&once).expect("formats again");
    assert_eq!(once, twice);
    let a = squall_lang::parse::parse_file(&text).expect("parses");
    let b = squall_lang::parse::parse_file(&once).expect("formatted text parses");
    assert!(squall_lang::format::same_modulo_spans(&a, &b), "{once}");
    for line in [
        "backoff grpc_default = grpc { initial 100ms  multiplier 1.6  max 10s }",
        "backoff envoy_code = envoy {}",
        "pushback grpc",
        "pushback retry_after { max_interval 60s }",
    ] {
        assert!(once.contains(line), "{line} in:\n{once}");
    }
}
