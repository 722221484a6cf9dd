//! mulberry32 against an implementation written in this test from the
//! document's JavaScript (`uretec`), and against values node printed.

use squall_engine::rng::Mulberry32;

use crate::js::JsMulberry32;
use crate::support::run;

const SEEDS: [u32; 8] = [
    0,
    1,
    7,
    42,
    20_260_114,
    0x6d2b_79f5,
    2_463_534_242,
    u32::MAX,
];

#[test]
fn engine_generator_matches_the_reference_for_thousands_of_draws() {
    for seed in SEEDS {
        let mut squall = Mulberry32::new(seed);
        let mut reference = JsMulberry32::new(seed);
        let mut floats = Mulberry32::new(seed);
        for i in 0..10_000 {
            let want = reference.next_raw();
            assert_eq!(u64::from(squall.next_u32()), want, "seed {seed}, draw {i}");
            assert_eq!(
                floats.next_f64(),
                want as f64 / 4_294_967_296.0,
                "seed {seed}, draw {i}"
            );
        }
    }
}

/// Printed by node 20 running the document's `uretec` (before the division
/// by 2^32); independent of both Rust implementations.
#[test]
fn reference_matches_node() {
    let cases: [(u32, [u64; 5]); 3] = [
        (
            7,
            [
                50_271_532,
                266_108_690,
                4_195_786_334,
                3_002_305_430,
                2_239_590_375,
            ],
        ),
        (
            u32::MAX,
            [
                3_850_105_811,
                813_802_916,
                3_073_704_848,
                4_054_706_436,
                3_630_262_831,
            ],
        ),
        (
            2_463_534_242,
            [
                2_803_348_580,
                973_394_443,
                763_886_289,
                2_218_766_465,
                3_476_913_188,
            ],
        ),
    ];
    for (seed, want) in cases {
        let mut g = JsMulberry32::new(seed);
        let got: Vec<u64> = (0..5).map(|_| g.next_raw()).collect();
        assert_eq!(got, want, "seed {seed}");
    }
    let mut g = JsMulberry32::new(20_260_114);
    let tenth_thousand = (0..10_000).map(|_| g.next_raw()).last();
    assert_eq!(tenth_thousand, Some(2_524_606_786));
}

/// Through the language: `full_jitter 4294967296ms x 1` waits
/// `round(r * 2^32)`, which is the generator's raw output, so a `waits`
/// table of it lists the draws themselves.
#[test]
fn a_named_generator_in_a_scenario_draws_the_reference_sequence() {
    for seed in [20_260_114u32, 7, u32::MAX] {
        let text = format!(
            r#"scenario "raw draws" {{
  clock ms
  run 1s
  rng r {{ mulberry32 seed {seed} }}
  backoff raw = full_jitter 4294967296ms x 1 rng r
  chain a -> b
  report {{ waits "raw" {{ policies [raw] attempts 2000 rng r }} }}
}}"#
        );
        let ran = run("raw draws", &text);
        let mut g = JsMulberry32::new(seed);
        let want: Vec<Vec<String>> = (1..=2000)
            .map(|n| vec![n.to_string(), g.next_raw().to_string()])
            .collect();
        assert_eq!(ran.table("raw"), want, "seed {seed}");
    }
}

/// SplitMix64, squall's other generator: `next = (splitmix64(state) >> 11) /
/// 2^53`, the state starting at the seed. Reference from Vigna's definition.
#[test]
fn splitmix64_generator_in_a_scenario() {
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let seed = 987_654_321u64;
    let text = format!(
        r#"scenario "splitmix" {{
  clock ms
  run 1s
  rng s {{ splitmix64 seed {seed} }}
  backoff raw = full_jitter 4294967296ms x 1 rng s
  chain a -> b
  report {{ waits "raw" {{ policies [raw] attempts 500 rng s }} }}
}}"#
    );
    let ran = run("splitmix", &text);
    let mut state = seed;
    let want: Vec<Vec<String>> = (1..=500)
        .map(|n| {
            let r = (splitmix(&mut state) >> 11) as f64 / 9_007_199_254_740_992.0;
            vec![n.to_string(), (r * 4_294_967_296.0).round().to_string()]
        })
        .collect();
    assert_eq!(ran.table("raw"), want);
}
