//! `squall fmt` properties: formatting keeps the meaning and the comments,
//! and formatting twice changes nothing; over every file in `scenarios/` and
//! over generated scenarios (a seeded xorshift drives a small grammar walk
//! that also sprinkles comments, blank lines and odd spacing).

use squall_lang::format::{format_source, same_modulo_spans};
use squall_lang::parse::parse_file;

/// Comments of a text, outside strings (the formatter's own lexer is
/// private; this one is independent on purpose).
fn comments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut in_string = false;
        let mut escaped = false;
        for (i, c) in line.char_indices() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_string = false;
                }
            } else if c == '"' {
                in_string = true;
            } else if c == '#' {
                out.push(line[i..].trim_end().to_string());
                break;
            }
        }
    }
    out
}

fn check(name: &str, text: &str) {
    let before =
        parse_file(text).unwrap_or_else(|d| panic!("{name} does not parse: {}\n{text}", d.message));
    let once = format_source(text)
        .unwrap_or_else(|d| panic!("{name}: fmt refused: {}\n{text}", d.message));
    let after = parse_file(&once).unwrap_or_else(|d| {
        panic!(
            "{name}: formatted text does not parse: {}\n{once}",
            d.message
        )
    });
    assert!(
        same_modulo_spans(&before, &after),
        "{name}: meaning changed\n--- input\n{text}\n--- output\n{once}"
    );
    let twice = format_source(&once)
        .unwrap_or_else(|d| panic!("{name}: second fmt refused: {}", d.message));
    assert_eq!(
        twice, once,
        "{name}: formatting is not idempotent\n--- input\n{text}"
    );
    assert_eq!(
        comments(&once),
        comments(text),
        "{name}: comments changed\n--- input\n{text}\n--- output\n{once}"
    );
}

#[test]
fn every_scenario_in_the_repository_formats_losslessly() {
    let files = squall_files("scenarios");
    assert!(!files.is_empty(), "no scenario found");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        check(&f.display().to_string(), &text);
    }
}

#[test]
fn the_starter_scenario_is_already_formatted() {
    let text = include_str!("../../src/cmd/starter.squall").replace("{{name}}", "demo");
    assert_eq!(format_source(&text).map_err(|d| d.message), Ok(text));
}

fn squall_files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "squall") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

// ------------------------------------------------------------ generator --

struct Gen {
    state: u64,
    comments: usize,
}

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.below(list.len() as u64) as usize]
    }

    /// Space between tokens: spaces, line breaks, blank lines, comments.
    fn sep(&mut self) -> String {
        match self.below(20) {
            0 => {
                self.comments += 1;
                format!(
                    "  # note {} with \"quotes\" and {{braces}}\n    ",
                    self.comments
                )
            }
            1 => "\n\n  ".into(),
            2 | 3 => "\n    ".into(),
            4 => "   ".into(),
            _ => " ".into(),
        }
    }

    fn name(&mut self) -> String {
        self.pick(&[
            "db", "api", "edge", "worker_2", "x", "during", "before", "storm", "users", "b9",
        ])
        .to_string()
    }

    fn number(&mut self) -> String {
        match self.below(5) {
            0 => format!("{}.{}", self.below(100), self.below(1000)),
            1 => "1_000".into(),
            2 => "2.50".into(),
            _ => self.below(500).to_string(),
        }
    }

    fn value(&mut self) -> String {
        match self.below(6) {
            0 => format!(
                "{}/{}",
                self.number(),
                self.pick(&["round", "s", "min", "rounds"])
            ),
            1 => format!("{} / s", self.number()),
            2 => format!(
                "{}{}",
                self.number(),
                self.pick(&[" rounds", " round", "ms", " s", "min", "h"])
            ),
            3 => format!("${}", self.name()),
            _ => self.number(),
        }
    }

    fn range(&mut self) -> String {
        format!("{}..{}", self.value(), self.value())
    }

    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 {
            return match self.below(3) {
                0 => self.number(),
                1 => format!("${}", self.name()),
                _ => {
                    let n = 1 + self.below(3);
                    (0..n).map(|_| self.name()).collect::<Vec<_>>().join(".")
                }
            };
        }
        match self.below(7) {
            0 => format!("-{}", self.expr(depth - 1)),
            1 => format!("({})", self.expr(depth - 1)),
            2 => {
                let n = self.below(3);
                let args: Vec<String> = (0..n).map(|_| self.expr(depth - 1)).collect();
                format!(
                    "{}({})",
                    self.pick(&["recovery", "peak", "max", "f"]),
                    args.join(", ")
                )
            }
            3..=5 => {
                let op = self.pick(&["+", "-", "*", "/", "^"]);
                let a = self.expr(depth - 1);
                let b = self.expr(depth - 1);
                format!("{a} {op} {b}")
            }
            _ => self.expr(0),
        }
    }

    fn bound(&mut self) -> String {
        match self.below(3) {
            0 => format!("{}/round", self.number()),
            1 => format!("{} rounds", self.number()),
            _ => self.expr(2),
        }
    }

    fn block(&mut self, head: String, items: Vec<String>) -> String {
        let mut s = format!("{head} {{");
        for i in items {
            let sep = self.sep();
            s.push_str(&sep);
            s.push_str(&i);
        }
        let sep = self.sep();
        s.push_str(&sep);
        s.push('}');
        s
    }

    fn rate(&mut self) -> String {
        if self.chance(40) {
            format!("rate {} during {}", self.value(), self.range())
        } else {
            format!("rate {}", self.value())
        }
    }

    fn item(&mut self) -> String {
        match self.below(14) {
            0 => format!("clock {}", self.pick(&["round", "ms", "s"])),
            1 => format!("run {}", self.value()),
            2 => format!("seed {}", self.below(1 << 40)),
            3 => format!("param {} = {}", self.name(), self.value()),
            4 => {
                let n = self.below(4);
                let props = (0..n)
                    .map(|_| match self.below(3) {
                        0 => self.rate(),
                        1 => format!("enters {}", self.name()),
                        _ => format!("arrivals {}", self.pick(&["uniform", "poisson"])),
                    })
                    .collect();
                let head = format!("source {}", self.name());
                self.block(head, props)
            }
            5 => {
                let n = 1 + self.below(4);
                let names: Vec<String> = (0..n).map(|_| self.name()).collect();
                format!("chain {}", names.join(" -> "))
            }
            6 => {
                let n = 1 + self.below(3);
                let names: Vec<String> = (0..n).map(|_| self.name()).collect();
                let mut props = Vec::new();
                for _ in 0..self.below(3) {
                    if self.chance(50) {
                        props.push(format!("capacity {}", self.value()));
                    } else {
                        let mut inner = Vec::new();
                        if self.chance(80) {
                            inner.push(format!("attempts {}", self.value()));
                        }
                        if self.chance(80) {
                            inner.push(if self.chance(50) {
                                format!("backoff fixed {}", self.value())
                            } else {
                                let mut b = format!("backoff exponential {}", self.value());
                                if self.chance(50) {
                                    b.push_str(&format!(" x {}", self.value()));
                                }
                                if self.chance(50) {
                                    b.push_str(&format!(" cap {}", self.value()));
                                }
                                b
                            });
                        }
                        props.push(self.block("retry".into(), inner));
                    }
                }
                self.block(format!("service {}", names.join(", ")), props)
            }
            7 => {
                let n = self.below(4);
                let props = (0..n)
                    .map(|_| match self.below(3) {
                        0 => format!("on {}", self.name()),
                        1 => format!("during {}", self.range()),
                        _ => format!("capacity {}", self.value()),
                    })
                    .collect();
                let head = format!("fault {}", self.name());
                self.block(head, props)
            }
            8 => format!("window {} {}", self.name(), self.range()),
            9 => {
                let n = self.below(4);
                let items = (0..n)
                    .map(|_| match self.below(3) {
                        0 => format!("set {} = {}", self.name(), self.value()),
                        1 => format!("without {}", self.name()),
                        _ => {
                            let rates = (0..self.below(3)).map(|_| self.rate()).collect();
                            let head = format!("source {}", self.name());
                            self.block(head, rates)
                        }
                    })
                    .collect();
                let head = if self.chance(50) {
                    format!("variant {} \"label {}\"", self.name(), self.below(9))
                } else {
                    format!("variant {}", self.name())
                };
                self.block(head, items)
            }
            10 => {
                let mut items: Vec<String> = (0..self.below(3))
                    .map(|_| {
                        let vals: Vec<String> =
                            (0..1 + self.below(3)).map(|_| self.value()).collect();
                        let trailing = if self.chance(30) { "," } else { "" };
                        format!("{} in [{}{trailing}]", self.name(), vals.join(", "))
                    })
                    .collect();
                if self.chance(50) {
                    items.push(format!("variant {}", self.name()));
                }
                let head = format!("sweep {} \"s\"", self.name());
                self.block(head, items)
            }
            11 => {
                let n = self.below(5);
                let items = (0..n).map(|_| self.report_item()).collect();
                self.block("report".into(), items)
            }
            _ => {
                let lhs = self.expr(2);
                match self.below(3) {
                    0 => format!(
                        "expect {lhs} {} {}",
                        self.pick(&["<", "<=", ">", ">=", "==", "!="]),
                        self.bound()
                    ),
                    1 => format!("expect {lhs} in {}..{}", self.bound(), self.bound()),
                    _ => {
                        let tol = if self.chance(50) {
                            format!("{}%", self.number())
                        } else {
                            self.bound()
                        };
                        format!("expect {lhs} == {} within {tol}", self.bound())
                    }
                }
            }
        }
    }

    fn report_item(&mut self) -> String {
        match self.below(4) {
            0 => format!("measure {} = {}", self.name(), self.expr(3)),
            1 => format!(
                "line \"value {{{}:.1}} and \\\"{{{{x}}}}\\\" # not a comment\"",
                self.expr(1)
            ),
            2 => {
                let against = if self.chance(50) {
                    format!(" against {}", self.name())
                } else {
                    String::new()
                };
                format!(
                    "diagnose {} in {} vs {}{against}",
                    self.name(),
                    self.name(),
                    self.name()
                )
            }
            _ => {
                let mut props = Vec::new();
                if self.chance(80) {
                    let axis = |g: &mut Gen| match g.below(3) {
                        0 => "variants".to_string(),
                        1 => format!("windows [{}, {}]", g.name(), g.name()),
                        _ => format!("sweep {}", g.name()),
                    };
                    let mut rows = format!("rows {}", axis(self));
                    if self.chance(50) {
                        rows.push_str(&format!(" x {}", axis(self)));
                    }
                    props.push(rows);
                }
                if self.chance(50) {
                    props.push(format!("at {}", self.name()));
                }
                if self.chance(50) {
                    props.push("label \"case: window\"".into());
                }
                for _ in 0..self.below(4) {
                    let digits = if self.chance(50) {
                        format!(" :.{}", self.below(5))
                    } else {
                        String::new()
                    };
                    props.push(format!(
                        "column \"c|{}\" = {}{digits}",
                        self.below(9),
                        self.expr(2)
                    ));
                }
                let head = format!("table \"t {}\"", self.below(9));
                self.block(head, props)
            }
        }
    }

    fn scenario(&mut self) -> String {
        let mut s = String::new();
        if self.chance(50) {
            s.push_str("# a header comment\n#\n# more header\n\n");
        }
        let items = (0..self.below(12)).map(|_| self.item()).collect();
        s.push_str(&self.block("scenario \"generated\"".into(), items));
        if self.chance(30) {
            s.push_str("\n# trailing comment");
        }
        s.push('\n');
        s
    }
}

#[test]
fn generated_scenarios_format_losslessly() {
    let mut g = Gen {
        state: 0x9e37_79b9_7f4a_7c15,
        comments: 0,
    };
    // A seeded sample by default; the long run with `SQUALL_LONG_TESTS=1`.
    let count = if crate::support::long_tests() {
        400
    } else {
        120
    };
    for i in 0..count {
        let text = g.scenario();
        check(&format!("generated scenario {i}"), &text);
    }
}
