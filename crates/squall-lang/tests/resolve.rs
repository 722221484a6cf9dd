//! Resolving a scenario with overrides from outside the file, and sweeps.

use squall_lang::parse::parse_value;
use squall_lang::{Overrides, RunKey, Setting};

use crate::common::{load_ok, render};

fn set(name: &str, value: &str) -> Setting {
    Setting {
        name: name.into(),
        value: parse_value(value).unwrap_or_else(|d| panic!("{value}: {}", d.message)),
        origin: Some(format!("--set {name}={value}")),
    }
}

fn with(sets: Vec<Setting>) -> Overrides {
    Overrides {
        sets,
        ..Overrides::default()
    }
}

#[test]
fn set_from_the_command_line_changes_the_model() {
    let s = load_ok("variants-and-sweeps");
    let m = s.model(&with(vec![set("attempts", "5")])).unwrap();
    let tries: Vec<Option<u32>> = m
        .nodes
        .iter()
        .map(|n| n.retry.as_ref().map(|r| r.attempts))
        .collect();
    // `tries = $attempts` follows the override.
    assert_eq!(tries, [Some(5), Some(5), None]);
}

#[test]
fn a_bad_set_points_at_the_param_use_and_names_its_origin() {
    let path = crate::common::crate_dir().join("../../scenarios/retry-storm.squall");
    let text = std::fs::read_to_string(path).unwrap();
    let s = squall_lang::load("retry-storm.squall", &text).unwrap();
    let d = s.model(&with(vec![set("attempts", "0")])).unwrap_err();
    // One `service edge, api, worker { ... }` block: one error, not three.
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
    let x = &d.list[0];
    assert_eq!(&d.source[x.span.start..x.span.end], "$attempts");
    let line =
        "  service edge, api, worker { retry { attempts $attempts  backoff fixed $spacing } }";
    let col = line.find("$attempts").unwrap() + 1;
    assert_eq!(x.span.line_col(&d.source), (25, col), "{}", d.to_plain());
    assert!(x.message.contains("at least 1"), "{}", x.message);
    let help = x.help.as_deref().unwrap_or("");
    assert!(help.contains("--set attempts=0"), "help: {help}");
    assert!(x.label.contains("--set attempts=0"), "label: {}", x.label);
    insta::assert_snapshot!(render(&d));
}

#[test]
fn a_bad_set_reached_through_another_param() {
    let s = load_ok("variants-and-sweeps");
    let d = s.model(&with(vec![set("attempts", "0")])).unwrap_err();
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
    // The value reaches `attempts` through `param tries = $attempts`; the
    // error points at the `$tries` use on line 13, where it lands.
    let x = &d.list[0];
    assert_eq!(&d.source[x.span.start..x.span.end], "$tries");
    assert_eq!(x.span.line_col(&d.source), (13, 40));
    assert!(x.help.as_deref().unwrap_or("").contains("--set attempts=0"));
}

#[test]
fn a_bad_set_of_a_directly_used_param() {
    let s = load_ok("ms-clock");
    let d = s.model(&with(vec![set("base", "2 rounds")])).unwrap_err();
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
    let x = &d.list[0];
    assert_eq!(&d.source[x.span.start..x.span.end], "$base");
    assert_eq!(x.span.line_col(&d.source), (14, 61));
    assert!(
        x.message.contains("`round` does not fit `clock ms`"),
        "{}",
        x.message
    );
    assert!(x
        .help
        .as_deref()
        .unwrap_or("")
        .contains("--set base=2 rounds"));
}

#[test]
fn a_set_of_an_unknown_param_is_an_error() {
    // `--set` of a param the file does not declare is caught before resolving
    // (the CLI checks names); an unknown `$param` inside the set value is
    // reported by `model`.
    let s = load_ok("variants-and-sweeps");
    let d = s.model(&with(vec![set("attempts", "$nope")])).unwrap_err();
    assert!(
        d.to_plain().contains("unknown param `$nope`"),
        "{}",
        d.to_plain()
    );
}

#[test]
fn later_settings_win() {
    let s = load_ok("variants-and-sweeps");
    let m = s
        .model(&with(vec![set("attempts", "0"), set("attempts", "2")]))
        .unwrap();
    assert_eq!(m.nodes[0].retry.as_ref().map(|r| r.attempts), Some(2));
    // A variant's own `set` wins over the command line.
    let careful = s.variants.iter().position(|v| v.name == "careful").unwrap();
    let m = s
        .model_for(RunKey::Variant(careful), &[set("attempts", "7")])
        .unwrap();
    assert_eq!(m.nodes[0].retry.as_ref().map(|r| r.attempts), Some(1));
}

#[test]
fn sweep_points_are_the_cross_product_first_axis_outermost() {
    let s = load_ok("variants-and-sweeps");
    let sweep = &s.sweeps[0];
    let points: Vec<String> = sweep
        .points()
        .iter()
        .map(|p| {
            p.iter()
                .map(|(name, v)| format!("{name}={}", &s.source[v.span.start..v.span.end]))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        points,
        [
            "attempts=1 spacing=1 rounds",
            "attempts=1 spacing=4 rounds",
            "attempts=2 spacing=1 rounds",
            "attempts=2 spacing=4 rounds",
            "attempts=3 spacing=1 rounds",
            "attempts=3 spacing=4 rounds",
        ]
    );
    // Each point's model carries its values, on top of the base variant.
    let mut seen = Vec::new();
    for (p, _) in sweep.points().iter().enumerate() {
        let m = s.model_for(RunKey::Point(0, p), &[]).unwrap();
        let r = m.nodes[0].retry.as_ref().unwrap();
        let wait = match r.backoff {
            squall_lang::Backoff::Fixed { wait } => wait,
            ref other => panic!("{other:?}"),
        };
        // The base variant `calm` has no faults.
        assert!(m.faults.is_empty());
        seen.push((r.attempts, wait));
    }
    assert_eq!(seen, [(1, 1), (1, 4), (2, 1), (2, 4), (3, 1), (3, 4)]);
}

#[test]
fn sweep_points_with_no_axis_and_one_axis() {
    let s = load_ok("variants-and-sweeps");
    let mut sweep = s.sweeps[0].clone();
    sweep.axes.truncate(1);
    assert_eq!(sweep.points().len(), 3);
    sweep.axes.clear();
    // No axis: one point, the base variant itself.
    assert_eq!(sweep.points(), vec![Vec::new()]);
}

#[test]
fn runs_are_variants_then_sweep_points() {
    let s = load_ok("variants-and-sweeps");
    let runs = s.all_runs();
    assert_eq!(runs.len(), 4 + 6);
    assert_eq!(runs[0], RunKey::Variant(0));
    assert_eq!(runs[4], RunKey::Point(0, 0));
    assert_eq!(runs[9], RunKey::Point(0, 5));
}

#[test]
fn variants_override_sources_and_drop_faults() {
    let s = load_ok("variants-and-sweeps");
    let idx = |name: &str| s.variants.iter().position(|v| v.name == name).unwrap();
    let storm = s.model_for(RunKey::Variant(idx("storm")), &[]).unwrap();
    assert_eq!(storm.faults.len(), 2);
    let calm = s.model_for(RunKey::Variant(idx("calm")), &[]).unwrap();
    assert!(calm.faults.is_empty());
    let busy = s.model_for(RunKey::Variant(idx("busy")), &[]).unwrap();
    // The override has no base rate, so the source keeps its own.
    assert_eq!(busy.sources[0].rate, 4.0);
    assert_eq!(busy.sources[0].rate_at(60), 8.0);
    assert_eq!(busy.sources[0].rate_at(81), 4.0);
}

#[test]
fn one_point_at_a_time_matches_all_points() {
    let s = load_ok("variants-and-sweeps");
    let mut sweep = s.sweeps[0].clone();
    // A third axis of one value, so that not every axis has the same length.
    let one = sweep.axes[0].1[0].clone();
    sweep.axes.push(("demand".into(), vec![one]));
    let all = sweep.points();
    assert_eq!(sweep.len(), all.len());
    for (i, p) in all.iter().enumerate() {
        assert_eq!(sweep.point(i).as_ref(), Some(p), "point {i}");
    }
    assert_eq!(sweep.point(all.len()), None);
}

#[test]
fn range_bounds_take_arithmetic_and_a_half_open_end() {
    let text = r#"scenario "ranges" {
  clock ms
  run 10min
  param start = 2min
  chain api -> db
  source users { rate 1/s  enters api }
  window before 1..$start - 1
  window fault $start..<$start + 60s
  window tail end - 30s..end
  fault brownout { on db  during 2min..<3min  capacity 1/ms }
}"#;
    let scenario = squall_lang::load("ranges.squall", text).expect("loads");
    let model = scenario.model(&Overrides::default()).expect("resolves");
    let w: Vec<(u64, u64)> = model.windows.iter().map(|w| (w.from, w.to)).collect();
    assert_eq!(w, [(1, 119_999), (120_000, 179_999), (570_000, 600_000)]);
    let f = &model.faults[0];
    // A 60 s fault in ms is 60 000 ticks, not 60 001.
    assert_eq!((f.from, f.to), (120_000, 179_999));
    assert_eq!(f.to - f.from + 1, 60_000);
    // The formatter keeps both.
    let pretty = squall_lang::format::format_source(text).expect("formats");
    assert!(pretty.contains("window before 1..$start - 1\n"), "{pretty}");
    assert!(pretty.contains("during 2min..<3min"), "{pretty}");
}
