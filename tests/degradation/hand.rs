//! Cases derived by hand from the rules, each with its derivation, so a
//! reader can check them without the reference.

use squall_lang::RunKey;

use crate::support::{composite, run};

/// The measured totals of one policy, from the report's JSON.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    answered: u64,
    full: u64,
    reduced: u64,
    dropped: u64,
    fresh: u64,
    stale: u64,
    missing: u64,
    bytes: u64,
    avg: f64,
    last: u64,
}

/// A study of `front`, whose response is `response` (fields, marker,
/// ledger; the policy is `$policy`) and whose fields come from `sources`.
struct Hand<'a> {
    warmup: u64,
    measured: u64,
    rate: u64,
    sources: &'a str,
    response: &'a str,
    /// Faults and anything else, one item a line.
    items: &'a str,
}

impl Default for Hand<'_> {
    fn default() -> Self {
        Hand {
            warmup: 50,
            measured: 300,
            rate: 1,
            sources: "projection, estimator, pricing",
            response: DOCUMENT_FIELDS,
            items: "",
        }
    }
}

const DOCUMENT_FIELDS: &str = "
      field status from projection core     180 B
      field route  from projection core     120 B
      field eta    from estimator  optional  90 B
      field fee    from pricing    optional  90 B
      marker 6 B
      ledger { entries 5000  stale_for 60s }";

const COLUMNS: [&str; 10] = [
    "answered",
    "full",
    "reduced",
    "dropped",
    "fresh_fields",
    "stale_fields",
    "missing_fields",
    "bytes",
    "avg_bytes",
    "last_answered",
];

impl Hand<'_> {
    fn text(&self) -> String {
        let warmup = if self.warmup > 0 {
            format!("  warmup {}s\n", self.warmup)
        } else {
            String::new()
        };
        let window = if self.warmup > 0 {
            "after warmup".to_string()
        } else {
            "1..end".to_string()
        };
        let columns: String = COLUMNS
            .iter()
            .map(|c| format!("      column \"{c}\" = measured.{c} :.6\n"))
            .collect();
        format!(
            "scenario \"hand\" {{
  clock s
{warmup}  run {measured}s
  param policy = stale_fallback
  source samples {{ rate {rate}/s  enters front }}
  chain front -> [{sources}]
  service front {{
    response {{{response}
      policy $policy
    }}
  }}
{items}
  window measured {window}
  sweep policies \"policy\" {{ policy in [all_or_nothing, skip_optional, stale_fallback] }}
  report {{
    table \"t\" {{
      rows sweep policies
      at front
      label \"policy\"
{columns}    }}
  }}
}}
",
            measured = self.measured,
            rate = self.rate,
            sources = self.sources,
            response = self.response,
            items = self.items,
        )
    }

    /// The rows for all_or_nothing, skip_optional and stale_fallback.
    fn rows(&self) -> [Row; 3] {
        let ran = run("hand", &self.text());
        let table = ran.table("t");
        assert_eq!(table.len(), 3);
        let row = |r: &Vec<String>| {
            let n: Vec<f64> = r[1..]
                .iter()
                .map(|c| c.parse().expect("a number"))
                .collect();
            let u = |i: usize| n[i] as u64;
            Row {
                answered: u(0),
                full: u(1),
                reduced: u(2),
                dropped: u(3),
                fresh: u(4),
                stale: u(5),
                missing: u(6),
                bytes: u(7),
                avg: n[8],
                last: u(9),
            }
        };
        assert_eq!(
            table.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
            ["all_or_nothing", "skip_optional", "stale_fallback"]
        );
        [row(&table[0]), row(&table[1]), row(&table[2])]
    }
}

fn full_day(n: u64, fields: u64, per_response: u64) -> Row {
    Row {
        answered: n,
        full: n,
        reduced: 0,
        dropped: 0,
        fresh: n * fields,
        stale: 0,
        missing: 0,
        bytes: n * per_response,
        avg: per_response as f64,
        last: n,
    }
}

fn dropped_all(n: u64) -> Row {
    Row {
        answered: 0,
        full: 0,
        reduced: 0,
        dropped: n,
        fresh: 0,
        stale: 0,
        missing: 0,
        bytes: 0,
        avg: 0.0,
        last: 0,
    }
}

/// No transient timeouts and nothing down: every field is fresh every
/// tick, so every policy answers every request in full, and a response
/// weighs Σ(bytes + marker).
#[test]
fn nothing_fails_every_response_is_full() {
    // The document's fields: 180 + 120 + 90 + 90 + 4 x 6 = 504 B.
    let h = Hand::default();
    assert_eq!(h.rows(), [0, 1, 2].map(|_| full_day(300, 4, 504)));
    // Other fields, a KiB size and no marker (the default, 0 B), no warm-up:
    // 64 + 2048 = 2112 B.
    let h = Hand {
        warmup: 0,
        measured: 77,
        sources: "db, cdn",
        response: "
      field id    from db  core     64 B
      field photo from cdn optional 2 KiB
      ledger { stale_for 5s }",
        ..Hand::default()
    };
    assert_eq!(h.rows(), [0, 1, 2].map(|_| full_day(77, 2, 2112)));
}

/// A core source down from the end of the warm-up on, with no transient
/// timeouts. Its fields were last fresh at the warm-up's last tick W, so at
/// measured tick k (t = W + k) their age is k: stale-fallback serves them
/// while k <= B and answers exactly min(B, measured) requests, the last at
/// tick min(B, measured). The other policies answer nothing: a core field
/// is never fresh.
#[test]
fn a_core_source_down_leaves_exactly_the_bound() {
    for bound in [0, 1, 30, 200, 299, 300, 450] {
        let response = DOCUMENT_FIELDS.replace("stale_for 60s", &format!("stale_for {bound}s"));
        let h = Hand {
            response: &response,
            items: "  fault down { on projection  during after warmup  fail timeout }",
            ..Hand::default()
        };
        let [strict, skip, stale] = h.rows();
        assert_eq!(strict, dropped_all(300), "bound {bound}");
        assert_eq!(skip, dropped_all(300), "bound {bound}");
        let b = bound.min(300);
        // Two core fields stale, two optional fields fresh: all 504 B.
        let want = Row {
            answered: b,
            full: 0,
            reduced: b,
            dropped: 300 - b,
            fresh: 2 * b,
            stale: 2 * b,
            missing: 0,
            bytes: 504 * b,
            avg: if b == 0 { 0.0 } else { 504.0 },
            last: b,
        };
        assert_eq!(stale, want, "bound {bound}");
    }
}

/// The document's 59: a transient timeout struck `status` at the warm-up's
/// last tick (120 is a multiple of 40), so its last fresh value is from
/// tick W - 1 and stale-fallback answers B - 1. Here W = 80, also a
/// multiple of 40, B = 30: 29 answers.
#[test]
fn a_blip_at_the_end_of_the_warm_up_costs_one_answer() {
    let response = DOCUMENT_FIELDS.replace("stale_for 60s", "stale_for 30s");
    let h = Hand {
        warmup: 80,
        response: &response,
        items: "  fault blips { on projection, estimator, pricing  every 40s  phase 0s  step 10s per field  fail timeout }
  fault down { on projection  during after warmup  fail timeout }",
        ..Hand::default()
    };
    let [_, _, stale] = h.rows();
    assert_eq!((stale.answered, stale.last), (29, 29));
    // In ticks 81..=109 eta (i = 2) blips where (t + 20) % 40 == 0, at 100,
    // and fee (i = 3) where (t + 30) % 40 == 0, at 90: both are served
    // stale, one round old.
    assert_eq!(
        (stale.fresh, stale.stale, stale.missing),
        (29 * 2 - 2, 29 * 2 + 2, 0)
    );
}

/// The document's phases 0, 10, 20, 30 tile the 40-round period: every
/// tenth round exactly one field times out. All-or-nothing drops those
/// rounds (90 of 900); skip-optional only those where a core field times
/// out, t % 40 == 0 (status) or t % 40 == 30 (route): in 121..=1020 that
/// is 160..=1000 and 150..=990, 22 + 22 = 44. Stale-fallback serves each
/// timed-out field from a value one round old and drops nothing.
#[test]
fn transient_timeouts_tile_the_period() {
    let h = Hand {
        warmup: 120,
        measured: 900,
        items: "  fault blips { on projection, estimator, pricing  every 40s  phase 0s  step 10s per field  fail timeout }",
        ..Hand::default()
    };
    let [strict, skip, stale] = h.rows();
    assert_eq!((strict.answered, strict.dropped), (810, 90));
    assert_eq!((skip.answered, skip.dropped, skip.missing), (856, 44, 46));
    assert_eq!(
        (stale.answered, stale.dropped, stale.stale, stale.reduced),
        (900, 0, 90, 90)
    );
    // The tick after the last dropped one is the last answered: 1020 is a
    // multiple of 10 but not of 40 (it is 20 mod 40, eta's phase), so
    // all-or-nothing's last answer is 899.
    assert_eq!((strict.last, skip.last, stale.last), (899, 900, 900));
}

/// A phase shifts every strike: `phase 10s` moves field i's strikes to
/// (t + 10 + 10 i) % 40 == 0, one field along; with four fields the same
/// rounds are struck, so all-or-nothing still drops 90, but the core
/// fields are now struck at t % 40 == 30 and 20: 22 + 23 = 45.
#[test]
fn a_phase_moves_the_strikes() {
    let h = Hand {
        warmup: 120,
        measured: 900,
        items: "  fault blips { on projection, estimator, pricing  every 40s  phase 10s  step 10s per field  fail timeout }",
        ..Hand::default()
    };
    let [strict, skip, _] = h.rows();
    assert_eq!(strict.dropped, 90);
    // t % 40 == 30: 150..=990 (22); t % 40 == 20: 140..=1020 (23).
    assert_eq!(skip.dropped, 45);
}

/// A period of one tick strikes every call: no field is ever fresh and the
/// ledger stays empty ("a field never seen has no fallback"), so nothing
/// is answered while a core field exists; with only optional fields,
/// skip-optional and stale-fallback answer every request with no field.
#[test]
fn a_period_of_one_tick_leaves_nothing_fresh() {
    let blips = "  fault blips { on a, b  every 1s  fail timeout }";
    let h = Hand {
        sources: "a, b",
        response: "
      field x from a core     10 B
      field y from b optional 20 B
      marker 2 B
      ledger { stale_for 1000s }",
        items: blips,
        ..Hand::default()
    };
    assert_eq!(h.rows(), [0, 1, 2].map(|_| dropped_all(300)));
    let h = Hand {
        response: "
      field x from a optional 10 B
      field y from b optional 20 B
      marker 2 B
      ledger { stale_for 1000s }",
        ..h
    };
    let [strict, skip, stale] = h.rows();
    assert_eq!(strict, dropped_all(300));
    let empty = Row {
        answered: 300,
        full: 0,
        reduced: 300,
        dropped: 0,
        fresh: 0,
        stale: 0,
        missing: 600,
        bytes: 0,
        avg: 0.0,
        last: 300,
    };
    assert_eq!((skip, stale), (empty.clone(), empty));
}

/// When every field is core, skipping optional fields skips nothing:
/// skip-optional drops exactly when all-or-nothing does.
#[test]
fn all_core_skip_optional_is_all_or_nothing() {
    let h = Hand {
        sources: "p, q",
        response: "
      field x from p core 100 B
      field y from q core  50 B
      field z from q core   5 B
      marker 3 B
      ledger { stale_for 4s }",
        items: "  fault blips { on p, q  every 13s  phase 2s  step 3s per field  fail timeout }
  fault down { on q  during 120s..200s  fail timeout }",
        ..Hand::default()
    };
    let [strict, skip, stale] = h.rows();
    assert_eq!(strict, skip);
    assert!(strict.dropped > 81, "the outage alone drops 81: {strict:?}");
    assert!(stale.answered > strict.answered, "{stale:?}");
}

/// An outage confined to the warm-up is over before the measured ticks:
/// every source answers again at W + 1, so every policy answers in full.
#[test]
fn an_outage_during_the_warm_up_is_not_measured() {
    let h = Hand {
        items: "  fault early { on projection, pricing  during 1s..50s  fail timeout }",
        ..Hand::default()
    };
    assert_eq!(h.rows(), [0, 1, 2].map(|_| full_day(300, 4, 504)));
}

/// A core source down for the whole run, warm-up included, was never seen:
/// there is no last known value to serve, so even stale-fallback answers
/// nothing.
#[test]
fn a_field_never_seen_has_no_fallback() {
    let h = Hand {
        items: "  fault down { on projection  during 1s..end  fail timeout }",
        ..Hand::default()
    };
    assert_eq!(h.rows(), [0, 1, 2].map(|_| dropped_all(300)));
}

/// An optional source down for part of the measured ticks, ticks 101..=160
/// (measured 51..=110), bound 20, no blips: skip-optional answers all 300
/// with fee missing for 60; stale-fallback serves fee stale for 20 of them
/// (ages 1..=20) and leaves it out of the other 40.
#[test]
fn a_partial_outage_of_an_optional_source() {
    let response = DOCUMENT_FIELDS.replace("stale_for 60s", "stale_for 20s");
    let h = Hand {
        response: &response,
        items: "  fault down { on pricing  during 101s..160s  fail timeout }",
        ..Hand::default()
    };
    let [strict, skip, stale] = h.rows();
    assert_eq!(
        (strict.answered, strict.dropped, strict.last),
        (240, 60, 300)
    );
    assert_eq!(
        (skip.answered, skip.full, skip.reduced, skip.missing),
        (300, 240, 60, 60)
    );
    // 240 x 504 + 60 x (504 - 96).
    assert_eq!(skip.bytes, 240 * 504 + 60 * 408);
    assert_eq!(
        (stale.stale, stale.missing, stale.bytes),
        (20, 40, 260 * 504 + 40 * 408)
    );
}

/// Three requests a tick see the same fields as one: every count triples,
/// the average size and the last answered tick do not change.
#[test]
fn three_requests_a_tick_triple_every_count() {
    let items = "  fault blips { on projection, estimator, pricing  every 40s  phase 0s  step 10s per field  fail timeout }
  fault down { on pricing  during after warmup  fail timeout }";
    let one = Hand {
        items,
        ..Hand::default()
    }
    .rows();
    let three = Hand {
        rate: 3,
        items,
        ..Hand::default()
    }
    .rows();
    for (a, b) in one.iter().zip(&three) {
        let tripled = Row {
            answered: 3 * a.answered,
            full: 3 * a.full,
            reduced: 3 * a.reduced,
            dropped: 3 * a.dropped,
            fresh: 3 * a.fresh,
            stale: 3 * a.stale,
            missing: 3 * a.missing,
            bytes: 3 * a.bytes,
            ..a.clone()
        };
        assert_eq!(*b, tripled);
    }
}

/// The ledger's `entries` is a size for the cost lines; it changes no
/// answer. Sizes can be params, changed by a variant's `set`; the cost
/// functions read the response as declared.
#[test]
fn params_sizes_and_the_cost_functions() {
    let text = "scenario \"costs\" {
  clock ms
  warmup 1s
  run 2s
  param fee = 90 B
  param entries = 1
  source samples { rate 1/s  enters front }
  chain front -> [projection, pricing]
  service front {
    response {
      field status from projection core 180 B
      field fee    from pricing    optional $fee
      marker 6 B
      policy skip_optional
      ledger { entries $entries  stale_for 1min }
    }
  }
  window measured after warmup
  variant small \"small\" { }
  variant big \"big\" { set fee = 2 KiB  set entries = 5000 }
  report {
    table \"t\" {
      rows variants
      at front
      column \"answered\" = measured.answered :.0
      column \"avg bytes\" = measured.avg_bytes :.1
    }
    line small \"{fields(front):.0} fields, marker {marker(front):.0} B, {response_bytes(front):.0} B, ledger {ledger_entries(front):.0}\"
    line big \"{fields(front):.0} fields, marker {marker(front):.0} B, {response_bytes(front):.0} B, ledger {ledger_entries(front):.0}\"
    line \"{minutes(90000):.2} min = {seconds(90000):.1} s\"
  }
}
";
    let ran = run("costs", text);
    // One request a second for two seconds: two measured answers, each
    // 180 + 6 + fee + 6 bytes.
    assert_eq!(
        ran.table("t"),
        crate::support::rows(&[&["small", "2", "282.0"], &["big", "2", "2240.0"]])
    );
    assert_eq!(
        ran.lines(),
        [
            "2 fields, marker 6 B, 270 B, ledger 1",
            "2 fields, marker 6 B, 2228 B, ledger 5000",
            "1.50 min = 90.0 s",
        ]
    );
}

/// The defaults: no `marker` is 0 B, no `policy` is all_or_nothing, a
/// ledger without `entries` holds 0; `minutes` and `seconds` have no
/// meaning for rounds.
#[test]
fn defaults() {
    let text = "scenario \"defaults\" {
  clock round
  run 40 rounds
  source samples { rate 1/round  enters front }
  chain front -> [a, b]
  service front {
    response {
      field x from a core     10 B
      field y from b optional 20 B
      ledger { stale_for 5 rounds }
    }
  }
  fault blips { on a, b  every 4 rounds  phase 1 round  fail timeout }
  window all 1..end
  report {
    table \"t\" {
      rows windows
      at front
      column \"answered\" = answered :.0
      column \"avg bytes\" = avg_bytes :.1
    }
    line \"marker {marker(front):.0}, ledger {ledger_entries(front):.0}, {minutes(60)} min, {seconds(60)} s\"
  }
}
";
    let ran = run("defaults", text);
    // Both fields time out together when (t + 1) % 4 == 0: ticks 3, 7, ...,
    // 39, ten of forty. All-or-nothing drops them; each answer is 30 B.
    assert_eq!(
        ran.table("t"),
        crate::support::rows(&[&["all", "30", "30.0"]])
    );
    assert_eq!(ran.lines(), ["marker 0, ledger 0, — min, — s"]);
}

/// The isolation table of a day with no source down: nothing is hit, so
/// there is no class to give either.
#[test]
fn isolation_of_a_day_with_nothing_down() {
    let text = "scenario \"iso\" {
  clock s
  run 10s
  source samples { rate 1/s  enters front }
  chain front -> [a, b]
  service front { response { field x from a core 1 B  field y from b optional 1 B } }
  window all 1..end
  variant calm \"calm\" { }
  report { isolation \"i\" of front { variants [calm]  window all } }
}
";
    let ran = run("iso", text);
    assert_eq!(
        ran.table("i"),
        crate::support::rows(&[&["calm", "none", "—", "—", "10", "2.0", "10"]])
    );
}

/// The scenario the `degradation-*` bad inputs of
/// `crates/squall-lang/tests/inputs/err/` are edits of is fine as it stands:
/// it loads, runs and assembles its two fields (a core field from
/// `projection`, an optional one from `pricing`), answering each of the 70
/// requests in full.
#[test]
fn the_base_of_the_bad_inputs_loads() {
    let text = "scenario \"d\" {
  clock s
  warmup 10s
  run 60s
  source samples { rate 1/s  enters tracking }
  chain tracking -> [projection, pricing]
  service tracking { response { field status from projection core 180 B  field fee from pricing optional 90 B } }
}
";
    let ran = run("d.squall", text);
    let run = ran.run_of(RunKey::Variant(0));
    let tracking = run
        .model
        .nodes
        .iter()
        .find(|n| n.name == "tracking")
        .expect("tracking");
    let c = tracking.composite.as_ref().expect("a composite response");
    assert_eq!(c.fields.len(), 2);
    let (series, ok) = composite(&run.obs, "tracking");
    assert_eq!(ok.iter().sum::<u32>(), 70);
    assert_eq!(series.full.iter().sum::<u32>(), 70);
}
