//! Bad input never panics, never hangs, never overflows the stack.
//!
//! Every file in `scenarios/` and every `inputs/ok` file is cut at character
//! boundaries, has lines deleted, and gets seeded random edits; `load` must
//! return (`Ok` or `Err`) for each. A panic is caught and reported with the
//! input that caused it.
//!
//! Nothing here reads a clock: the work is bounded by counts and a fixed
//! seed, so a slow machine makes the tests slower, never red. By default a
//! sample runs (every 64th cut, every 8th deleted line, 20 edits a file);
//! `SQUALL_LONG_TESTS=1` (`just fuzz`) runs every cut, every line and 800
//! edits a file. A hang shows as a test that does not finish (cargo names
//! it after 60 s).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use crate::common::{crate_dir, load_text_err, long_tests, squall_files};

/// How much of the mangling to do: all of it, or a seeded sample.
struct Budget {
    /// Cut at every `cut_stride`-th character boundary.
    cut_stride: usize,
    /// Delete every `line_stride`-th line in turn.
    line_stride: usize,
    /// Random edits per seed file.
    edits_per_file: usize,
    /// Render the diagnostics of every `render_stride`-th cut with miette.
    render_stride: usize,
}

impl Budget {
    fn new() -> Budget {
        if long_tests() {
            Budget {
                cut_stride: 1,
                line_stride: 1,
                edits_per_file: 800,
                render_stride: 16,
            }
        } else {
            Budget {
                cut_stride: 64,
                line_stride: 8,
                edits_per_file: 20,
                render_stride: 128,
            }
        }
    }
}

/// A tiny xorshift64* generator: deterministic, no dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Inputs to mangle: the example scenarios and the valid test inputs.
fn seeds() -> Vec<(String, String)> {
    let mut dirs: Vec<PathBuf> = vec![crate_dir().join("../../scenarios")];
    dirs.push(crate_dir().join("tests/inputs/ok"));
    let mut out = Vec::new();
    for dir in dirs {
        for path in squall_files(&dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), text));
        }
    }
    assert!(out.len() >= 2, "no seed files found");
    out
}

/// Calls `load` on `text`, returning the panic message if it panicked.
/// With `render`, also renders the diagnostics with miette (slower).
fn try_load(text: &str, render: bool) -> Option<String> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let result = squall_lang::load("fuzz.squall", text);
        // Rendering must not panic either.
        if let Err(d) = &result {
            let _ = d.to_plain();
            if render {
                let _ = crate::common::render(d);
            }
        }
    }));
    r.err().map(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic".into())
    })
}

/// Pieces a random edit may insert: grammar punctuation, keywords, and
/// characters of more than one byte (which trip byte-offset arithmetic).
const PIECES: [&str; 28] = [
    "{", "}", "(", ")", "[", "]", "\"", "\\", "$", "..", "->", ",", "/", ":.", "#", "\n", " ", "0",
    "1.5", "x", "é", "\u{a0}", "→", "🦀", "{{", "}}", "run 0", "rate",
];

fn mutate(text: &str, rng: &mut XorShift) -> String {
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = bounds[rng.below(bounds.len())];
        match rng.below(4) {
            // Delete one character.
            0 => {
                if let Some(c) = s[at..].chars().next() {
                    s.replace_range(at..at + c.len_utf8(), "");
                }
            }
            // Insert a piece.
            1 => s.insert_str(at, PIECES[rng.below(PIECES.len())]),
            // Replace one byte with a random ASCII byte.
            2 => {
                if let Some(c) = s[at..].chars().next() {
                    let b = (rng.below(95) + 32) as u8 as char;
                    s.replace_range(at..at + c.len_utf8(), &b.to_string());
                }
            }
            // Duplicate a short stretch.
            _ => {
                let end = bounds
                    .iter()
                    .copied()
                    .find(|&e| e >= at + rng.below(40))
                    .unwrap_or(s.len());
                let copy = s[at..end].to_string();
                s.insert_str(at, &copy);
            }
        }
    }
    s
}

/// Every mangled input; returns the failures (input, panic message).
fn mangle_all(budget: &Budget) -> Vec<(String, String)> {
    let mut failures = Vec::new();
    let check = |text: String, render: bool, failures: &mut Vec<(String, String)>| {
        if let Some(msg) = try_load(&text, render) {
            failures.push((text, msg));
        }
    };
    let mut rng = XorShift(0x5EED_F00D_CAFE_0001);
    for (_, text) in seeds() {
        // (a) every prefix, cut at a character boundary.
        for (n, (i, _)) in text.char_indices().enumerate() {
            if n % budget.cut_stride == 0 {
                check(
                    text[..i].to_string(),
                    n % budget.render_stride == 0,
                    &mut failures,
                );
            }
        }
        // (b) each line deleted in turn.
        let lines: Vec<&str> = text.lines().collect();
        for skip in (0..lines.len()).step_by(budget.line_stride) {
            let t: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| *l)
                .collect();
            check(t.join("\n"), true, &mut failures);
        }
        // (c) seeded random edits.
        for _ in 0..budget.edits_per_file {
            check(mutate(&text, &mut rng), true, &mut failures);
        }
    }
    failures
}

#[test]
fn mangled_inputs_never_panic_or_hang() {
    // Quiet the default hook: each caught panic is reported below instead.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let failures = mangle_all(&Budget::new());
    std::panic::set_hook(hook);
    if let Some((text, msg)) = failures.first() {
        panic!(
            "{} mangled inputs panicked; the first, with `{msg}`:\n{text}",
            failures.len()
        );
    }
}

/// Runs `f` on a thread with the default 2 MiB test stack (whatever
/// `RUST_MIN_STACK` says) and returns its result. A stack overflow aborts
/// the whole binary, which fails the test run too. No time limit: a hang is
/// a test that does not finish.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
}

fn wrap(body: &str) -> String {
    format!(
        "scenario \"deep\" {{\n  run 10\n  source s {{ rate 1/round enters a }}\n  chain a -> b\n{body}\n}}\n"
    )
}

#[test]
fn deep_parentheses_are_an_error_not_a_stack_overflow() {
    // 500 is the dangerous middle: shallow enough for pest's own stack guard
    // to let it through, deep enough to overflow the recursive passes after
    // it without the nesting limit. 10_000 is past pest's guard too.
    for depth in [500, 10_000] {
        let body = format!("  expect {}1{} > 0", "(".repeat(depth), ")".repeat(depth));
        let d = on_small_stack(move || load_text_err(&wrap(&body)));
        assert!(
            d.to_plain().contains("more than 64 open parentheses"),
            "{}",
            d.to_plain()
        );
        // It points at the first parenthesis past the limit: `  expect ` is
        // 9 columns, then 64 parentheses.
        assert_eq!(d.list[0].span.line_col(&d.source), (5, 9 + 65));
    }
}

#[test]
fn parentheses_up_to_the_limit_load() {
    let depth = squall_lang::parse::MAX_NESTING;
    let body = format!("  expect {}1{} > 0", "(".repeat(depth), ")".repeat(depth));
    let r = on_small_stack(move || squall_lang::load("deep.squall", &wrap(&body)).is_ok());
    assert!(r);
    // And the same number of operators.
    let ops = squall_lang::parse::MAX_OPERATORS;
    let body = format!("  expect 2{} > 0", "^1".repeat(ops));
    let r = on_small_stack(move || squall_lang::load("long.squall", &wrap(&body)).is_ok());
    assert!(r);
}

#[test]
fn deep_parentheses_in_a_line_template_are_an_error() {
    let depth = 10_000;
    let body = format!(
        "  report {{ line \"{{{}1{}}}\" }}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let d = on_small_stack(move || load_text_err(&wrap(&body)));
    assert!(
        d.to_plain().contains("more than 64 open parentheses"),
        "{}",
        d.to_plain()
    );
}

#[test]
fn long_chains_of_operators_are_an_error_not_a_stack_overflow() {
    for op in ["+", "^", "*-"] {
        let body = format!("  expect 1{} > 0", format!("{op}1").repeat(10_000));
        let d = on_small_stack(move || load_text_err(&wrap(&body)));
        assert!(d.to_plain().contains("operators"), "{op}: {}", d.to_plain());
    }
    let body = format!("  expect {}1 > 0", "-".repeat(10_000));
    let d = on_small_stack(move || load_text_err(&wrap(&body)));
    assert!(d.to_plain().contains("operators"), "{}", d.to_plain());
}

/// Lines of a megabyte with `SQUALL_LONG_TESTS=1`, a quarter of one by
/// default (still 64 times the widest line a diagnostic quotes, and as many
/// nested parentheses).
#[test]
fn megabyte_lines_are_an_error() {
    let mb: usize = if long_tests() { 1 << 20 } else { 1 << 18 };
    let cases: Vec<(&str, String)> = vec![
        (
            "an expression",
            format!("  expect 1{} > 0", "+1".repeat(mb / 2)),
        ),
        ("parentheses", format!("  expect {}", "(".repeat(mb))),
        ("garbage", format!("  {}", "@".repeat(mb))),
        ("a name", format!("  {}", "a".repeat(mb))),
        ("a string", format!("  report {{ line \"{}", "a".repeat(mb))),
        ("a number", format!("  window w 1..{}", "9".repeat(mb))),
    ];
    for (what, body) in cases {
        let text = wrap(&body);
        let d = on_small_stack(move || load_text_err(&text));
        assert!(!d.list.is_empty(), "{what}");
        let _ = d.to_plain();
    }
}

/// One chain of many nodes loads. Name lookups must not be quadratic: with
/// `SQUALL_LONG_TESTS=1` the chain has 150 000 nodes (over a megabyte),
/// where a quadratic lookup would not finish; by default 30 000.
#[test]
fn a_long_chain_loads() {
    let n = if long_tests() { 150_000 } else { 30_000 };
    let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    let text = wrap(&format!("  chain b -> {}", names.join(" -> ")));
    let r = on_small_stack(move || squall_lang::load("chain.squall", &text).map(|s| s.nodes.len()));
    assert_eq!(r.map_err(|d| d.to_plain()), Ok(n + 2));
}

/// Many windows with distinct names load. Duplicate checks must not be
/// quadratic: 20 000 windows with `SQUALL_LONG_TESTS=1`, 5 000 by default.
#[test]
fn many_small_declarations_load() {
    let n = if long_tests() { 20_000 } else { 5_000 };
    let body: String = (0..n).map(|i| format!("  window w{i} 1..10\n")).collect();
    let text = wrap(&body);
    let r =
        on_small_stack(move || squall_lang::load("many.squall", &text).map(|s| s.windows.len()));
    assert_eq!(r.map_err(|d| d.to_plain()), Ok(n));
}
