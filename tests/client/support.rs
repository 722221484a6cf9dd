//! Helpers: run scenario text, read the report as JSON, and reference
//! implementations written from the seed document's definitions (its
//! JavaScript), not from squall's code.

use std::path::PathBuf;

use serde_json::Value;
use squall_engine::Observations;
use squall_report::words;
use squall_report::{Run, Study, StudyOptions};

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Reads a file under the workspace root.
pub fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A finished study: the report as JSON and as text, and every run.
pub struct Ran {
    pub name: String,
    pub json: Value,
    pub text: String,
    pub runs: Vec<Run>,
}

/// Loads and runs scenario text; every run's accounting must balance.
pub fn run(name: &str, text: &str) -> Ran {
    let scenario = squall_lang::load(name, text)
        .unwrap_or_else(|d| panic!("{name} does not load:\n{}", d.to_plain()));
    let study = Study::run(&scenario, StudyOptions::default())
        .unwrap_or_else(|e| panic!("{name} does not run: {e}"));
    for run in study.runs.values() {
        let a = run.obs.accounting;
        assert!(
            a.balances(),
            "{name}: run {:?} does not account for every request: {a:?}",
            run.key
        );
    }
    let report = study.report();
    let json: Value = serde_json::from_str(&report.to_json()).expect("the report's JSON parses");
    Ran {
        name: name.to_string(),
        json,
        text: report.to_text(),
        runs: study.runs.values().cloned().collect(),
    }
}

/// Runs a scenario file of `scenarios/`.
pub fn run_file(relative: &str) -> Ran {
    run(relative, &read(relative))
}

/// A JSON cell as the text report prints it.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Null => "—".to_string(),
        other => other.to_string(),
    }
}

impl Ran {
    fn block(&self, title: &str) -> &Value {
        let blocks = self.json["blocks"].as_array().expect("blocks");
        blocks
            .iter()
            .find(|b| b["kind"] == "table" && b["title"] == title)
            .unwrap_or_else(|| {
                let titles: Vec<&Value> = blocks.iter().map(|b| &b["title"]).collect();
                panic!(
                    "{}: no table titled {title:?}; tables: {titles:?}",
                    self.name
                )
            })
    }

    /// The rows of the table titled `title`, each cell as printed.
    pub fn table(&self, title: &str) -> Vec<Vec<String>> {
        self.block(title)["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r.as_array().expect("a row").iter().map(cell).collect())
            .collect()
    }

    /// The column headings of the table titled `title`.
    pub fn columns(&self, title: &str) -> Vec<String> {
        self.block(title)["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .map(cell)
            .collect()
    }

    /// Every `line` block's text, in order.
    pub fn lines(&self) -> Vec<String> {
        self.json["blocks"]
            .as_array()
            .expect("blocks")
            .iter()
            .filter(|b| b["kind"] == "line")
            .map(|b| b["text"].as_str().expect("a line's text").to_string())
            .collect()
    }

    /// True when some line reads exactly `text`.
    pub fn has_line(&self, text: &str) -> bool {
        self.lines().iter().any(|l| l == text)
    }

    /// The observations of the only run.
    pub fn obs(&self) -> &Observations {
        assert_eq!(self.runs.len(), 1, "{}: expected one run", self.name);
        &self.runs[0].obs
    }

    /// The operations of the first sequential source.
    pub fn ops(&self) -> Vec<Op> {
        let obs = self.obs();
        let ops = obs
            .ops
            .iter()
            .find(|o| !o.is_empty())
            .unwrap_or_else(|| panic!("{}: no operations ran", self.name));
        let unit = self.runs[0].model.clock.unit_name();
        ops.iter()
            .map(|r| Op {
                label: r.label.clone(),
                tries: r.tries,
                outcome: words::answer(r.answer, unit),
                waits: r.waits.clone(),
                start: r.start,
                end: r.end,
            })
            .collect()
    }

    /// The breaker trace of the node called `node`, in the report's words.
    pub fn trace(&self, node: &str) -> Vec<Traced> {
        let obs = self.obs();
        let i = obs
            .nodes
            .iter()
            .position(|n| n.name == node)
            .unwrap_or_else(|| panic!("{}: no node `{node}`", self.name));
        let unit = self.runs[0].model.clock.unit_name();
        obs.traces[i]
            .iter()
            .map(|r| Traced {
                time: r.time,
                sent: r.sent,
                scope: words::trace_scope(r, &obs.paths).to_string(),
                before: words::state(r.before),
                outcome: words::trace_outcome(r, unit),
                after: words::state(r.after),
            })
            .collect()
    }

    /// Calls the node called `node` saw over the whole run.
    pub fn calls(&self, node: &str) -> u64 {
        let obs = self.obs();
        let n = obs
            .nodes
            .iter()
            .find(|n| n.name == node)
            .unwrap_or_else(|| panic!("{}: no node `{node}`", self.name));
        n.calls.iter().map(|&c| u64::from(c)).sum()
    }
}

/// One operation, in the terms tests compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    pub label: String,
    pub tries: u32,
    pub outcome: String,
    pub waits: Vec<u64>,
    pub start: u64,
    pub end: u64,
}

/// One breaker decision, in the words the trace prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traced {
    pub time: u64,
    pub sent: bool,
    pub scope: String,
    pub before: &'static str,
    pub outcome: String,
    pub after: &'static str,
}

/// `(label, tries, outcome, waits)` of each operation.
pub fn summary(ops: &[Op]) -> Vec<(String, u32, String, Vec<u64>)> {
    ops.iter()
        .map(|o| (o.label.clone(), o.tries, o.outcome.clone(), o.waits.clone()))
        .collect()
}

/// Builds an expected operation summary row.
pub fn op(
    label: &str,
    tries: u32,
    outcome: &str,
    waits: &[u64],
) -> (String, u32, String, Vec<u64>) {
    (
        label.to_string(),
        tries,
        outcome.to_string(),
        waits.to_vec(),
    )
}

// ------------------------------------------------------------ references --

/// mulberry32 as the document's JavaScript (`uretec`) computes it, written
/// from that code with JavaScript's number semantics: `>>> 0` and
/// `Math.imul` are reductions modulo 2^32, done here in 64-bit arithmetic.
#[derive(Debug, Clone)]
pub struct JsMulberry32 {
    a: u64,
}

const MOD32: u64 = 0xffff_ffff;

/// `Math.imul(x, y) >>> 0`: the low 32 bits of the product.
fn imul(x: u64, y: u64) -> u64 {
    ((x & MOD32) * (y & MOD32)) & MOD32
}

impl JsMulberry32 {
    /// `uretec(tohum)`: `a = tohum >>> 0`.
    pub fn new(seed: u32) -> Self {
        JsMulberry32 { a: u64::from(seed) }
    }

    /// The generator's output before the division by 2^32.
    pub fn next_raw(&mut self) -> u64 {
        self.a = (self.a + 0x6d2b_79f5) & MOD32;
        let a = self.a;
        let t = imul(a ^ (a >> 15), 1 | a);
        let t = ((t + imul(t ^ (t >> 7), 61 | t)) & MOD32) ^ t;
        (t ^ (t >> 14)) & MOD32
    }

    /// `rastgele()`: a float in `[0, 1)`.
    pub fn next(&mut self) -> f64 {
        self.next_raw() as f64 / 4_294_967_296.0
    }
}

/// JavaScript's `Math.round` for the non-negative values of backoff waits.
pub fn js_round(x: f64) -> u64 {
    (x + 0.5).floor() as u64
}

/// The exponential bound before retry `n` (1-based, the document's `n + 1`):
/// `min(cap, base * multiplier^(n-1))`.
pub fn bound(base: f64, multiplier: f64, cap: Option<f64>, n: u32) -> f64 {
    let e = base * multiplier.powf(f64::from(n) - 1.0);
    cap.map_or(e, |c| e.min(c))
}

/// A backoff policy as the tests describe it (times in ticks).
#[derive(Debug, Clone, Copy)]
pub enum Policy {
    Fixed(u64),
    Exponential { base: u64, m: f64, cap: Option<u64> },
    Full { base: u64, m: f64, cap: Option<u64> },
    Equal { base: u64, m: f64, cap: Option<u64> },
    Decorrelated { base: u64, cap: Option<u64> },
}

impl Policy {
    /// True for the jittered policies, which draw one number per wait.
    pub fn draws(self) -> bool {
        !matches!(self, Policy::Fixed(_) | Policy::Exponential { .. })
    }

    /// The policy in the scenario language, times in `unit`, drawing from
    /// `rng` when it is jittered.
    pub fn text(self, unit: &str, rng: &str) -> String {
        let cap = |c: Option<u64>| c.map_or(String::new(), |c| format!(" cap {c}{unit}"));
        let rng = if rng.is_empty() {
            String::new()
        } else {
            format!(" rng {rng}")
        };
        match self {
            Policy::Fixed(w) => format!("fixed {w}{unit}"),
            Policy::Exponential { base, m, cap: c } => {
                format!("exponential {base}{unit} x {m}{}", cap(c))
            }
            Policy::Full { base, m, cap: c } => {
                format!("full_jitter {base}{unit} x {m}{}{rng}", cap(c))
            }
            Policy::Equal { base, m, cap: c } => {
                format!("equal_jitter {base}{unit} x {m}{}{rng}", cap(c))
            }
            Policy::Decorrelated { base, cap: c } => {
                format!("decorrelated {base}{unit}{}{rng}", cap(c))
            }
        }
    }

    /// The wait before retry `n` given the draw `r` and the previous wait of
    /// the same loop (decorrelated only), from the formulas:
    ///
    /// * fixed: the wait; exponential: the bound `e`;
    /// * full jitter: `round(r * e)`;
    /// * equal jitter: `round(e/2 + r * e/2)`;
    /// * decorrelated: `min(cap, round(base + r * (3 * prev - base)))`, `prev`
    ///   starting at `base`.
    pub fn wait(self, n: u32, r: f64, prev: Option<u64>) -> u64 {
        let f = |x: u64| x as f64;
        match self {
            Policy::Fixed(w) => w,
            Policy::Exponential { base, m, cap } => js_round(bound(f(base), m, cap.map(f), n)),
            Policy::Full { base, m, cap } => js_round(r * bound(f(base), m, cap.map(f), n)),
            Policy::Equal { base, m, cap } => {
                let e = bound(f(base), m, cap.map(f), n);
                js_round(e / 2.0 + r * e / 2.0)
            }
            Policy::Decorrelated { base, cap } => {
                let prev = f(prev.unwrap_or(base));
                let w = js_round(f(base) + r * (prev * 3.0 - f(base)));
                cap.map_or(w, |c| w.min(c))
            }
        }
    }
}

/// A jittered retry loop's waits: one draw from `g` per retry.
pub struct Loop<'g> {
    pub g: &'g mut JsMulberry32,
    pub policy: Policy,
    prev: Option<u64>,
}

impl<'g> Loop<'g> {
    pub fn new(g: &'g mut JsMulberry32, policy: Policy) -> Self {
        Loop {
            g,
            policy,
            prev: None,
        }
    }

    /// The wait before retry `n` (1 = after the first failed try).
    pub fn wait(&mut self, n: u32) -> u64 {
        let r = if self.policy.draws() {
            self.g.next()
        } else {
            0.0
        };
        let w = self.policy.wait(n, r, self.prev);
        self.prev = Some(w);
        w
    }
}
