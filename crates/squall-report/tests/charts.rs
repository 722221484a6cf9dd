//! Charts: every SVG parses as XML, is byte-stable, escapes every name, and
//! stays small however many ticks the run has.

use squall_report::chart::{BinnedSeries, FaultWindow, Histogram, SeriesLine, MAX_BINS};
use squall_report::{Study, StudyOptions};

fn scenario(file: &str) -> squall_lang::Scenario {
    let path = format!("{}/../../scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    squall_lang::load(&path, &text).unwrap_or_else(|e| panic!("{path}: {e:?}"))
}

/// The text of every `<text>` element, trimmed.
fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .collect()
}

#[test]
fn the_retry_storm_chart_is_xml_and_the_same_bytes_twice() {
    let s = scenario("retry-storm.squall");
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let db = s.nodes.iter().position(|n| n.name == "db").unwrap_or(0);
    let svg = study.chart_svg(db);
    let t = texts(&svg);
    for want in [
        "retry storm: calls per round at `db`",
        "calls per round",
        "time (rounds)",
        "brownout",
        "demand grew",
        "storm",
        "no retries",
    ] {
        assert!(t.iter().any(|x| x == want), "no {want:?} in {t:?}");
    }
    let again = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.chart_svg(db), svg);
    // 400 rounds: one bin per round, one point per bin on each line.
    let series = study.binned(squall_lang::Metric::CallRate, db, MAX_BINS);
    assert_eq!((series.bin_width, series.bins()), (1.0, 400));
    // The storm's rate at the peak of the brownout: 6 times the normal 4.
    let storm = &series.lines[1];
    assert_eq!(storm.label, "storm");
    assert!(storm.values[155].is_some_and(|v| v > 24.0), "{storm:?}");
}

#[test]
fn names_are_escaped_and_control_characters_dropped() {
    let hostile = "<b>&\"x\"\u{1b}[31m\u{7}";
    let series = BinnedSeries {
        title: hostile.into(),
        value_label: hostile.into(),
        time_unit: hostile.into(),
        start: 0.0,
        bin_width: 2.0,
        lines: vec![SeriesLine {
            label: hostile.into(),
            values: vec![Some(1.0), None, Some(3.0), Some(f64::NAN)],
        }],
        faults: vec![FaultWindow {
            start: 1.0,
            end: 3.0,
            label: hostile.into(),
        }],
    };
    let svg = series.to_svg();
    let t = texts(&svg);
    // Trimmed: the bell at the end became a space.
    let clean = "<b>&\"x\" [31m";
    assert!(t.iter().filter(|x| *x == clean).count() >= 3, "{t:?}");
    assert!(!svg.contains('\u{1b}'));
    let h = Histogram {
        title: hostile.into(),
        value_label: hostile.into(),
        count_label: hostile.into(),
        bucket_width: 10.0,
        buckets: vec![(0.0, 3), (10.0, 0), (20.0, 7)],
    };
    assert!(texts(&h.to_svg()).iter().any(|x| x == clean));
}

#[test]
fn a_long_run_at_clock_ms_gives_a_small_chart() {
    let text = r#"scenario "long" {
  clock ms
  run 120s
  source users { rate 2/ms  enters api }
  chain api -> db
  service api { retry { attempts 2  backoff fixed 5ms } }
  service db { capacity 3/ms }
  fault slow { on db  during 30s..60s  capacity 1/ms }
}"#;
    let s = squall_lang::load("long.squall", text).unwrap_or_else(|e| panic!("{e:?}"));
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let series = study.binned(squall_lang::Metric::CallRate, 1, MAX_BINS);
    assert_eq!(series.bin_width, 200.0, "120 000 ticks in bins of 200 ms");
    assert_eq!(series.bins(), 600);
    assert_eq!(
        series.faults,
        vec![FaultWindow {
            start: 29_999.0,
            end: 60_000.0,
            label: "slow".into()
        }]
    );
    let svg = series.to_svg();
    assert!(svg.len() < 64 * 1024, "{} bytes", svg.len());
    texts(&svg);
}

#[test]
fn a_histogram_has_one_bar_per_bucket() {
    let h = Histogram {
        title: "herd".into(),
        value_label: "wakes at (ms)".into(),
        count_label: "clients".into(),
        bucket_width: 100.0,
        buckets: vec![(0.0, 3), (100.0, 5), (300.0, 1)],
    };
    let svg = h.to_svg();
    let t = texts(&svg);
    assert!(t.iter().any(|x| x == "wakes at (ms)"), "{t:?}");
    // Each bar is a filled rectangle in the first palette colour.
    assert_eq!(svg.matches("fill=\"#1F77B4\"").count(), 3);
    assert_eq!(h.to_svg(), svg);
}
