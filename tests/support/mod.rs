//! Helpers shared by the package's test binaries (`main`, `client`,
//! `degradation`, `study`): finding and loading scenario files, running a
//! study with its accounting checked, and reading reports.
//!
//! One copy for all of them: `tests/main.rs` declares it as `mod support`,
//! the directory binaries with `#[path = "../support/mod.rs"] mod support`.
//! The binaries stay separate (each keeps `cargo test --test NAME` and the
//! insta snapshot names it has always had); each uses part of the helpers,
//! hence the `dead_code` and `unused_imports` allowances.
//!
//! * this file: paths, loading, `--set` settings;
//! * [`study`]: running a study, checking accounts, evaluating metrics;
//! * [`ran`]: a finished study's report as JSON and text ([`Ran`]);
//! * [`report`]: cells of report tables, JSON and printed;
//! * [`cli`]: the built binary, colourless, in a chosen folder.

#![allow(dead_code, unused_imports)]

mod cli;
mod ran;
mod report;
mod study;

use std::path::PathBuf;

use squall_lang::{Scenario, Setting};

pub use cli::*;
pub use ran::*;
pub use report::*;
pub use study::*;

/// A test's result: any error fails the test with its message.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The retry-storm scenario, relative to the package root (as the reports
/// print it).
pub const RETRY_STORM: &str = "scenarios/retry-storm.squall";

/// The package root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Reads a file under the package root.
pub fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// True when `SQUALL_LONG_TESTS` is set (to anything but `0` or nothing):
/// the grid, property and fuzz tests then run their long form (`just fuzz`);
/// by default they run a seeded or strided sample.
pub fn long_tests() -> bool {
    std::env::var("SQUALL_LONG_TESTS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Loads a scenario file of the package, named by its relative path.
pub fn load_file(rel: &str) -> Result<Scenario, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(root().join(rel))?;
    Ok(squall_lang::load(rel, &text)?)
}

/// Loads scenario text written by a test.
pub fn load_text(name: &str, text: &str) -> Result<Scenario, Box<dyn std::error::Error>> {
    squall_lang::load(name, text).map_err(|d| format!("{d}\n--- scenario ---\n{text}").into())
}

/// A `--set name=value` setting, as the CLI builds it.
pub fn setting(name: &str, value: &str) -> Setting {
    Setting {
        name: name.to_string(),
        value: squall_lang::parse::parse_value(value)
            .unwrap_or_else(|d| panic!("`{value}` is not a value: {}", d.message)),
        origin: Some(format!("--set {name}={value}")),
    }
}

/// Erlang C: the probability that an arrival waits in an M/M/c queue with
/// `c` servers and offered load `a = lambda / mu` (the textbook formula,
/// `(a^c / c! * c / (c - a)) / (sum_{k<c} a^k / k! + a^c / c! * c / (c - a))`;
/// the engine's queueing tests keep their own copy, in their own crate).
pub fn erlang_c(c: u32, a: f64) -> f64 {
    let (mut term, mut sum) = (1.0, 0.0);
    for k in 0..c {
        if k > 0 {
            term *= a / f64::from(k);
        }
        sum += term;
    }
    let top = term * a / f64::from(c) * f64::from(c) / (f64::from(c) - a);
    top / (sum + top)
}
