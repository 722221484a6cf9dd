//! Every number seed document 001 prints, from `scenarios/degradation.squall`,
//! read from the JSON report as printed; and the full report as snapshots.

use std::sync::OnceLock;

use squall_lang::RunKey;

use crate::support::{run_file, Ran};

const FILE: &str = "scenarios/degradation.squall";

/// The study, run once for every test of this module.
fn ran() -> &'static Ran {
    static RAN: OnceLock<Ran> = OnceLock::new();
    RAN.get_or_init(|| run_file(FILE))
}

const DAY_COLUMNS: [&str; 10] = [
    "policy",
    "answered",
    "full",
    "reduced",
    "dropped",
    "fresh",
    "stale",
    "missing",
    "avg bytes",
    "last answered",
];

/// A day table, checked cell by cell (printed and as data), and its rows in
/// the document's own shape (`taze/bayat/eksik alan` in one cell).
fn day(title: &str, want: &[&[&str]], document: &[&str]) {
    let ran = ran();
    ran.assert_table(title, &DAY_COLUMNS, want);
    let as_printed: Vec<String> = ran
        .printed(title)
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {} {}/{}/{} {} {}",
                r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9]
            )
        })
        .collect();
    assert_eq!(as_printed, document, "{title}");
}

/// `-- arizasiz --`: no fault.
#[test]
fn no_fault_day() {
    day(
        "no fault",
        &[
            &[
                "all_or_nothing",
                "810",
                "810",
                "0",
                "90",
                "3240",
                "0",
                "0",
                "504.0",
                "899",
            ],
            &[
                "skip_optional",
                "856",
                "810",
                "46",
                "44",
                "3378",
                "0",
                "46",
                "498.8",
                "900",
            ],
            &[
                "stale_fallback",
                "900",
                "810",
                "90",
                "0",
                "3510",
                "90",
                "0",
                "504.0",
                "900",
            ],
        ],
        &[
            "810 810 0 90 3240/0/0 504.0 899",
            "856 810 46 44 3378/0/46 498.8 900",
            "900 810 90 0 3510/90/0 504.0 900",
        ],
    );
}

/// `-- AY14a: ucretlendirme durdu (istege bagli alan) --`: pricing down.
#[test]
fn pricing_down_day() {
    day(
        "pricing down (optional field)",
        &[
            &[
                "all_or_nothing",
                "0",
                "0",
                "0",
                "900",
                "0",
                "0",
                "0",
                "0.0",
                "0",
            ],
            &[
                "skip_optional",
                "856",
                "0",
                "856",
                "44",
                "2545",
                "0",
                "879",
                "405.4",
                "900",
            ],
            &[
                "stale_fallback",
                "900",
                "0",
                "900",
                "0",
                "2633",
                "127",
                "840",
                "414.4",
                "900",
            ],
        ],
        &[
            "0 0 0 900 0/0/0 0.0 0",
            "856 0 856 44 2545/0/879 405.4 900",
            "900 0 900 0 2633/127/840 414.4 900",
        ],
    );
}

/// `-- AY14b: izdusum durdu (cekirdek alan) --`: projection down.
#[test]
fn projection_down_day() {
    day(
        "projection down (core fields)",
        &[
            &[
                "all_or_nothing",
                "0",
                "0",
                "0",
                "900",
                "0",
                "0",
                "0",
                "0.0",
                "0",
            ],
            &[
                "skip_optional",
                "0",
                "0",
                "0",
                "900",
                "0",
                "0",
                "0",
                "0.0",
                "0",
            ],
            &[
                "stale_fallback",
                "59",
                "0",
                "59",
                "841",
                "115",
                "121",
                "0",
                "504.0",
                "59",
            ],
        ],
        &[
            "0 0 0 900 0/0/0 0.0 0",
            "0 0 0 900 0/0/0 0.0 0",
            "59 0 59 841 115/121/0 504.0 59",
        ],
    );
}

/// `-- arizasiz gunun bedeli --`: the four cost lines.
#[test]
fn cost_of_a_fault_free_day() {
    let lines = ran().lines();
    assert_eq!(
        lines,
        [
            "the cost of a fault-free day:",
            "freshness marker 6 B x 4 fields = 24 B/response = 5.0% of 480 B = 9.77 KiB/s at peak",
            "ledger 5000 entries x 480 B = 2.29 MiB; one write per fresh field = 1666.68 writes/s at peak",
            "all-or-nothing drops 90/900 requests on a fault-free day = 41.67 req/s at peak",
            "stale-fallback drops 0 and serves 90 stale fields = 2.50% of fields",
        ]
    );
    // Each number the document prints, as printed, in its line.
    for (line, numbers) in [
        (
            1,
            &["6 B", "4 fields", "24 B", "5.0%", "480 B", "9.77 KiB/s"][..],
        ),
        (2, &["5000", "480 B", "2.29 MiB", "1666.68 writes/s"][..]),
        (3, &["90/900", "41.67 req/s"][..]),
        (4, &["drops 0", "90 stale", "2.50%"][..]),
    ] {
        for n in numbers {
            assert!(lines[line].contains(n), "`{n}` not in {:?}", lines[line]);
        }
    }
}

/// `-- kesinti butcesine yansimasi --`: minutes of outage and the share of
/// the 28.2-minute monthly budget.
#[test]
fn outage_budget() {
    let title = "outage budget (15 min fault, once a month)";
    ran().assert_table(
        title,
        &[
            "scenario",
            "policy",
            "answered",
            "outage min",
            "share of budget %",
        ],
        &[
            &["pricing down", "all_or_nothing", "0", "15.00", "53.2"],
            &["pricing down", "skip_optional", "856", "0.73", "2.6"],
            &["pricing down", "stale_fallback", "900", "0.00", "0.0"],
            &["projection down", "all_or_nothing", "0", "15.00", "53.2"],
            &["projection down", "skip_optional", "0", "15.00", "53.2"],
            &["projection down", "stale_fallback", "59", "14.02", "49.7"],
        ],
    );
}

/// `-- yalitimin siniri --`: which source down leaves what.
#[test]
fn isolation() {
    let title = "isolation (stale-fallback): which source down leaves what";
    ran().assert_table(
        title,
        &[
            "case",
            "source down",
            "fields hit",
            "class",
            "answered",
            "avg bytes",
            "last answered",
        ],
        &[
            &[
                "pricing down",
                "pricing",
                "fee",
                "optional",
                "900",
                "414.4",
                "900",
            ],
            &[
                "estimator down",
                "estimator",
                "eta",
                "optional",
                "900",
                "414.4",
                "900",
            ],
            &[
                "projection down",
                "projection",
                "status+route",
                "core",
                "59",
                "504.0",
                "59",
            ],
        ],
    );
}

/// The document's frame: 120 warm-up rounds then 900 measured, one sample
/// request a round; the fields add up to the 480-byte response.
#[test]
fn frame_of_the_study() {
    let ran = ran();
    assert_eq!(ran.json["meta"]["run"], "1020 s");
    let run = ran.run_of(RunKey::Variant(0));
    assert_eq!((run.model.warmup, run.model.ticks), (120, 1020));
    let tracking = run
        .model
        .nodes
        .iter()
        .find(|n| n.name == "tracking")
        .expect("a tracking node");
    let c = tracking.composite.as_ref().expect("a composite response");
    let fields: Vec<(&str, bool, u64)> = c
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.core, f.bytes))
        .collect();
    assert_eq!(
        fields,
        [
            ("status", true, 180),
            ("route", true, 120),
            ("eta", false, 90),
            ("fee", false, 90)
        ]
    );
    assert_eq!(c.fields.iter().map(|f| f.bytes).sum::<u64>(), 480);
    assert_eq!(c.marker, 6);
    let ledger = c.ledger.as_ref().expect("a ledger");
    assert_eq!((ledger.entries, ledger.stale_for), (5000, 60));
    assert_eq!(
        ran.table("no fault")
            .iter()
            .map(|r| r[1].parse::<u64>().expect("a count") + r[4].parse::<u64>().expect("a count"))
            .collect::<Vec<_>>(),
        [900, 900, 900],
        "answered + dropped = the 900 measured requests"
    );
}

/// The whole report, as text and as JSON.
#[test]
fn report_snapshots() {
    let ran = ran();
    insta::assert_snapshot!("degradation_report", ran.text);
    insta::assert_snapshot!(
        "degradation_json",
        serde_json::to_string_pretty(&ran.json).expect("JSON")
    );
}
