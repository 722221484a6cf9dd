//! Helpers shared by the test modules.

use std::path::{Path, PathBuf};

use squall_lang::{Diagnostics, Scenario};

/// The folder of this crate.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/inputs/<kind>/<name>.squall`, read whole.
pub fn input(kind: &str, name: &str) -> String {
    let path = crate_dir()
        .join("tests/inputs")
        .join(kind)
        .join(format!("{name}.squall"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Loads `inputs/ok/<name>.squall`, failing the test with the rendered
/// diagnostics when it does not load.
pub fn load_ok(name: &str) -> Scenario {
    let text = input("ok", name);
    squall_lang::load(&format!("ok/{name}.squall"), &text)
        .unwrap_or_else(|d| panic!("ok/{name}.squall does not load:\n{}", d.to_plain()))
}

/// Loads `inputs/err/<name>.squall` and returns its diagnostics.
pub fn load_err(name: &str) -> Diagnostics {
    let text = input("err", name);
    match squall_lang::load(&format!("err/{name}.squall"), &text) {
        Ok(_) => panic!("err/{name}.squall loaded without an error"),
        Err(d) => d,
    }
}

/// Loads `text` that must fail, named `test.squall`.
pub fn load_text_err(text: &str) -> Diagnostics {
    match squall_lang::load("test.squall", text) {
        Ok(_) => panic!("loaded without an error:\n{text}"),
        Err(d) => d,
    }
}

/// Every diagnostic rendered by miette without colour, 100 columns wide.
pub fn render(d: &Diagnostics) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100);
    let mut out = String::new();
    for located in d.located() {
        handler
            .render_report(&mut out, &located)
            .expect("rendering into a String cannot fail");
    }
    out
}

/// `(line, column)` of the first `needle` in `text`, 1-based.
pub fn at(text: &str, needle: &str) -> (usize, usize) {
    let i = text.find(needle).expect("needle in text");
    let line = text[..i].matches('\n').count() + 1;
    let col = i - text[..i].rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, col)
}

/// `text` (named `test.squall`) fails with exactly one diagnostic, at the
/// first `needle`, whose message starts with `says`.
pub fn one_error(text: &str, needle: &str, says: &str) {
    let plain = load_text_err(text).to_plain();
    let (line, col) = at(text, needle);
    assert!(
        plain.starts_with(&format!("test.squall:{line}:{col}: error: {says}")),
        "{plain}"
    );
    assert_eq!(plain.matches(": error: ").count(), 1, "{plain}");
}

/// `(line, column)` of every diagnostic, in order.
pub fn positions(d: &Diagnostics) -> Vec<(usize, usize)> {
    d.list.iter().map(|x| x.span.line_col(&d.source)).collect()
}

/// The `.squall` files directly in `dir`, sorted by name.
pub fn squall_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "squall"))
        .collect();
    files.sort();
    files
}

/// True when `SQUALL_LONG_TESTS` is set (to anything but `0` or nothing):
/// the property and fuzz tests then run their long form (`just fuzz`).
pub fn long_tests() -> bool {
    std::env::var("SQUALL_LONG_TESTS").is_ok_and(|v| !v.is_empty() && v != "0")
}
