//! Replications and seeds: `--seed`, the seed as a sweep axis, and
//! `replications N` (a mean and a 95 % interval per number).

use squall_lang::RunKey;
use squall_report::{Block, Cell, Interval, Study, StudyOptions};

use crate::support::*;

/// A Poisson source of `rate` per round into a service that never
/// refuses: the mean arrivals per round is exactly `rate`.
fn poisson(seed: u64, replications: usize) -> String {
    format!(
        r#"scenario "poisson" {{
  seed {seed}
  run 200 rounds
  param rate = 5/round
  source users {{ rate $rate  arrivals poisson  enters api }}
  chain api -> db
  service db {{ capacity 100/round }}
  window all 1..200
  variant base "base" {{ }}
  variant busy "busy" {{ set rate = 8/round }}
  sweep seeds "seeds" {{ seed in [1, 2, 3] }}
  report {{
    replications {replications}
    table "load" {{
      rows variants
      at db
      column "arrivals/round" = all.edge_rate :.3
      column "calls" = all.calls :.0
    }}
    table "by seed" {{
      rows sweep seeds
      at db
      column "calls" = all.calls :.0
    }}
    line "base: {{base.all.edge_rate:.3}} arrivals per round"
  }}
  expect base.all.edge_rate in 4.8..5.2
}}"#
    )
}

fn interval(table: &squall_report::Table, row: usize, col: usize) -> Interval {
    match table.rows.get(row).and_then(|r| r.get(col)) {
        Some(Cell::Interval(i, _)) => i.clone(),
        other => panic!("row {row} column {col} is {other:?}, not an interval"),
    }
}

fn first_table(report: &squall_report::Report) -> &squall_report::Table {
    report
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(t) => Some(t),
            Block::Line { .. } => None,
        })
        .expect("a table")
}

#[test]
fn the_interval_of_a_poisson_mean_contains_the_analytic_mean() -> TestResult {
    // Each replication's arrivals per round is the mean of 200 Poisson(5)
    // counts: mean 5, sd sqrt(5 / 200) = 0.158, near normal, and the
    // replications are independent (each has its own derived seed). So the
    // t interval of 10 replications is a true 95 % interval for 5. Over 40
    // seeds (`SQUALL_LONG_TESTS=1`), the number of intervals that miss 5 is
    // Binomial(40, 0.05): mean 2, and 7 or more misses has probability
    // below 0.5 %; over the default 20 seeds, Binomial(20, 0.05): 6 or more
    // has probability below 0.5 %. The seeds are fixed, so the test is
    // deterministic; the bound only says the check is not tuned to them.
    // Seed 20260114 alone must cover 5.
    let (seeds, bound) = if crate::support::long_tests() {
        (40, 6)
    } else {
        (20, 5)
    };
    let mut missed = 0;
    for seed in (1..=seeds).chain([20_260_114]) {
        let s = load_text("poisson.squall", &poisson(seed, 10))?;
        let study = Study::run(&s, StudyOptions::default())?;
        assert_eq!(study.replications(), 10);
        let report = study.report();
        let load = first_table(&report);
        let base = interval(load, 0, 1);
        assert_eq!((base.n, base.replications), (10, 10));
        let h = base.half_width.expect("a half-width");
        // The half-width is about t(0.975, 9) * 0.158 / sqrt(10) = 0.113.
        assert!((0.04..0.25).contains(&h), "seed {seed}: half-width {h}");
        if !base.contains(5.0) {
            missed += 1;
            assert_ne!(seed, 20_260_114, "the pinned seed misses: {base:?}");
        }
        // 8 per round on the busy variant: its own replications.
        let busy = interval(load, 1, 1);
        assert!((busy.mean - 8.0).abs() < 0.3, "seed {seed}: {busy:?}");
    }
    assert!(
        missed <= bound,
        "{missed} of {} intervals miss the mean",
        seeds + 1
    );
    Ok(())
}

#[test]
fn replication_one_is_the_run_itself_and_the_others_have_their_own_seeds() -> TestResult {
    let s = load_text("poisson.squall", &poisson(7, 3))?;
    let study = Study::run(&s, StudyOptions::default())?;
    let key = RunKey::Variant(0);
    let seeds: Vec<u64> = std::iter::once(&study.runs)
        .chain(&study.replicas)
        .map(|m| m[&key].model.seed)
        .collect();
    assert_eq!(seeds[0], s.run_seed(key));
    assert_eq!(
        seeds,
        (0..3)
            .map(|r| s.replication_seed(key, r))
            .collect::<Vec<_>>()
    );
    assert!(seeds[0] != seeds[1] && seeds[1] != seeds[2] && seeds[0] != seeds[2]);
    // The unreplicated file runs exactly replication 1.
    let single = poisson(7, 3).replace("    replications 3\n", "");
    let one = load_text("poisson.squall", &single)?;
    let plain = Study::run(&one, StudyOptions::default())?;
    assert_eq!(plain.runs[&key].obs.arrivals, study.runs[&key].obs.arrivals);
    Ok(())
}

#[test]
fn expect_lines_check_the_mean_and_lines_print_the_interval() -> TestResult {
    let s = load_text("poisson.squall", &poisson(7, 10))?;
    let study = Study::run(&s, StudyOptions::default())?;
    let report = study.report();
    let load = first_table(&report);
    let mean = interval(load, 0, 1).mean;
    let e = &study.expectations()[0];
    assert_eq!(e.actual, Some(mean));
    assert!(e.passed);
    let line = report
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Line { text, .. } => Some(text.clone()),
            Block::Table(_) => None,
        })
        .expect("a line");
    assert!(line.contains(" ± "), "{line}");
    assert!(line.starts_with(&format!(
        "base: {}",
        squall_report::number::to_fixed(mean, 3)
    )));
    // JSON carries the mean, half-width and counts as data.
    let json: serde_json::Value = serde_json::from_str(&report.to_json())?;
    let cell = &json["blocks"][0]["rows"][0][1];
    assert_eq!(cell["n"], 10);
    assert_eq!(cell["replications"], 10);
    assert!(
        cell["mean"].is_f64() && cell["half_width"].is_f64(),
        "{cell}"
    );
    assert_eq!(json["meta"]["replications"], "10");
    // Read back, the JSON report is the same report.
    let back = squall_report::Report::from_json(&report.to_json())?;
    assert_eq!(back.to_text(), report.to_text());
    Ok(())
}

#[test]
fn replicated_reports_are_the_same_bytes_for_one_or_four_threads() -> TestResult {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("replicated.squall");
    std::fs::write(&path, poisson(11, 5))?;
    let file = path.to_string_lossy().into_owned();
    let run = |jobs: &str, format: &str| {
        let (code, out, err) = run_in(&root(), &["run", &file, "--jobs", jobs, "--format", format]);
        assert_eq!(code, 0, "{err}");
        out
    };
    for format in ["text", "json"] {
        assert_eq!(run("1", format), run("4", format), "{format}");
    }
    let sweep = |jobs: &str| {
        let (code, out, err) = run_in(
            &root(),
            &["sweep", &file, "--vary", "seed=4,5,6", "--jobs", jobs],
        );
        assert_eq!(code, 0, "{err}");
        out
    };
    let one = sweep("1");
    assert!(one.contains("replications 5"), "{one}");
    assert!(one.contains(" ± "), "{one}");
    assert_eq!(one, sweep("4"));
    Ok(())
}

#[test]
fn seed_on_the_command_line_replaces_the_files_seed() -> TestResult {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("seeded.squall");
    std::fs::write(&path, poisson(11, 2))?;
    let other = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("seeded-99.squall");
    std::fs::write(&other, poisson(99, 2))?;
    let (file, file99) = (
        path.to_string_lossy().into_owned(),
        other.to_string_lossy().into_owned(),
    );
    let (code, with_flag, err) = run_in(&root(), &["run", &file, "--seed", "99"]);
    assert_eq!(code, 0, "{err}");
    assert!(with_flag.contains("· seed 99 ·"), "{with_flag}");
    let (_, written, _) = run_in(&root(), &["run", &file99]);
    // The same report but for the file name in the header.
    let body = |t: &str| t.lines().skip(2).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&with_flag), body(&written));
    let (code, _, err) = run_in(&root(), &["run", &file, "--seed", "-1"]);
    assert_eq!(code, 3, "{err}");
    let (code, sweep, err) = run_in(
        &root(),
        &["sweep", &file, "--seed", "99", "--vary", "rate=5/round"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(sweep.contains("seed 99"), "{sweep}");
    Ok(())
}

#[test]
fn a_seed_axis_gives_each_seed_its_own_stream_in_any_order_and_shard() -> TestResult {
    let s = load_text("poisson.squall", &poisson(7, 2))?;
    // Point `seed=2` runs with a stream derived from 2, not from the file's 7.
    let sweep = s
        .sweeps
        .iter()
        .position(|w| w.name == "seeds")
        .expect("sweep");
    let mut with_two = s.clone();
    with_two.seed = 2;
    assert_eq!(
        s.run_seed(RunKey::Point(sweep, 1)),
        with_two.run_seed(RunKey::Point(sweep, 1))
    );
    assert_ne!(
        s.run_seed(RunKey::Point(sweep, 0)),
        s.run_seed(RunKey::Point(sweep, 1))
    );
    // `seed` is not a param setting of the point: the model resolves.
    let m = s.model_for(RunKey::Point(sweep, 1), &[])?;
    assert_eq!(m.seed, s.run_seed(RunKey::Point(sweep, 1)));

    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("seed-axis.squall");
    std::fs::write(&path, poisson(7, 2))?;
    let file = path.to_string_lossy().into_owned();
    let rows = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["sweep", file.as_str()];
        all.extend(args);
        let (code, out, err) = run_in(&root(), &all);
        assert_eq!(code, 0, "{err}");
        let mut rows: Vec<String> = out
            .lines()
            .filter(|l| l.starts_with("seed="))
            .map(str::to_string)
            .collect();
        rows.sort();
        rows
    };
    let forward = rows(&["--vary", "seed=1,2,3"]);
    assert_eq!(forward.len(), 3, "{forward:?}");
    assert_eq!(forward, rows(&["--vary", "seed=3,1,2"]));
    // The file's own sweep gives the same numbers for the same seeds.
    let (code, out, err) = run_in(&root(), &["sweep", &file, "--sweep", "seeds"]);
    assert_eq!(code, 0, "{err}");
    for (row, seed) in forward.iter().zip(["1", "2", "3"]) {
        let numbers = row.trim_start_matches(&format!("seed={seed}")).trim();
        assert!(
            out.lines()
                .any(|l| l.starts_with(seed) && l.ends_with(numbers)),
            "{numbers} not in\n{out}"
        );
    }
    // Shards: each point in its own shard, merged, is the whole sweep.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let mut parts = Vec::new();
    for k in 1..=3 {
        let part = dir.join(format!("seed-part-{k}.json"));
        let _ = std::fs::remove_file(&part);
        let shard = format!("{k}/3");
        let p = part.to_string_lossy().into_owned();
        let (code, _, err) = run_in(
            &root(),
            &[
                "sweep",
                &file,
                "--vary",
                "seed=1,2,3",
                "--shard",
                &shard,
                "--out",
                &p,
            ],
        );
        assert_eq!(code, 0, "{err}");
        parts.push(p);
    }
    let mut merge = vec!["merge"];
    merge.extend(parts.iter().map(String::as_str));
    let (code, merged, err) = run_in(&root(), &merge);
    assert_eq!(code, 0, "{err}");
    let (_, whole, _) = run_in(&root(), &["sweep", &file, "--vary", "seed=1,2,3"]);
    assert_eq!(merged, whole);
    // A seed that is not a whole number is a usage error.
    let (code, _, err) = run_in(&root(), &["sweep", &file, "--vary", "seed=1.5"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("not a seed") || err.contains("not one"),
        "{err}"
    );
    Ok(())
}

#[test]
fn bad_replications_and_seed_axes_are_located() {
    let cases: [(&str, &str, &str); 5] = [
        (
            "    replications 10\n",
            "    replications 1\n",
            "at least 2",
        ),
        (
            "    replications 10\n",
            "    replications 5000\n",
            "at most 1000",
        ),
        (
            "    replications 10\n",
            "    replications 10\n    replications 3\n",
            "`replications` is declared twice",
        ),
        ("seed in [1, 2, 3]", "seed in [1, 2.5, 3]", "a swept seed"),
        (
            "param rate = 5/round",
            "param rate = 5/round\n  param seed = 3",
            "a param cannot be called `seed`",
        ),
    ];
    for (from, to, message) in cases {
        let text = poisson(7, 10).replace(from, to);
        let bad_at = to
            .lines()
            .last()
            .map(str::trim)
            .and_then(|l| text.rfind(l))
            .expect("the changed text");
        let d = match squall_lang::load("bad.squall", &text) {
            Err(d) => d,
            Ok(_) => panic!("`{to}` loads"),
        };
        let first = &d.list[0];
        assert!(first.message.contains(message), "{}", d.to_plain());
        let (line, _) = first.span.line_col(&d.source);
        let (want, _) = squall_lang::Span::new(bad_at, bad_at + 1).line_col(&d.source);
        assert_eq!(line, want, "{}", d.to_plain());
    }
}

#[test]
fn replications_round_trip_through_fmt() {
    let fmt =
        |t: &str| squall_lang::format::format_source(t).unwrap_or_else(|d| panic!("{}", d.message));
    let formatted = fmt(&poisson(7, 12));
    assert!(formatted.contains("\n    replications 12\n"), "{formatted}");
    assert_eq!(fmt(&formatted), formatted);
}

/// A sender with random answers (1 % unknown codes, drawn per attempt),
/// replicated 4 times.
const SENDING: &str = r#"scenario "replicated sending" {
  clock ms
  run 2min
  seed 3
  provider p { ceiling 10/s  burst 5  throttle 429  unknown 1% as 418 }
  sender outbox to p { records 1000  rate 8/s  client naive }
  variant base "base" { }
  report {
    replications 4
    table "sent" {
      rows variants
      column "delivered" = outbox.delivered :.1
    }
  }
}"#;

/// Issue 18: sending runs take `replications` like every other run. Each
/// replication runs the senders again under its own seed (the run's
/// replication seed, as a model's), so the unknown answers fall on other
/// attempts, and a table reading a sender's number shows a mean and its
/// interval over the 4. On e2f06d5 the senders ran once per variant and
/// every replication read that one run.
#[test]
fn senders_run_once_per_replication_with_its_seed() {
    let s = load_text("send.squall", SENDING).unwrap();
    let study = Study::run(&s, StudyOptions::default()).unwrap();
    let key = RunKey::Variant(0);
    let mut seeds = vec![study.sending[0].spec.seed];
    let mut delivered = vec![study.sending[0].obs.states.submitted];
    for (i, replica) in study.replicas.iter().enumerate() {
        let run = &replica[&key];
        assert_eq!(run.sending.len(), 1);
        let spec = &run.sending[0].spec;
        assert_eq!(spec.seed, s.replication_seed(key, i + 1));
        seeds.push(spec.seed);
        delivered.push(run.sending[0].obs.states.submitted);
    }
    assert_eq!(seeds.len(), 4);
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), 4, "one seed per replication");
    // 8/s for 2 min is 961 attempts under a ceiling of 10/s: about 1 %
    // of them (9.6 on average) answer 418 and are rejected, the rest are
    // delivered. Four replications that all drew the same count would
    // mean one run read four times.
    assert!(
        delivered.iter().any(|&d| d != delivered[0]),
        "{delivered:?}"
    );
    let report = study.report();
    let t = first_table(&report);
    let i = interval(t, 0, 1);
    let mean = delivered.iter().sum::<u64>() as f64 / 4.0;
    assert!((i.mean - mean).abs() < 1e-9, "{i:?} against {mean}");
}
