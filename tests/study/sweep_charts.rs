//! A sweep's charts end to end: `squall sweep --charts DIR` (and `squall
//! merge --charts`, and `squall run --charts` for a report's sweep table)
//! write one SVG per numeric column, lines over the first param, a heat map
//! for two params, bands for replication intervals; every SVG parses as
//! XML and is the same bytes on every run; markdown output shows them.

use std::path::Path;

use crate::support::{root, run_in};

const STORM: &str = "scenarios/retry-storm.squall";

fn squall(args: &[&str]) -> String {
    let (code, out, err) = run_in(&root(), args);
    assert_eq!(code, 0, "squall {args:?}: {err}");
    out
}

/// The SVG files of a folder, by name, in order.
fn svgs(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, std::fs::read_to_string(&p).unwrap_or_default())
        })
        .collect();
    out.sort();
    out
}

fn parse(name: &str, svg: &str) {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{name} is not XML: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg", "{name}");
}

/// Elements of a tag whose `attr` is `value`.
fn count(svg: &str, tag: &str, attr: &str, value: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}"));
    doc.descendants()
        .filter(|n| n.tag_name().name() == tag && n.attribute(attr) == Some(value))
        .count()
}

/// The texts a chart shows, trimmed.
fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}"));
    doc.descendants()
        .filter(|n| n.tag_name().name() == "text")
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

fn shows(svg: &str, text: &str) -> bool {
    texts(svg).iter().any(|t| t == text)
}

fn grid(dir: &Path, extra: &[&str]) -> String {
    let charts = dir.join("charts").display().to_string();
    let mut args = vec![
        "sweep",
        STORM,
        "--vary",
        "attempts=1,2,3",
        "--vary",
        "spacing=2,4",
        "--charts",
        &charts,
    ];
    args.extend_from_slice(extra);
    squall(&args)
}

#[test]
fn a_two_param_sweep_draws_lines_and_a_heat_map_per_column_byte_stable() {
    let a = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let b = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    grid(a.path(), &[]);
    grid(b.path(), &["--jobs", "1"]);
    let (first, second) = (
        svgs(&a.path().join("charts")),
        svgs(&b.path().join("charts")),
    );
    let names: Vec<&str> = first.iter().map(|(n, _)| n.as_str()).collect();
    // Five columns, each as lines over attempts and as a heat map.
    assert_eq!(names.len(), 10, "{names:?}");
    assert_eq!(names[0], "01-calls-round-by-attempts.svg");
    assert_eq!(names[1], "02-calls-round-heat-map.svg");
    assert_eq!(first, second, "same study, same bytes");
    for (name, svg) in &first {
        parse(name, svg);
    }
    let lines = &first[0].1;
    // One line (and its legend entry) per spacing, each with a marker per
    // attempts value.
    assert!(
        count(lines, "polyline", "stroke", "#1F77B4") >= 2,
        "spacing=2"
    );
    assert!(
        count(lines, "polyline", "stroke", "#D62728") >= 2,
        "spacing=4"
    );
    assert!(shows(lines, "spacing=2") && shows(lines, "spacing=4"));
    assert!(shows(lines, "calls/round by attempts") && shows(lines, "attempts"));
    let heat = &first[1].1;
    // The lowest cells (4 calls/round at attempts=1) take the scale's
    // first colour, the highest (47.5) its last.
    let cells = |fill: &str| count(heat, "rect", "fill", fill);
    assert!(cells("#440154") >= 2 && cells("#FDE725") >= 1, "{heat}");
    assert!(shows(heat, "47.5") && shows(heat, "22.333"));
    // Its data beside it, full precision.
    let csv = std::fs::read_to_string(a.path().join("charts/02-calls-round-heat-map.csv"))
        .unwrap_or_default();
    assert_eq!(
        csv.lines().collect::<Vec<_>>(),
        [
            "spacing \\ attempts,1,2,3",
            "2,4,27.166666666666668,47.5",
            "4,4,22.333333333333332,25"
        ]
    );
}

#[test]
fn markdown_shows_the_charts_relative_to_the_file_it_is_written_to() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("study.md").display().to_string();
    assert_eq!(
        grid(dir.path(), &["--format", "markdown", "--out", &out]),
        ""
    );
    let md = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(md.contains("\n## Charts\n"), "{md}");
    assert!(
        md.contains("![calls/round by attempts](charts/01-calls-round-by-attempts.svg)"),
        "{md}"
    );
    let links: Vec<&str> = md
        .lines()
        .filter_map(|l| l.strip_prefix("!["))
        .filter_map(|l| {
            l.split_once("](")
                .map(|(_, rest)| rest.trim_end_matches(')'))
        })
        .collect();
    assert_eq!(links.len(), 10);
    for l in links {
        assert!(dir.path().join(l).is_file(), "{l}");
    }
    // Without --charts, the markdown is the report alone.
    let plain = squall(&[
        "sweep",
        STORM,
        "--vary",
        "attempts=1,2",
        "--format",
        "markdown",
    ]);
    assert!(!plain.contains("## Charts"));
}

#[test]
fn replication_intervals_are_bands_and_merged_shards_draw_the_same_charts() {
    let file = "book/src/replications.squall";
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = |n: &str| dir.path().join(n).display().to_string();
    let vary = "attempts=1,2,3";
    squall(&["sweep", file, "--vary", vary, "--charts", &path("whole")]);
    let whole = svgs(&dir.path().join("whole"));
    assert_eq!(whole.len(), 1);
    let (name, svg) = &whole[0];
    parse(name, svg);
    // The band: one polygon in the line's colour, see-through.
    assert_eq!(count(svg, "polygon", "fill", "#1F77B4"), 1, "{svg}");
    assert!(shows(svg, "95 % interval"));

    for k in 1..=2 {
        let shard = format!("{k}/2");
        squall(&[
            "sweep",
            file,
            "--vary",
            vary,
            "--shard",
            &shard,
            "--out",
            &path(&format!("part-{k}.json")),
        ]);
    }
    squall(&[
        "merge",
        &path("part-2.json"),
        &path("part-1.json"),
        "--charts",
        &path("merged"),
    ]);
    assert_eq!(svgs(&dir.path().join("merged")), whole);

    let (code, _, err) = run_in(
        &root(),
        &[
            "sweep",
            file,
            "--vary",
            vary,
            "--shard",
            "1/2",
            "--charts",
            &path("x"),
        ],
    );
    assert_eq!(code, 3);
    assert!(err.contains("squall merge --charts"), "{err}");
}

#[test]
fn squall_run_draws_the_reports_sweep_table_too() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let charts = dir.path().join("charts");
    squall(&["run", STORM, "--charts", &charts.display().to_string()]);
    let names: Vec<String> = svgs(&charts).into_iter().map(|(n, _)| n).collect();
    assert!(
        names
            .iter()
            .any(|n| n.ends_with("-recovery-by-attempts.svg")),
        "{names:?}"
    );
    let sweep_dir = dir.path().join("sweep");
    squall(&[
        "sweep",
        STORM,
        "--sweep",
        "allowance",
        "--charts",
        &sweep_dir.display().to_string(),
    ]);
    // The same drawing from `squall run` as from `squall sweep`.
    let run = svgs(&charts);
    let sweep = svgs(&sweep_dir);
    let recovery = |set: &[(String, String)]| {
        set.iter()
            .find(|(n, _)| n.ends_with("-recovery-by-attempts.svg"))
            .map(|(_, s)| s.clone())
    };
    assert!(recovery(&sweep).is_some());
    assert_eq!(recovery(&run), recovery(&sweep));
}
