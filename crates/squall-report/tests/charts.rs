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
        levels: Vec::new(),
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
    // Under `clock ms` the chart reads in seconds: 120 000 ticks in bins of
    // 200 ms are 600 bins of 0.2 s; the fault's ticks 30 000..=60 000 span
    // 29.999 s to 60 s (a tick t spans t - 1 to t). Each quotient of
    // integers by 1000 is the double nearest the decimal: exact equality.
    assert_eq!(series.bin_width, 0.2, "bins of 200 ms, in seconds");
    assert_eq!(series.bins(), 600);
    assert_eq!(
        series.faults,
        vec![FaultWindow {
            start: 29.999,
            end: 60.0,
            label: "slow".into()
        }]
    );
    // Rates per second: db sees the 2 calls/ms the source sends (2 000/s)
    // before the fault, exactly (a uniform source, capacity 3/ms).
    assert_eq!(series.lines[0].values[10], Some(2000.0));
    let svg = series.to_svg();
    assert!(svg.len() < 64 * 1024, "{} bytes", svg.len());
    let t = texts(&svg);
    for want in ["time (s)", "calls per s"] {
        assert!(t.iter().any(|x| x == want), "no {want:?} in {t:?}");
    }
    assert!(!t.iter().any(|x| x.contains("ms")), "{t:?}");
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

/// A run that takes time: 20 s at `clock ms` in bins of 1 s, the
/// database 10 times slower from 8 s to 12 s.
const SLOW_DB: &str = r#"
scenario "slow db" {
  clock ms
  run 20s
  series every 1s
  source users { rate 100/s  arrivals poisson  enters api }
  chain api -> db
  service api { timeout 2s }
  service db { latency exponential mean 5ms  workers 2  queue 1000 }
  fault slow { on db  during 8s..12s  latency x 10 }
  window all 1..end
  report {
    chart p99 at db
    chart queue_mean at db
    chart latency at db
  }
}
"#;

#[test]
fn a_timed_run_charts_the_engines_own_bins() {
    let s = squall_lang::load("slow.squall", SLOW_DB).unwrap_or_else(|e| panic!("{e:?}"));
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let db = 1;
    for metric in [squall_lang::Metric::P99, squall_lang::Metric::QueueMean] {
        let series = study.binned(metric, db, MAX_BINS);
        // 20 000 ticks of 1 ms in 20 bins of 1 s (the chart reads in
        // seconds under `clock ms`).
        assert_eq!((series.bin_width, series.bins()), (1.0, 20), "{metric:?}");
        let v = &series.lines[0].values;
        let (before, slow) = (v[3].unwrap_or(f64::NAN), v[10].unwrap_or(f64::NAN));
        assert!(
            slow > 5.0 * before,
            "{metric:?}: {before} before, {slow} slow"
        );
    }
    let charts = study.charts();
    assert_eq!(charts.len(), 3, "p99, queue, one latency histogram");
    assert!(
        charts[0].title.contains("p99 latency (ms)"),
        "{}",
        charts[0].title
    );
    for c in &charts {
        texts(&c.svg);
    }
    // The histogram holds every answer up to the p99.9.
    let h = study
        .latency_histogram(squall_lang::RunKey::Variant(0), Some(db), None)
        .unwrap_or_else(|| panic!("no histogram"));
    let drawn: u64 = h.buckets.iter().map(|b| b.1).sum();
    let run = study
        .runs
        .values()
        .next()
        .unwrap_or_else(|| panic!("no run"));
    let answered = run
        .obs
        .timed
        .as_ref()
        .map_or(0, |t| t.nodes[db].run.latency.count);
    assert!(
        drawn <= answered && drawn * 1000 >= answered * 998,
        "{drawn} of {answered}"
    );
    // The series CSV: one row per bin, with its first and last tick.
    let csv = study.series_csv();
    assert_eq!(csv.lines().count(), 1 + 20, "{csv}");
    assert!(
        csv.lines().nth(1).is_some_and(|l| l.contains(",1,1000,")),
        "{csv}"
    );
}

/// The charts a scenario's report draws, from `text`.
fn charts_of(text: &str) -> Vec<squall_report::chart::ChartFile> {
    let s = squall_lang::load("t.squall", text).unwrap_or_else(|e| panic!("{e:?}"));
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    study.charts()
}

/// The numbers of a chart's CSV column `col` (1: the first line).
fn column(csv: &str, col: usize) -> Vec<f64> {
    csv.lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .nth(col)
                .and_then(|v| v.parse().ok())
                .unwrap_or(-1.0)
        })
        .collect()
}

/// A breaker whose dependency is down for the first 20 rounds.
const ONE_BREAKER: &str = "scenario \"b\" {\n  run 30 rounds\n  source users { rate 1/round  enters app }\n  chain app -> api\n  service app { breaker { after 3 failures  cooldown 5 rounds  probes 1 } }\n  fault down { on api  during 1..20  fail 503 }\n  report {\n    chart breaker_state at app\n  }\n}\n";

#[test]
fn a_breakers_state_is_charted_as_the_share_of_each_bin() {
    // Down until round 20: the breaker opens at round 3 (3 failures), its
    // 5-round cool-down ends at 8, the probe fails there, it opens again;
    // the probe at 23 succeeds. Zero time: each probe is answered in its
    // round, so no round is half-open.
    let both = charts_of(ONE_BREAKER);
    let chart = &both[0];
    assert_eq!(chart.file, "01-breaker-state-app.svg");
    let t = texts(&chart.svg);
    for want in [
        "open",
        "half-open",
        "down",
        "share in the state",
        "time (rounds)",
    ] {
        assert!(t.iter().any(|x| x == want), "no {want:?} in {t:?}");
    }
    let open = column(&chart.csv, 1);
    let half = column(&chart.csv, 2);
    assert_eq!(open.len(), 30);
    let opened: Vec<usize> = (0..30).filter(|&i| open[i] == 1.0).map(|i| i + 1).collect();
    assert_eq!(opened.first(), Some(&3), "{open:?}");
    assert_eq!(opened.last(), Some(&22), "{open:?}");
    assert!(open.iter().all(|&v| v == 0.0 || v == 1.0), "{open:?}");
    assert!(half.iter().all(|&v| v == 0.0), "{half:?}");
    assert!(
        open[23..].iter().all(|&v| v == 0.0),
        "closed after the good probe"
    );
    // Same input, same bytes.
    let again = charts_of(ONE_BREAKER);
    assert_eq!(again[0].svg, chart.svg);
}

#[test]
fn clients_breakers_are_charted_as_a_share_of_the_clients() {
    // Four clients, a request a ms each; on the timed path (1 ms of
    // latency) each client's breaker opens on its own failures.
    let charts = charts_of(
        "scenario \"c\" {\n  clock ms\n  run 400ms\n  source users { rate 4/ms  clients 4  enters app }\n  chain app -> api\n  service app { breaker { after 2 failures  cooldown 50ms  probes 1 } }\n  service api { latency 1ms }\n  fault down { on api  during 100ms..200ms  fail 503 }\n  report {\n    chart breaker_open at app\n  }\n}\n",
    );
    let chart = &charts[0];
    let t = texts(&chart.svg);
    assert!(
        t.iter().any(|x| x == "share of 4 clients' breakers open"),
        "{t:?}"
    );
    // Bins of 5 ms. The failures are answered at once: every client's
    // breaker opens in tick 101, its probes at 151 fail in that tick, and
    // those at 201 succeed; so all four are open over ticks 101..=200.
    let open = column(&chart.csv, 1);
    assert_eq!(open.len(), 80);
    assert!(open[..20].iter().all(|&v| v == 0.0), "{open:?}");
    assert!(open[20..40].iter().all(|&v| v == 1.0), "{open:?}");
    assert!(open[40..].iter().all(|&v| v == 0.0), "{open:?}");
}

#[test]
fn a_senders_series_are_charted_per_second_against_the_ceiling() {
    let charts = charts_of(
        "scenario \"s\" {\n  clock ms\n  run 3min\n  provider p {\n    ceiling 5/s\n    burst 5\n    success 200\n    throttle 429 weight 1\n  }\n  sender out to p {\n    records 2000\n    senders 2\n    rate 8/s\n    latency 10ms\n    client naive\n  }\n  report {\n    chart send_rate at out\n    chart throttles at out\n  }\n}\n",
    );
    assert_eq!(charts.len(), 2);
    let rate = &charts[0];
    assert_eq!(rate.file, "01-send-rate-out.svg");
    let t = texts(&rate.svg);
    for want in [
        "provider ceiling (5/s)",
        "time (min)",
        "s: send rate at the end of each bin (per s) of `out`",
    ] {
        assert!(t.iter().any(|x| x == want), "no {want:?} in {t:?}");
    }
    assert!(
        rate.csv
            .starts_with("bin start (min; bin width 1),base,provider ceiling (5/s)\n"),
        "{}",
        rate.csv
    );
    assert_eq!(column(&rate.csv, 1), vec![8.0; 3]);
    assert_eq!(column(&rate.csv, 2), vec![5.0; 3]);
    // Eight a second sent, five accepted: three a second throttled.
    let throttled = column(&charts[1].csv, 1);
    assert!(
        throttled.iter().all(|&v| (v - 3.0).abs() < 0.2),
        "{throttled:?}"
    );
}

/// The breaker chart under `clock ms` reads in seconds, as the other charts
/// do: a consecutive breaker (`after 5 failures  cooldown 30s`) in front of
/// a db that fails every call from 10 s to 20 s, 100 requests a second,
/// bins of 1 s. The fifth failure (about 10.04 s) opens it and it stays open
/// 30 s, to about 40.04 s: the bin from 20 s to 21 s is open throughout
/// (share exactly 1, a ratio of equal tick counts), the bin from 5 s to
/// 6 s closed throughout (exactly 0). On `main` the axis read `time (ms)`
/// to 60 000 in bins of 1000, and the title "each 1000-ms bin".
#[test]
fn the_breaker_chart_reads_seconds_under_a_wall_clock() {
    let text = r#"scenario "breaker" {
  clock ms
  run 60s
  series every 1s
  chain app -> db
  service app { breaker { after 5 failures  cooldown 30s } }
  service db { latency 2ms  workers 10  queue 100 }
  source users { rate 100/s  enters app }
  fault down { on db  during 10s..20s  fail 503 }
  report {
    chart breaker_state at app
  }
}"#;
    let s = squall_lang::load("breaker.squall", text).unwrap_or_else(|e| panic!("{e:?}"));
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let series = study.breaker_binned(squall_lang::ChartSeries::BreakerState, 0);
    assert_eq!(series.time_unit, "s");
    // 60 000 ticks of 1 ms in bins of 1 s (the engine's): 60 bins of 1 s,
    // from tick 1 (its time axis from 0: a tick t spans t - 1 to t).
    assert_eq!(
        (series.start, series.bin_width, series.bins()),
        (0.0, 1.0, 60)
    );
    // The fault's ticks 10 000..=20 000: 9.999 s to 20 s, each quotient of
    // integers by 1000 the double nearest the decimal.
    assert_eq!(
        (series.faults[0].start, series.faults[0].end),
        (9.999, 20.0)
    );
    let open = &series.lines[0];
    assert_eq!(open.label, "open");
    assert_eq!(open.values[20], Some(1.0));
    assert_eq!(open.values[5], Some(0.0));
    let charts = study.charts();
    let t = texts(&charts[0].svg);
    assert!(t.iter().any(|x| x == "time (s)"), "{t:?}");
    assert!(
        t.iter().any(|x| x.contains("share of each 1 s bin")),
        "{t:?}"
    );
    assert!(!t.iter().any(|x| x.contains("ms")), "{t:?}");
    assert!(charts[0].csv.starts_with("bin start (s; bin width 1)"));
}

/// A chart's bins start at the run's first tick, as the engine's do: a
/// run from tick 0 in bins of 10 ms, one call at 0 ms and one at 15 ms.
/// The first bin is ticks 0..=9 (it holds the call at 0 ms), the second
/// 10..=19: each one call in 10 ms, 100 calls per second (the chart reads
/// per second under `clock ms`; 0.1 x 1000 rounds to 100 exactly, 1e-9
/// allows for the product's last bit). Tick 0 spans -1 to 0 ms, so the
/// axis starts at -0.001 s. On `main` the grid started at tick 1 (axis
/// from 0), one tick later than the engine's bins.
#[test]
fn a_charts_bins_start_at_the_runs_first_tick() {
    let text = r#"scenario "zero" {
  clock ms
  run 0..99ms
  series every 10ms
  chain db
  service db { latency 1ms  workers 1  queue 10 }
  source poll { enters db  at [0ms, 15ms] }
}"#;
    let s = squall_lang::load("zero.squall", text).unwrap_or_else(|e| panic!("{e:?}"));
    let study = Study::run(&s, StudyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let series = study.binned(squall_lang::Metric::CallRate, 0, MAX_BINS);
    assert_eq!((series.start, series.bin_width), (-0.001, 0.01));
    assert_eq!(series.bins(), 10, "ticks 0..=99 in bins of 10");
    let v = &series.lines[0].values;
    for b in [0, 1] {
        let x = v[b].unwrap_or(f64::NAN);
        assert!((x - 100.0).abs() < 1e-9, "bin {b}: {x}");
    }
    assert_eq!(v[2], Some(0.0));
}
