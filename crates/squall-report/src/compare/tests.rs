use super::*;
use crate::document::Cell;

fn report(amp: f64, line: &str) -> Report {
    Report {
        title: "t".into(),
        meta: vec![
            ("file".into(), "a.squall".into()),
            ("seed".into(), "1".into()),
        ],
        blocks: vec![
            Block::text(line.into()),
            Block::Table(Table {
                title: "cases".into(),
                columns: vec!["case".into(), "amplification".into(), "success".into()],
                rows: vec![
                    vec![
                        Cell::Text("storm".into()),
                        Cell::Number(amp, 2),
                        Cell::Number(0.04, 4),
                    ],
                    vec![
                        Cell::Text("calm".into()),
                        Cell::Number(1.0, 2),
                        Cell::Missing,
                    ],
                ],
            }),
            Block::Table(Table {
                title: "same".into(),
                columns: vec!["x".into()],
                rows: vec![vec![Cell::Text("y".into())]],
            }),
        ],
        pairing: None,
    }
}

#[test]
fn changed_cells_show_old_new_and_relative_change() {
    let c = compare(
        &report(6.25, "a"),
        &report(5.0, "b"),
        DiffStyle::Text { color: false },
    );
    assert!(c.changed);
    assert!(c.text.contains("6.25 → 5.00 (-20.0%)"), "{}", c.text);
    assert!(
        !c.text.contains("calm"),
        "unchanged rows are left out: {}",
        c.text
    );
    assert!(c.text.contains("- a\n+ b\n"), "{}", c.text);
    assert!(c.text.contains("unchanged\n- same\n"), "{}", c.text);
}

#[test]
fn the_same_report_is_the_same_even_from_another_file() {
    let a = report(6.25, "a");
    let mut b = a.clone();
    b.meta[0].1 = "b.squall".into();
    let c = compare(&a, &b, DiffStyle::Markdown { level: 2 });
    assert!(!c.changed, "{}", c.text);
}

#[test]
fn json_reports_read_back() {
    let a = report(6.25, "a");
    let back = Report::from_json(&a.to_json()).unwrap_or_else(|e| report(0.0, &e));
    assert_eq!(back.title, a.title);
    assert_eq!(back.blocks.len(), a.blocks.len());
    // Digits are not stored in JSON (`0.0500` reads back as `0.05`), yet
    // the numbers compare equal.
    let c = compare(&a, &back, DiffStyle::Markdown { level: 2 });
    assert!(!c.changed, "{}", c.text);
    let c = compare(&report(5.0, "a"), &back, DiffStyle::Markdown { level: 2 });
    assert!(c.text.contains("**5.00 → 6.25 (+25.0%)**"), "{}", c.text);
}

fn replicated(mean: f64, half: f64) -> Report {
    let i = crate::interval::Interval {
        mean,
        half_width: Some(half),
        n: 10,
        replications: 10,
        never: 0,
        values: Vec::new(),
    };
    Report {
        title: "t".into(),
        meta: vec![],
        blocks: vec![Block::Table(Table {
            title: "cases".into(),
            columns: vec!["case".into(), "calls".into()],
            rows: vec![vec![Cell::Text("storm".into()), Cell::Interval(i, 1)]],
        })],
        pairing: None,
    }
}

#[test]
fn a_changed_mean_says_whether_it_is_more_than_noise() {
    let text = |a: &Report, b: &Report| compare(a, b, DiffStyle::Text { color: false }).text;
    let noise = text(&replicated(100.0, 3.0), &replicated(102.0, 3.0));
    assert!(
        noise.contains("100.0 ± 3.0 → 102.0 ± 3.0 (+2.0%, within noise)"),
        "{noise}"
    );
    let change = text(&replicated(100.0, 3.0), &replicated(110.0, 3.0));
    assert!(change.contains("(+10.0%, beyond noise)"), "{change}");
    // A JSON report keeps the intervals.
    let a = replicated(100.0, 3.0);
    let back = Report::from_json(&a.to_json()).unwrap_or_else(|e| report(0.0, &e));
    assert!(!compare(&a, &back, DiffStyle::Markdown { level: 2 }).changed);
    assert_eq!(back.to_text(), a.to_text());
    // JSON drops trailing zeros (`4.10 ± 0.10` reads back as `4.1 ± 0.1`),
    // yet the cells compare equal.
    let mut tens = replicated(4.1, 0.1);
    if let Block::Table(t) = &mut tens.blocks[0] {
        if let Cell::Interval(_, d) = &mut t.rows[0][1] {
            *d = 2;
        }
    }
    let back = Report::from_json(&tens.to_json()).unwrap_or_else(|e| report(0.0, &e));
    assert_ne!(back.to_text(), tens.to_text());
    assert!(!compare(&tens, &back, DiffStyle::Markdown { level: 2 }).changed);
}

fn text(s: &str) -> Cell {
    Cell::Text(s.into())
}

fn one_table(t: Table, meta: Vec<(String, String)>) -> Report {
    Report {
        title: "t".into(),
        meta,
        blocks: vec![Block::Table(t)],
        pairing: None,
    }
}

/// `label "case", "window"`: two label columns, two rows per case.
fn windows(during: f64) -> Table {
    Table {
        title: "the database".into(),
        columns: vec!["case".into(), "window".into(), "tries".into()],
        rows: vec![
            vec![text("storm"), text("during"), Cell::Number(during, 2)],
            vec![text("storm"), text("after"), Cell::Number(1.01, 2)],
            vec![text("calm"), text("during"), Cell::Number(1.0, 2)],
            vec![text("calm"), text("after"), Cell::Number(1.0, 2)],
        ],
    }
}

#[test]
fn a_row_is_keyed_by_all_its_label_cells() {
    // On 5ae4b19 rows were keyed by their first cell, so `storm, after`
    // replaced `storm, during` and the change 8.82 -> 3.32 was not shown.
    let (a, b) = (
        one_table(windows(8.82), vec![]),
        one_table(windows(3.32), vec![]),
    );
    let c = compare(&a, &b, DiffStyle::Text { color: false });
    assert!(c.changed && c.beyond_noise, "{}", c.text);
    // (3.32 - 8.82) / 8.82 = -62.36 %, printed with one digit.
    assert!(
        c.text.contains("storm  during  8.82 → 3.32 (-62.4%)"),
        "{}",
        c.text
    );
    // The other three rows are unchanged, and said to be.
    assert!(c.text.contains("(3 rows unchanged)"), "{}", c.text);
}

#[test]
fn rows_of_a_sweep_with_two_varied_params_are_all_kept() {
    // Two varied params as two label columns; the old sweep has spacing 2
    // and 4, the new one 4 and 8: `attempts=N, spacing=2` removed,
    // `spacing=8` added, `spacing=4` compared.
    let sweep = |spacings: [&str; 2], x: f64| Table {
        title: "points".into(),
        columns: vec!["attempts".into(), "spacing".into(), "calls".into()],
        rows: ["1", "2"]
            .iter()
            .flat_map(|a| spacings.iter().map(move |s| (*a, *s)))
            .map(|(a, s)| vec![text(a), text(s), Cell::Number(x, 1)])
            .collect(),
    };
    let d = rows::table_diff(
        &sweep(["2", "4"], 5.0),
        &sweep(["4", "8"], 6.0),
        rows::Judge::default(),
    );
    let kinds: Vec<(String, String, RowChange)> = d
        .rows
        .iter()
        .map(|r| (r.cells[0].0.clone(), r.cells[1].0.clone(), r.change))
        .collect();
    let changed = RowChange::Changed(Noise::Beyond);
    assert_eq!(
        kinds,
        vec![
            ("1".into(), "4".into(), changed),
            ("+ 1".into(), "8".into(), RowChange::Added),
            ("2".into(), "4".into(), changed),
            ("+ 2".into(), "8".into(), RowChange::Added),
            ("- 1".into(), "2".into(), RowChange::Removed),
            ("- 2".into(), "2".into(), RowChange::Removed),
        ]
    );
}

#[test]
fn an_expectation_is_matched_by_its_text_and_a_flip_is_named() {
    let expectations = |line: u32, actual: f64, result: &str| {
        one_table(
            Table {
                title: "expectations".into(),
                columns: vec!["expect".into(), "actual".into(), "result".into()],
                rows: vec![vec![
                    text(&format!("line {line}: expect x > 2")),
                    Cell::Number(actual, 4),
                    text(result),
                ]],
            },
            vec![],
        )
    };
    // Moved from line 40 to 41 (a line added above) and now failing.
    let c = compare(
        &expectations(40, 3.0, "ok"),
        &expectations(41, 1.5, "FAILED"),
        DiffStyle::Text { color: false },
    );
    assert_eq!(
        c.flipped,
        vec![Flip {
            expect: "line 41: expect x > 2".into(),
            old: "ok".into(),
            new: "FAILED".into(),
        }]
    );
    assert!(!c.text.contains("+ line"), "matched, not added: {}", c.text);
    // Moved only: the same expectation, nothing changed.
    let c = compare(
        &expectations(40, 3.0, "ok"),
        &expectations(41, 3.0, "ok"),
        DiffStyle::Text { color: false },
    );
    assert!(!c.changed, "{}", c.text);
}

#[test]
fn a_change_within_noise_is_a_change_but_not_beyond_noise() {
    let with_meta = |mean: f64, total: f64, seed: &str| {
        let i = crate::interval::Interval {
            mean,
            half_width: Some(3.0),
            n: 10,
            replications: 10,
            never: 0,
            values: Vec::new(),
        };
        one_table(
            Table {
                title: "cases".into(),
                columns: vec!["case".into(), "calls".into(), "dropped".into()],
                rows: vec![vec![
                    text("storm"),
                    Cell::Interval(i, 1),
                    Cell::Number(total, 0),
                ]],
            },
            vec![
                ("seed".into(), seed.into()),
                ("replications".into(), "10".into()),
            ],
        )
    };
    // 100 ± 3 and 102 ± 3 overlap (|102 - 100| = 2 <= 6); the total 1303 ->
    // 1290 is a sum over the same noisy replications; the seed is a fact.
    let c = compare(
        &with_meta(100.0, 1303.0, "1"),
        &with_meta(102.0, 1290.0, "2"),
        DiffStyle::Text { color: false },
    );
    assert!(c.changed && !c.beyond_noise, "{}", c.text);
    assert!(
        c.text.ends_with("the reports differ within noise only\n"),
        "{}",
        c.text
    );
    // 110 ± 3 is apart from 100 ± 3 (10 > 6).
    let c = compare(
        &with_meta(100.0, 1303.0, "1"),
        &with_meta(110.0, 1303.0, "1"),
        DiffStyle::Text { color: false },
    );
    assert!(c.beyond_noise, "{}", c.text);
    // Without replications a number is one run's: any change is real.
    let plain = |x: f64| one_table(windows(x), vec![("seed".into(), "1".into())]);
    assert!(compare(&plain(1.0), &plain(1.1), DiffStyle::Markdown { level: 2 }).beyond_noise);
}

/// A small seeded generator (SplitMix64): the property test's tables.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random table: 1-3 label columns of a few values each (so labels
/// repeat, in the first cell and as whole keys), 0-3 number columns,
/// sometimes a missing cell or a text data cell.
fn random_table(rng: &mut Rng, labels: usize, values: usize) -> Table {
    let mut columns: Vec<String> = (0..labels).map(|i| format!("l{i}")).collect();
    columns.extend((0..values).map(|i| format!("v{i}")));
    let rows = (0..rng.below(12))
        .map(|_| {
            let mut r: Vec<Cell> = (0..labels)
                .map(|_| text(["a", "b", "c", "line 3: x"][rng.below(4) as usize]))
                .collect();
            r.extend((0..values).map(|_| match rng.below(8) {
                0 => Cell::Missing,
                1 => text("ok"),
                n => Cell::Number(n as f64 * 0.5, 1),
            }));
            r
        })
        .collect();
    Table {
        title: "t".into(),
        columns,
        rows,
    }
}

#[test]
fn every_row_of_either_table_is_in_the_diff_exactly_once() {
    let cases = if std::env::var_os("SQUALL_LONG_TESTS").is_some() {
        200_000
    } else {
        2_000
    };
    let mut rng = Rng(19);
    for case in 0..cases {
        let labels = 1 + rng.below(3) as usize;
        let (va, vb) = (rng.below(4) as usize, rng.below(4) as usize);
        let a = random_table(&mut rng, labels, va);
        let b = random_table(&mut rng, labels, vb);
        let d = rows::table_diff(
            &a,
            &b,
            rows::Judge {
                replicated: rng.below(2) == 0,
                paired: false,
            },
        );
        let mut old: Vec<usize> = d.rows.iter().filter_map(|r| r.old).collect();
        let mut new: Vec<usize> = d.rows.iter().filter_map(|r| r.new).collect();
        old.sort_unstable();
        new.sort_unstable();
        let all = |n: usize| (0..n).collect::<Vec<_>>();
        assert_eq!(old, all(a.rows.len()), "case {case}: {a:?} {b:?} {d:?}");
        assert_eq!(new, all(b.rows.len()), "case {case}: {a:?} {b:?} {d:?}");
        for r in &d.rows {
            assert_eq!(r.cells.len(), d.columns.len(), "case {case}: {d:?}");
            match (r.change, r.old, r.new) {
                (RowChange::Added, None, Some(_)) | (RowChange::Removed, Some(_), None) => {}
                (RowChange::Unchanged | RowChange::Changed(_), Some(i), Some(j)) => {
                    // Matched rows share their labels, and a row is
                    // unchanged exactly when no cell is highlighted.
                    let key = |t: &Table, k: usize| -> Vec<String> {
                        t.rows[k][..d.labels]
                            .iter()
                            .map(|c| c.display().replace("line 3: ", ""))
                            .collect()
                    };
                    assert_eq!(key(&a, i), key(&b, j), "case {case}");
                    let hot = r.cells.iter().any(|(_, h)| *h);
                    assert_eq!(hot, r.change != RowChange::Unchanged, "case {case}: {r:?}");
                }
                other => panic!("case {case}: a row diff {other:?}"),
            }
        }
    }
}
