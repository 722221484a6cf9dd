//! `squall run --charts DIR` and `--html FILE`: one SVG per chart, named
//! and well-formed; one self-contained page with every table, the source
//! and the seed, every name escaped.

use std::path::PathBuf;

use crate::support::{root, run_in};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}"));
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .collect()
}

#[test]
fn chart_items_and_herds_become_one_svg_each() {
    let dir = scratch("charts-items");
    let scenario = dir.join("charts.squall");
    std::fs::write(
        &scenario,
        "scenario \"charts\" {\n  run 100 rounds\n  source users { rate 4/round  enters edge }\n  chain edge -> db\n  service edge { retry { attempts 3  backoff fixed 4 rounds } }\n  service db { capacity 12/round }\n  fault brownout { on db  during 20..40  capacity 1/round }\n  backoff full = full_jitter 10 rounds x 2 cap 100 rounds\n  report {\n    chart \"calls at the dependency\" call_rate at db\n    chart edge_rate\n    herd \"wake-ups\" { policy full  clients 50  attempt 2  bucket 5 rounds }\n  }\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    let s = scenario.to_string_lossy().into_owned();
    let o = out.to_string_lossy().into_owned();
    let (code, _, err) = run_in(&root(), &["run", &s, "--charts", &o]);
    assert_eq!(code, 0, "{err}");
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    files.sort();
    assert_eq!(
        files,
        [
            "01-calls-at-the-dependency.csv",
            "01-calls-at-the-dependency.svg",
            "02-edge-rate.csv",
            "02-edge-rate.svg",
            "03-wake-ups.csv",
            "03-wake-ups.svg"
        ]
    );
    // The data beside each chart: the bin width in the heading, a row a bin.
    let data = std::fs::read_to_string(out.join(&files[0])).unwrap_or_default();
    let rows: Vec<&str> = data.lines().collect();
    assert_eq!(rows[0], "bin start (rounds; bin width 1),base");
    assert_eq!(rows.len(), 1 + 100);
    assert_eq!(rows[1], "0,4");
    let files: Vec<String> = files.into_iter().filter(|f| f.ends_with(".svg")).collect();
    let first = std::fs::read_to_string(out.join(&files[0])).unwrap_or_default();
    let t = svg_texts(&first);
    assert!(t.iter().any(|x| x == "calls at the dependency"), "{t:?}");
    assert!(t.iter().any(|x| x == "brownout"), "{t:?}");
    let second = std::fs::read_to_string(out.join(&files[1])).unwrap_or_default();
    assert!(svg_texts(&second)
        .iter()
        .any(|x| x == "new requests per round"));
    let herd = std::fs::read_to_string(out.join(&files[2])).unwrap_or_default();
    assert!(svg_texts(&herd).iter().any(|x| x == "wakes at (rounds)"));
    // The same command writes the same bytes.
    let (code, _, err) = run_in(&root(), &["run", &s, "--charts", &o]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join(&files[0])).unwrap_or_default(),
        first
    );
}

#[test]
fn the_html_page_holds_the_whole_report_and_fetches_nothing() {
    let dir = scratch("html-page");
    let page = dir.join("report.html");
    let p = page.to_string_lossy().into_owned();
    let (code, text, err) = run_in(
        &root(),
        &["run", "scenarios/retry-storm.squall", "--html", &p],
    );
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    assert!(html.starts_with("<!DOCTYPE html>"));
    // The default chart, and after the sweep table its five columns over
    // `attempts`, inline.
    assert_eq!(html.matches("<svg").count(), 6, "the charts, inline");
    let table = html
        .find("<h2>what cutting the allowance buys")
        .unwrap_or(0);
    let drawn = html
        .find("aria-label=\"recovery by attempts\"")
        .unwrap_or(0);
    assert!(
        0 < table && table < drawn,
        "the sweep's charts follow its table"
    );
    for want in [
        "<h2>cases</h2>",
        "<h2>what cutting the allowance buys (same fault, rounds 101..400)</h2>",
        "diagnosis, storm: during vs before at `db`: retry storm",
        "seed <code>1</code>",
        &format!("squall {}", env!("CARGO_PKG_VERSION")),
        // The source, escaped: `->` in the chain.
        "chain edge -&gt; api -&gt; worker -&gt; db",
    ] {
        assert!(html.contains(want), "no {want:?} in the page");
    }
    for fetch in ["src=", "href=", "url(", "@import"] {
        assert!(!html.contains(fetch), "the page fetches nothing: {fetch}");
    }
    // The printed report is the one without --html.
    let (_, plain, _) = run_in(&root(), &["run", "scenarios/retry-storm.squall"]);
    assert_eq!(text, plain);
}

#[test]
fn names_in_the_html_page_are_escaped() {
    let dir = scratch("html-hostile");
    let scenario = dir.join("hostile.squall");
    std::fs::write(
        &scenario,
        "scenario \"<script>alert(1)</script>\" {\n  run 20 rounds\n  source users { rate 1/round  enters api }\n  chain api -> db\n  variant v \"<img src=x onerror=alert(2)>\" { }\n  window all 1..20\n  report {\n    table \"<b>t</b>\" { rows variants  at db  column \"a&b\" = all.call_rate }\n    line \"</li><script>x</script>\"\n  }\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let page = dir.join("hostile.html");
    let (s, p) = (
        scenario.to_string_lossy().into_owned(),
        page.to_string_lossy().into_owned(),
    );
    let (code, _, err) = run_in(&root(), &["run", &s, "--html", &p]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("<b>t"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("a&amp;b"));
    // Markdown: no raw HTML, no broken table cell.
    let (code, md, err) = run_in(&root(), &["run", &s, "--format", "markdown"]);
    assert_eq!(code, 0, "{err}");
    let raw = |tag: &str| md.match_indices(tag).any(|(i, _)| !md[..i].ends_with('\\'));
    assert!(!raw("<script") && !raw("<img") && !raw("<b>"), "{md}");
    assert!(md.contains("\\<script>alert(1)\\</script>"), "{md}");
}

#[test]
fn text_and_markdown_escape_control_characters() {
    let r = squall_report::Report {
        title: "red\u{1b}[31m|x".into(),
        meta: vec![],
        blocks: vec![squall_report::Block::text("over\rwrite\u{202e}".into())],
        pairing: None,
    };
    let text = r.to_text();
    assert!(!text.contains('\u{1b}') && !text.contains('\r') && !text.contains('\u{202e}'));
    assert!(text.contains("red\\u{1b}[31m|x"), "{text}");
    let md = r.to_markdown();
    assert!(md.starts_with("# red[31m\\|x\n"), "{md}");
    assert!(md.contains("- over write"), "{md}");
}
