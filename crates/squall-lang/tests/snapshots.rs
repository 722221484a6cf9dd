//! Snapshots of every input file under `inputs/`, in the style of Tera's and
//! gleam's parser tests: one file per case, the rendered output pinned.
//!
//! Review changes with `cargo insta review`; never accept a snapshot unread.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::render;

/// `err/<file name>`: the name diagnostics print, the same on every machine.
fn display_name(kind: &str, path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{kind}/{file}")
}

#[test]
fn err() {
    insta::glob!("inputs/err/*.squall", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let name = display_name("err", path);
        let d = match squall_lang::load(&name, &text) {
            Ok(_) => panic!("{name} loaded without an error"),
            Err(d) => d,
        };
        assert!(!d.list.is_empty(), "{name}: an error with no diagnostic");
        let (rendered, plain) = (render(&d), d.to_plain());
        // Every diagnostic names the file, line and column, in both forms,
        // and says what is wrong.
        for x in &d.list {
            let (line, col) = x.span.line_col(&d.source);
            let at = format!("{name}:{line}:{col}");
            assert!(plain.contains(&format!("{at}: ")), "{at}: {plain}");
            assert!(rendered.contains(&format!("[{at}]")), "{at}: {rendered}");
            assert!(!x.message.trim().is_empty(), "{at}: no message");
        }
        let snapshot = format!("{rendered}\n---- plain ----\n{plain}");
        insta::assert_snapshot!(snapshot);
    });
}

#[test]
fn ok() {
    insta::glob!("inputs/ok/*.squall", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let name = display_name("ok", path);
        let scenario = squall_lang::load(&name, &text)
            .unwrap_or_else(|d| panic!("{name} does not load:\n{}", d.to_plain()));
        insta::assert_snapshot!(summary(&scenario));
    });
}

/// What a valid file resolved to: its graph, runs and base model.
fn summary(s: &squall_lang::Scenario) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "scenario: {:?}  clock: {:?}  seed: {}",
        s.name, s.clock, s.seed
    )
    .unwrap();
    writeln!(out, "nodes:").unwrap();
    for n in &s.nodes {
        let down = n.downstream.map_or("-", |d| s.nodes[d].name.as_str());
        writeln!(out, "  {} -> {}", n.name, down).unwrap();
    }
    let params: Vec<&str> = s.params.keys().map(String::as_str).collect();
    writeln!(out, "params: {params:?}").unwrap();
    let sources: Vec<&str> = s.sources.iter().map(|x| x.name.as_str()).collect();
    writeln!(out, "sources: {sources:?}").unwrap();
    let windows: Vec<&str> = s.windows.iter().map(|(n, _)| n.as_str()).collect();
    writeln!(out, "windows: {windows:?}").unwrap();
    let variants: Vec<String> = s
        .variants
        .iter()
        .map(|v| format!("{} ({:?})", v.name, v.label))
        .collect();
    writeln!(
        out,
        "variants: {variants:?}{}",
        if s.implicit_variant {
            " (implicit)"
        } else {
            ""
        }
    )
    .unwrap();
    for sweep in &s.sweeps {
        writeln!(
            out,
            "sweep {}: {} points from `{}`",
            sweep.name,
            sweep.points().len(),
            s.variants[sweep.base].name
        )
        .unwrap();
    }
    writeln!(out, "runs: {}", s.all_runs().len()).unwrap();
    writeln!(
        out,
        "report: {} measures, {} items, {} expects",
        s.report.measures.len(),
        s.report.items.len(),
        s.report.expects.len()
    )
    .unwrap();
    let model = s
        .model(&squall_lang::Overrides::default())
        .unwrap_or_else(|d| panic!("base model does not resolve:\n{}", d.to_plain()));
    let pretty = ron::ser::PrettyConfig::default().struct_names(true);
    writeln!(out, "base model:").unwrap();
    out.push_str(&ron::ser::to_string_pretty(&model, pretty).unwrap());
    out.push('\n');
    out
}
