//! The same construction with other numbers: scenario text generated over
//! other fields and sources, markers, staleness bounds, transient periods
//! and phase steps, warm-ups, measured lengths and outages, each run under
//! all three policies (a sweep crossed with one variant per day) and
//! compared with the reference `kosum` of `reference.rs`: the report's
//! totals, the isolation table, and every tick's fields.

use squall_lang::RunKey;

use crate::reference::{kosum, Field, Model, Outage, Policy, Tick, Totals, Transient};
use crate::support::{composite, run, Ran};

/// One generated study: a model, its days (each a list of outages) and how
/// its text is spelled.
#[derive(Debug, Clone)]
struct Config {
    name: String,
    model: Model,
    days: Vec<Vec<Outage>>,
    /// The value of `param policy` (what the isolation table runs).
    default: Policy,
    /// Write `marker 0 B` rather than leave the default.
    write_marker: bool,
    /// Which spelling of durations, sizes and ranges to use (0..4).
    style: usize,
}

// ------------------------------------------------------------- the axes --

/// Field sets: names, sources, core or optional, bytes.
fn field_sets() -> Vec<(&'static str, Vec<Field>)> {
    vec![
        (
            "document",
            vec![
                Field::new("status", "projection", true, 180),
                Field::new("route", "projection", true, 120),
                Field::new("eta", "estimator", false, 90),
                Field::new("fee", "pricing", false, 90),
            ],
        ),
        (
            "two fields",
            vec![
                Field::new("id", "db", true, 64),
                Field::new("photo", "cdn", false, 2048),
            ],
        ),
        (
            "three optional",
            vec![
                Field::new("a", "s1", false, 10),
                Field::new("b", "s2", false, 20),
                Field::new("c", "s3", false, 30),
            ],
        ),
        (
            "five, sources shared",
            vec![
                Field::new("name", "users", true, 40),
                Field::new("avatar", "cdn", false, 1024),
                Field::new("email", "users", true, 25),
                Field::new("score", "ranker", false, 8),
                Field::new("badge", "ranker", false, 3),
            ],
        ),
        (
            "all core",
            vec![
                Field::new("x", "p", true, 100),
                Field::new("y", "q", true, 50),
                Field::new("z", "q", true, 5),
            ],
        ),
        ("one field", vec![Field::new("solo", "only", true, 7)]),
    ]
}

const BOUNDS: [u64; 5] = [0, 1, 30, 60, 200];
const PERIODS: [Option<(u64, u64, u64)>; 7] = [
    None,
    Some((7, 0, 1)),
    Some((13, 2, 3)),
    Some((40, 0, 10)),
    Some((100, 5, 25)),
    Some((40, 0, 0)),
    Some((7, 3, 7)),
];
const WARMUPS: [u64; 5] = [0, 1, 60, 120, 300];
const MEASURED: [u64; 5] = [1, 17, 137, 300, 900];
const MARKERS: [u64; 5] = [0, 0, 1, 6, 64];

/// Distinct sources in field order.
fn sources(fields: &[Field]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in fields {
        if !out.contains(&f.source) {
            out.push(f.source.clone());
        }
    }
    out
}

/// The days of a model: nothing down; each source down after the warm-up
/// (the document's days); the sources of optional fields down together;
/// a core source down for the middle third; a source down from inside the
/// warm-up; and two staggered, overlapping outages.
fn days(m: &Model) -> Vec<Vec<Outage>> {
    let (w, n) = (m.warmup, m.measured);
    let end = w + n;
    let all = sources(&m.fields);
    let out = |s: &[&String], from: u64, to: u64| Outage {
        sources: s.iter().map(|s| s.to_string()).collect(),
        from,
        to,
    };
    let mut days = vec![Vec::new()];
    for s in &all {
        days.push(vec![out(&[s], w + 1, end)]);
    }
    let optional: Vec<&String> = all
        .iter()
        .filter(|s| m.fields.iter().all(|f| &f.source != *s || !f.core))
        .collect();
    if optional.len() >= 2 {
        days.push(vec![out(&optional, w + 1, end)]);
    }
    if n >= 3 {
        let core = m.fields.iter().find(|f| f.core).map(|f| &f.source);
        let s = core.unwrap_or(&all[0]);
        days.push(vec![out(&[s], w + n / 3 + 1, w + 2 * n / 3)]);
    }
    if w >= 2 {
        days.push(vec![out(&[&all[0]], w / 2 + 1, w + n.min(10))]);
    }
    if all.len() >= 2 && n >= 4 {
        let last = &all[all.len() - 1];
        days.push(vec![
            out(&[last], w + 1, w + n / 2),
            out(&[&all[0]], w + n / 4 + 1, w + 3 * n / 4),
        ]);
    }
    days
}

/// The structured grid: every field set with every bound, the other axes
/// rotating so each of their values meets several field sets; then the
/// document's fields over every period with every warm-up.
fn grid() -> Vec<Config> {
    let mut out = Vec::new();
    for (f, (set, fields)) in field_sets().into_iter().enumerate() {
        for (b, &stale_for) in BOUNDS.iter().enumerate() {
            let c = f * BOUNDS.len() + b;
            let all = sources(&fields);
            // Every fourth study: only the first source has blips.
            let blips_on = if c % 4 == 3 {
                all[..1].to_vec()
            } else {
                all.clone()
            };
            let model = Model {
                fields: fields.clone(),
                marker: MARKERS[(f + b) % MARKERS.len()],
                stale_for,
                transient: PERIODS[c % PERIODS.len()].map(|(every, phase, step)| Transient {
                    every,
                    phase,
                    step,
                }),
                blips_on,
                warmup: WARMUPS[(f + 2 * b) % WARMUPS.len()],
                measured: MEASURED[(2 * f + b) % MEASURED.len()],
            };
            out.push(Config {
                name: format!("{set}, bound {stale_for}"),
                days: days(&model),
                model,
                default: Policy::ALL[c % 3],
                write_marker: c.is_multiple_of(2),
                style: c % 4,
            });
        }
    }
    let (_, document) = field_sets().swap_remove(0);
    for (p, &period) in PERIODS.iter().enumerate() {
        for (w, &warmup) in WARMUPS.iter().enumerate() {
            let model = Model {
                fields: document.clone(),
                marker: 6,
                stale_for: BOUNDS[(p + w) % BOUNDS.len()],
                transient: period.map(|(every, phase, step)| Transient { every, phase, step }),
                blips_on: sources(&document),
                warmup,
                measured: 240,
            };
            let mut d = days(&model);
            d.truncate(4);
            out.push(Config {
                name: format!("document fields, period {period:?}, warm-up {warmup}"),
                days: d,
                model,
                default: Policy::StaleFallback,
                write_marker: true,
                style: (p + w) % 4,
            });
        }
    }
    out
}

/// A small deterministic generator for the random grid (splitmix64).
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.next() as usize % xs.len()]
    }
}

/// Studies drawn at random: 1 to 6 fields over up to 4 sources (so sources
/// are often shared), any mix of core and optional, odd sizes, markers and
/// bounds, any period, phase and step, blips on a random set of sources,
/// and three days of up to three outages each, of random sources over
/// random ticks (warm-up included).
fn random_grid(n: usize) -> Vec<Config> {
    let mut d = Dice(20_260_114);
    let pool = ["alpha", "beta", "gamma", "delta"];
    (0..n)
        .map(|k| {
            let count = d.range(1, 6) as usize;
            let fields: Vec<Field> = (0..count)
                .map(|i| {
                    Field::new(
                        &format!("f{i}"),
                        d.pick(&pool),
                        d.next().is_multiple_of(2),
                        d.pick(&[0, 1, 7, 90, 180, 1024, 3000]),
                    )
                })
                .collect();
            let all = sources(&fields);
            let transient = (!d.next().is_multiple_of(5)).then(|| {
                let every = d.range(2, 100);
                Transient {
                    every,
                    phase: d.range(0, every),
                    step: d.range(0, every),
                }
            });
            let mut blips_on: Vec<String> = all
                .iter()
                .filter(|_| !d.next().is_multiple_of(3))
                .cloned()
                .collect();
            if blips_on.is_empty() {
                blips_on.push(all[0].clone());
            }
            let warmup = d.pick(&[0, 1, 2, 17, 60, 300]);
            let measured = d.range(1, 400);
            let end = warmup + measured;
            let days = (0..3)
                .map(|_| {
                    (0..d.range(0, 3))
                        .map(|_| {
                            let mut sources: Vec<String> = all
                                .iter()
                                .filter(|_| d.next().is_multiple_of(2))
                                .cloned()
                                .collect();
                            if sources.is_empty() {
                                sources.push(d.pick(&pool).to_string());
                            }
                            sources.retain(|s| all.contains(s));
                            if sources.is_empty() {
                                sources.push(all[0].clone());
                            }
                            let from = d.range(1, end);
                            Outage {
                                sources,
                                from,
                                to: d.range(from, end),
                            }
                        })
                        .collect()
                })
                .collect();
            Config {
                name: format!("random {k}"),
                model: Model {
                    fields,
                    marker: d.range(0, 10),
                    stale_for: d.pick(&[0, 1, 2, 5, 30, 60, 200, 1000]),
                    transient,
                    blips_on,
                    warmup,
                    measured,
                },
                days,
                default: d.pick(&Policy::ALL),
                write_marker: d.next().is_multiple_of(2),
                style: d.range(0, 3) as usize,
            }
        })
        .collect()
}

// ------------------------------------------------------------- the text --

fn size(bytes: u64, style: usize) -> String {
    if bytes > 0 && bytes.is_multiple_of(1024) && style.is_multiple_of(2) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

fn duration(ticks: u64, style: usize) -> String {
    match style {
        1 => format!("{}ms", ticks * 1000),
        2 if ticks > 0 && ticks.is_multiple_of(60) => format!("{}min", ticks / 60),
        3 => format!("{ticks}"),
        _ => format!("{ticks}s"),
    }
}

/// A length of time where a plain number is refused under a wall clock
/// (a period, phase or step): style 3's plain ticks get their unit.
fn amount(ticks: u64, style: usize) -> String {
    duration(ticks, if style == 3 { 0 } else { style })
}

fn range(c: &Config, from: u64, to: u64) -> String {
    let (w, end) = (c.model.warmup, c.model.warmup + c.model.measured);
    if from == w + 1 && to == end && w > 0 && c.style != 1 {
        return "after warmup".into();
    }
    let from = duration(from, c.style);
    if to == end && c.style != 2 {
        format!("{from}..end")
    } else {
        format!("{from}..{}", duration(to, c.style))
    }
}

fn fault_name(day: usize, j: usize) -> String {
    format!("down{day}_{j}")
}

/// The scenario text of a configuration.
fn text(c: &Config) -> String {
    let m = &c.model;
    let mut s = format!("scenario \"{}\" {{\n  clock s\n", c.name);
    match (m.warmup, c.style) {
        (0, 0 | 1) => {}
        (w, st) => s.push_str(&format!("  warmup {}\n", duration(w, st))),
    }
    s.push_str(&format!("  run {}\n", duration(m.measured, c.style)));
    s.push_str(&format!("  param policy = {}\n", c.default.word()));
    s.push_str("  source samples { rate 1/s  enters front }\n");
    s.push_str(&format!(
        "  chain front -> [{}]\n",
        sources(&m.fields).join(", ")
    ));
    s.push_str("  service front {\n    response {\n");
    for f in &m.fields {
        s.push_str(&format!(
            "      field {} from {} {} {}\n",
            f.name,
            f.source,
            if f.core { "core" } else { "optional" },
            size(f.bytes, c.style)
        ));
    }
    if m.marker > 0 || c.write_marker {
        s.push_str(&format!("      marker {}\n", size(m.marker, c.style)));
    }
    s.push_str(&format!(
        "      policy $policy\n      ledger {{ entries 1000  stale_for {} }}\n    }}\n  }}\n",
        duration(m.stale_for, c.style)
    ));
    if let Some(g) = m.transient {
        let phase = if g.phase > 0 || c.style == 0 {
            format!("  phase {}", amount(g.phase, c.style))
        } else {
            String::new()
        };
        let step = if g.step > 0 || c.style == 0 {
            format!("  step {} per field", amount(g.step, c.style))
        } else {
            String::new()
        };
        s.push_str(&format!(
            "  fault blips {{ on {}  every {}{phase}{step}  fail timeout }}\n",
            m.blips_on.join(", "),
            amount(g.every, c.style)
        ));
    }
    for (k, day) in c.days.iter().enumerate() {
        for (j, o) in day.iter().enumerate() {
            s.push_str(&format!(
                "  fault {} {{ on {}  during {}  fail timeout }}\n",
                fault_name(k, j),
                o.sources.join(", "),
                range(c, o.from, o.to)
            ));
        }
    }
    s.push_str(&format!(
        "  window measured {}\n",
        range(c, m.warmup + 1, m.warmup + m.measured)
    ));
    let mut names = Vec::new();
    for k in 0..c.days.len() {
        let others: Vec<String> = c
            .days
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .flat_map(|(i, d)| (0..d.len()).map(move |j| fault_name(i, j)))
            .collect();
        let body = if others.is_empty() {
            String::new()
        } else {
            format!("without {}", others.join(", "))
        };
        s.push_str(&format!("  variant day{k} \"day {k}\" {{ {body} }}\n"));
        names.push(format!("day{k}"));
    }
    s.push_str(
        "  sweep policies \"policy\" { policy in [all_or_nothing, skip_optional, stale_fallback] }\n",
    );
    s.push_str(&format!(
        "  report {{\n    table \"grid\" {{\n      rows variants [{}] x sweep policies\n      at front\n      label \"day\", \"policy\"\n",
        names.join(", ")
    ));
    for (title, metric, digits) in COLUMNS {
        s.push_str(&format!(
            "      column \"{title}\" = measured.{metric} :.{digits}\n"
        ));
    }
    s.push_str(&format!(
        "    }}\n    isolation \"iso\" of front {{ variants [{}]  window measured }}\n  }}\n}}\n",
        names.join(", ")
    ));
    s
}

const COLUMNS: [(&str, &str, usize); 11] = [
    ("answered", "answered", 0),
    ("full", "full", 0),
    ("reduced", "reduced", 0),
    ("dropped", "dropped", 0),
    ("fresh", "fresh_fields", 0),
    ("stale", "stale_fields", 0),
    ("missing", "missing_fields", 0),
    ("bytes", "bytes", 0),
    ("avg bytes", "avg_bytes", 4),
    ("last answered", "last_answered", 0),
    ("arrivals", "arrivals", 0),
];

// ------------------------------------------------------- the comparison --

/// `x` rounded to `digits` as the JSON report holds it: a number, written
/// in its shortest form (`480.0`, `405.4`).
fn json_number(x: f64, digits: usize) -> String {
    let rounded: f64 = format!("{x:.digits$}").parse().expect("a number");
    serde_json::Number::from_f64(rounded)
        .expect("finite")
        .to_string()
}

/// A row of the grid table as the reference predicts it.
fn expected_row(c: &Config, day: usize, p: Policy, s: &Totals) -> Vec<String> {
    vec![
        format!("day {day}"),
        p.word().to_string(),
        s.answered().to_string(),
        s.full.to_string(),
        s.reduced.to_string(),
        s.dropped.to_string(),
        s.fresh.to_string(),
        s.stale.to_string(),
        s.missing.to_string(),
        s.bytes.to_string(),
        json_number(s.avg_bytes(), 4),
        s.last_answered.to_string(),
        c.model.measured.to_string(),
    ]
}

/// The isolation row the reference predicts for a day (at the default
/// policy): the sources with an outage, the fields they feed, their class.
fn expected_isolation(c: &Config, day: usize, s: &Totals) -> Vec<String> {
    let mut down: Vec<&String> = Vec::new();
    for o in &c.days[day] {
        for src in &o.sources {
            if !down.contains(&src) {
                down.push(src);
            }
        }
    }
    let hit: Vec<&Field> = c
        .model
        .fields
        .iter()
        .filter(|f| down.contains(&&f.source))
        .collect();
    let join = |v: Vec<&str>, empty: &str| {
        if v.is_empty() {
            empty.to_string()
        } else {
            v.join("+")
        }
    };
    vec![
        format!("day {day}"),
        join(down.iter().map(|s| s.as_str()).collect(), "none"),
        join(hit.iter().map(|f| f.name.as_str()).collect(), "—"),
        if hit.is_empty() {
            "—"
        } else if hit.iter().any(|f| f.core) {
            "core"
        } else {
            "optional"
        }
        .to_string(),
        s.answered().to_string(),
        json_number(s.avg_bytes(), 1),
        s.last_answered.to_string(),
    ]
}

/// Every tick of one run against the reference's ticks (warm-up included).
fn compare_ticks(ran: &Ran, key: RunKey, want: &[Tick]) -> Result<(), String> {
    let run = ran.run_of(key);
    let (c, ok) = composite(&run.obs, "front");
    for (i, w) in want.iter().enumerate() {
        let t = i + 1;
        let got = Tick {
            answered: ok[t] == 1,
            full: c.full[t] == 1,
            fresh: c.fresh[t],
            stale: c.stale[t],
            missing: c.missing[t],
            bytes: c.bytes[t],
        };
        if got != *w || ok[t] > 1 || c.full[t] + c.reduced[t] != ok[t] {
            return Err(format!(
                "{key:?}, tick {t}: squall {got:?} (ok {}, reduced {}), reference {w:?}",
                ok[t], c.reduced[t]
            ));
        }
    }
    Ok(())
}

/// Runs one configuration and lists every disagreement with the reference.
fn check(c: &Config) -> Vec<String> {
    let text = text(c);
    let ran = run(&c.name, &text);
    let mut problems = Vec::new();
    let mut want_rows = Vec::new();
    let mut want_iso = Vec::new();
    for (k, day) in c.days.iter().enumerate() {
        for (p, &policy) in Policy::ALL.iter().enumerate() {
            let (s, ticks) = kosum(&c.model, policy, day);
            // Every measured request is answered or dropped.
            assert_eq!(s.answered() + s.dropped, c.model.measured);
            want_rows.push(expected_row(c, k, policy, &s));
            if let Err(e) = compare_ticks(&ran, RunKey::Cross(k, 0, p), &ticks) {
                problems.push(e);
            }
            if policy == c.default {
                want_iso.push(expected_isolation(c, k, &s));
                if let Err(e) = compare_ticks(&ran, RunKey::Variant(k), &ticks) {
                    problems.push(format!("variant run: {e}"));
                }
            }
        }
    }
    let got = ran.table("grid");
    for (g, w) in got.iter().zip(&want_rows) {
        if g != w {
            problems.push(format!("grid row\n  squall    {g:?}\n  reference {w:?}"));
        }
    }
    if got.len() != want_rows.len() {
        problems.push(format!("{} grid rows, want {}", got.len(), want_rows.len()));
    }
    let mut iso = ran.table("iso");
    // A day with nothing down has no class; squall prints `optional` there
    // (see `hand::isolation_of_a_day_with_nothing_down`), so that cell is
    // not compared.
    for (row, want) in iso.iter_mut().zip(&want_iso) {
        if want[2] == "—" {
            row[3] = want[3].clone();
        }
    }
    if iso != want_iso {
        problems.push(format!(
            "isolation\n  squall    {iso:?}\n  reference {want_iso:?}"
        ));
    }
    if !problems.is_empty() {
        problems.insert(0, format!("== {}\n{text}", c.name));
    }
    problems
}

/// The grid is what it says: every axis value occurs, with each kind of
/// day, so the comparison below cannot pass by covering less.
#[test]
fn the_grid_covers_every_axis() {
    let g = grid();
    assert!(g.len() >= 60, "{} studies", g.len());
    for b in BOUNDS {
        assert!(g.iter().any(|c| c.model.stale_for == b), "bound {b}");
    }
    for p in PERIODS {
        let every = p.map(|(e, ..)| e);
        assert!(
            g.iter()
                .any(|c| c.model.transient.map(|t| t.every) == every),
            "period {p:?}"
        );
    }
    for w in WARMUPS {
        assert!(g.iter().any(|c| c.model.warmup == w), "warm-up {w}");
    }
    for n in MEASURED {
        assert!(g.iter().any(|c| c.model.measured == n), "measured {n}");
    }
    for (set, fields) in field_sets() {
        let n = g
            .iter()
            .filter(|c| {
                c.model.fields.len() == fields.len() && c.model.fields[0].name == fields[0].name
            })
            .count();
        assert!(n >= BOUNDS.len(), "{set}: {n} studies");
    }
    let several_down = g
        .iter()
        .flat_map(|c| &c.days)
        .filter(|d| d.iter().any(|o| o.sources.len() >= 2))
        .count();
    let partial = g
        .iter()
        .flat_map(|c| c.days.iter().map(move |d| (c, d)))
        .filter(|(c, d)| {
            d.iter()
                .any(|o| o.to < c.model.warmup + c.model.measured || o.from <= c.model.warmup)
        })
        .count();
    let two_outages = g
        .iter()
        .flat_map(|c| &c.days)
        .filter(|d| d.len() >= 2)
        .count();
    assert!(
        several_down >= 10,
        "{several_down} days with several sources down"
    );
    assert!(partial >= 20, "{partial} days with a partial outage");
    assert!(two_outages >= 20, "{two_outages} days with two outages");
    for p in Policy::ALL {
        assert!(g.iter().any(|c| c.default == p), "default {p:?}");
    }
}

/// squall agrees with the reference on every study of the grid, for all
/// three policies: totals, isolation rows and every tick.
#[test]
fn squall_matches_the_reference_over_the_grid() {
    let mut problems = Vec::new();
    let mut runs = 0;
    for c in grid() {
        runs += c.days.len() * Policy::ALL.len();
        problems.extend(check(&c));
    }
    assert!(runs >= 500, "only {runs} runs compared");
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems
            .iter()
            .take(12)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// squall agrees with the reference on randomly drawn studies too.
#[test]
fn squall_matches_the_reference_at_random() {
    let grid = random_grid(150);
    let shared = grid
        .iter()
        .filter(|c| sources(&c.model.fields).len() < c.model.fields.len())
        .count();
    assert!(shared >= 30, "only {shared} studies share a source");
    let mut problems = Vec::new();
    for c in &grid {
        problems.extend(check(c));
    }
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems
            .iter()
            .take(12)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// One generated scenario as text, so a reader can see what the grid runs.
#[test]
fn a_generated_scenario_reads_like_a_hand_written_one() {
    let c = grid()
        .into_iter()
        .find(|c| c.name == "five, sources shared, bound 1")
        .expect("the study exists");
    insta::assert_snapshot!("generated_scenario", text(&c));
}
