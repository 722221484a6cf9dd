//! The retry storm of document 000, scaled: shared by the `engine` benchmark
//! and the `throughput` example, and mirrored by `bench/simpy/retry_storm.py`.
//!
//! `scale` multiplies demand (4/round), capacity (12/round) and the brownout's
//! capacity (1/round); a brownout of 60 rounds starts at round 101 and again
//! every `period` rounds. `Storm::document()` is the scenario's storm variant
//! exactly: 400 rounds, one brownout.

// The bench and the example each use part of this module.
#![allow(dead_code)]

use std::fmt::Write;

use squall_engine::Observations;
use squall_lang::{Model, Overrides};

/// A scaled retry storm.
#[derive(Debug, Clone, Copy)]
pub struct Storm {
    /// Factor on demand and capacities.
    pub scale: u64,
    /// Length of the run [rounds].
    pub rounds: u64,
    /// A brownout starts every `period` rounds, from round 101 [rounds].
    pub period: u64,
}

impl Storm {
    /// The document's storm: 400 rounds, one brownout at 101..160.
    pub fn document() -> Self {
        Storm {
            scale: 1,
            rounds: 400,
            period: 1000,
        }
    }

    /// The scenario text.
    pub fn text(&self) -> String {
        let k = self.scale;
        let mut s = String::new();
        let _ = writeln!(s, "scenario \"retry storm x{k}\" {{");
        let _ = writeln!(s, "  clock round\n  run {} rounds", self.rounds);
        let _ = writeln!(s, "  source users {{ rate {}/round  enters edge }}", 4 * k);
        let _ = writeln!(s, "  chain edge -> api -> worker -> db");
        let _ = writeln!(
            s,
            "  service edge, api, worker {{ retry {{ attempts 3  backoff fixed 4 rounds }} }}"
        );
        let _ = writeln!(s, "  service db {{ capacity {}/round }}", 12 * k);
        for (i, (from, to)) in self.brownouts().enumerate() {
            let _ = writeln!(
                s,
                "  fault brownout{i} {{ on db  during {from}..{to}  capacity {k}/round }}"
            );
        }
        let _ = writeln!(s, "  window before 1..100");
        let _ = writeln!(s, "  window during 101..160");
        let _ = writeln!(s, "  window after 161..{}", self.rounds);
        let _ = writeln!(s, "}}");
        s
    }

    /// The brownouts' rounds, first to last.
    pub fn brownouts(&self) -> impl Iterator<Item = (u64, u64)> {
        let (rounds, period) = (self.rounds, self.period.max(1));
        (0..)
            .map(move |i| (101 + i * period, 160 + i * period))
            .take_while(move |&(_, to)| to <= rounds)
    }

    /// The resolved model.
    pub fn model(&self) -> Model {
        let text = self.text();
        let scenario = squall_lang::load("storm.squall", &text)
            .unwrap_or_else(|d| panic!("the generated storm does not load: {d}\n{text}"));
        scenario
            .model(&Overrides::default())
            .unwrap_or_else(|d| panic!("the generated storm does not resolve: {d}"))
    }
}

/// Calls every node of the chain saw, over the whole run.
pub fn total_calls(obs: &Observations) -> u64 {
    obs.nodes
        .iter()
        .map(|n| Observations::sum(&n.calls, 0, obs.ticks))
        .sum()
}

/// The numbers `bench/simpy/retry_storm.py` prints for the same storm, in the
/// same words: the windows at `db`, recovery, peak, accounting and calls per
/// node. Equal lines mean equal work.
pub fn summary(storm: &Storm, obs: &Observations) -> String {
    let sum = Observations::sum;
    let node = |name: &str| {
        obs.nodes
            .iter()
            .find(|n| n.name == name)
            .unwrap_or_else(|| panic!("no node `{name}`"))
    };
    let db = node("db");
    let db_index = obs.nodes.iter().position(|n| n.name == "db").unwrap_or(0);
    let mut s = String::new();
    let windows = [
        ("before", 1, 100),
        ("during", 101, 160),
        ("after", 161, storm.rounds),
    ];
    for (w, &(name, from, to)) in windows.iter().enumerate() {
        let n = (to + 1 - from) as f64;
        let calls = sum(&db.calls, from, to) as f64;
        let ok = sum(&db.ok, from, to) as f64;
        let unique = obs.window_unique[w][db_index] as f64;
        let _ = writeln!(
            s,
            "{name:<6} {from}..{to}: edge/round {:.2}  calls/round {:.2}  unique/round {:.2}  amplification {:.2}  success {:.4}",
            sum(&obs.arrivals, from, to) as f64 / n,
            calls / n,
            unique / n,
            if unique == 0.0 { 0.0 } else { calls / unique },
            if calls == 0.0 { 0.0 } else { ok / calls },
        );
    }
    let normal = sum(&db.calls, 1, 100) as f64 / 100.0;
    let recovery = (161..=storm.rounds)
        .find(|&t| f64::from(db.calls[t as usize]) <= 1.1 * normal)
        .map_or(-1, |t| (t - 160) as i64);
    let peak = db.calls.iter().max().copied().unwrap_or(0);
    let _ = writeln!(s, "recovery {recovery} rounds  peak {peak} calls/round");
    let a = obs.accounting;
    let _ = writeln!(
        s,
        "requests {}  completed {}  dropped {}  in flight {}",
        a.entered, a.completed, a.dropped, a.in_flight
    );
    let calls: Vec<String> = obs
        .nodes
        .iter()
        .map(|n| format!("{} {}", n.name, sum(&n.calls, 0, obs.ticks)))
        .collect();
    let _ = writeln!(s, "calls {}", calls.join("  "));
    s
}
