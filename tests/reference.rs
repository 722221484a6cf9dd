//! An independent reference of document 000's round model.
//!
//! This is a line-by-line transcription of the document's JavaScript
//! `kosum` (a run) and `pencere` (a window summary) into Rust, written from
//! the JavaScript and *not* from squall's engine, so that comparing the two
//! checks squall's general engine against the document's semantics:
//!
//! * every round the demand is added to an accumulator and one request enters
//!   for every whole unit (`while (birikim >= 1) birikim -= 1`), the demand
//!   added exactly as the decimal written, where the document adds doubles;
//! * the requests due this round (`zaman === t`) are taken in the order they
//!   entered (oldest first); each is one call at the dependency, which counts
//!   it whether it is served or not;
//! * while the round's capacity lasts (the fault's capacity inside the fault
//!   window) a call is served and the request is done;
//! * otherwise the per-layer try counters advance like an odometer from the
//!   deepest layer up; when every layer has used its tries the request is
//!   dropped, otherwise it is due again `spacing` rounds later.
//!
//! Generalised only where the document's code is a constant: the number of
//! layers and each layer's tries (the document has 3 layers of `izin` each),
//! and arrivals may be given as counts per round (to replay a Poisson source).

use std::collections::HashSet;

/// Where new requests come from.
#[derive(Debug, Clone)]
pub enum Demand {
    /// A rate per round with periods of another rate (the last matching one
    /// wins), accumulated like the document's `birikim`.
    Rate {
        /// Requests per round outside any period.
        base: f64,
        /// `(first, last, rate)` periods, inclusive.
        periods: Vec<(u64, u64, f64)>,
    },
    /// So many requests in each round (index 0 = round 1).
    Counts(Vec<u64>),
}

/// A capacity change during rounds `from..=to`.
#[derive(Debug, Clone, Copy)]
pub struct Fault {
    /// First round.
    pub from: u64,
    /// Last round.
    pub to: u64,
    /// Calls served per round meanwhile.
    pub capacity: u64,
}

/// The model's inputs (the document's `KK15` plus `kosum`'s arguments).
#[derive(Debug, Clone)]
pub struct RoundModel {
    /// Rounds to run (`tur`).
    pub rounds: u64,
    /// Tries per layer, top layer first (`izin`, one per `katman`).
    pub tries: Vec<u32>,
    /// Rounds between tries (`aralik`).
    pub spacing: u64,
    /// Calls served per round (`kapasite`).
    pub capacity: u64,
    /// External demand (`disTalep`).
    pub demand: Demand,
    /// The fault (`arizaBas`, `arizaSon`, `arizaKapasite`).
    pub fault: Option<Fault>,
}

/// What a run recorded, per round (index 0 = round 1).
#[derive(Debug, Clone)]
pub struct Trace {
    /// New requests (`uctan`).
    pub edge: Vec<u64>,
    /// Calls at the dependency (`cagri`).
    pub calls: Vec<u64>,
    /// Calls served (`basarili`).
    pub served: Vec<u64>,
    /// Requests dropped (`dusen`).
    pub dropped: Vec<u64>,
    /// Request ids seen at the dependency (`kimlik`).
    pub ids: Vec<Vec<u64>>,
    /// Requests still active when the run ended.
    pub active_at_end: u64,
    /// The most requests active at once (after a round's arrivals).
    pub peak_active: u64,
}

struct Req {
    id: u64,
    counters: Vec<u32>,
    due: u64,
}

impl RoundModel {
    /// The document's model with its own constants and the given demand,
    /// tries per layer and fault capacity over 101..160 in 400 rounds.
    pub fn document(tries: u32) -> RoundModel {
        RoundModel {
            rounds: 400,
            tries: vec![tries; 3],
            spacing: 4,
            capacity: 12,
            demand: Demand::Rate {
                base: 4.0,
                periods: vec![],
            },
            fault: Some(Fault {
                from: 101,
                to: 160,
                capacity: 1,
            }),
        }
    }

    fn demand_at(&self, t: u64) -> f64 {
        match &self.demand {
            Demand::Rate { base, periods } => periods
                .iter()
                .rev()
                .find(|(a, b, _)| *a <= t && t <= *b)
                .map_or(*base, |p| p.2),
            Demand::Counts(c) => c.get(t as usize - 1).copied().unwrap_or(0) as f64,
        }
    }

    fn capacity_at(&self, t: u64) -> u64 {
        match self.fault {
            Some(f) if f.from <= t && t <= f.to => f.capacity,
            _ => self.capacity,
        }
    }

    /// Runs the model (`kosum`).
    pub fn run(&self) -> Trace {
        let layers = self.tries.len();
        let n = self.rounds as usize;
        let mut tr = Trace {
            edge: Vec::with_capacity(n),
            calls: Vec::with_capacity(n),
            served: Vec::with_capacity(n),
            dropped: Vec::with_capacity(n),
            ids: Vec::with_capacity(n),
            active_at_end: 0,
            peak_active: 0,
        };
        let mut active: Vec<Req> = Vec::new();
        let mut next_id = 1u64;
        // The document adds doubles (`birikim += talep`), so 0.3 ten times
        // is 2.9999999999999996 and the tenth round's request comes a round
        // late; squall accumulates the decimal written exactly (issue 13),
        // and so does this reference: in units of 10^-12 request.
        let mut acc = 0u128;
        for t in 1..=self.rounds {
            let mut arrived = 0u64;
            match &self.demand {
                Demand::Rate { .. } => {
                    acc += decimal_units(self.demand_at(t));
                    while acc >= DECIMAL_UNIT {
                        acc -= DECIMAL_UNIT;
                        arrived += 1;
                    }
                }
                Demand::Counts(_) => arrived = self.demand_at(t) as u64,
            }
            for _ in 0..arrived {
                active.push(Req {
                    id: next_id,
                    counters: vec![0; layers],
                    due: t,
                });
                next_id += 1;
            }
            tr.edge.push(arrived);
            tr.peak_active = tr.peak_active.max(active.len() as u64);

            let mut tokens = self.capacity_at(t);
            let (mut calls, mut served, mut dropped) = (0u64, 0u64, 0u64);
            let mut seen = Vec::new();
            let mut keep = Vec::with_capacity(active.len());
            for mut r in active.drain(..) {
                if r.due != t {
                    keep.push(r);
                    continue;
                }
                calls += 1;
                seen.push(r.id);
                if tokens > 0 {
                    tokens -= 1;
                    served += 1;
                    continue;
                }
                // The odometer: the deepest layer first, carrying upwards.
                let mut k = layers;
                let mut exhausted = true;
                while k > 0 {
                    k -= 1;
                    r.counters[k] += 1;
                    if r.counters[k] < self.tries[k] {
                        exhausted = false;
                        break;
                    }
                    r.counters[k] = 0;
                }
                if exhausted {
                    dropped += 1;
                } else {
                    r.due = t + self.spacing;
                    keep.push(r);
                }
            }
            active = keep;
            tr.calls.push(calls);
            tr.served.push(served);
            tr.dropped.push(dropped);
            tr.ids.push(seen);
        }
        tr.active_at_end = active.len() as u64;
        tr
    }
}

/// A window summary (`pencere`), with counts kept next to the rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Rounds in the window.
    pub rounds: u64,
    /// New requests.
    pub arrivals: u64,
    /// Calls at the dependency.
    pub calls: u64,
    /// Calls served.
    pub served: u64,
    /// Distinct request ids seen (over the whole window).
    pub unique: u64,
    /// Requests dropped.
    pub dropped: u64,
    /// `uc`: new requests per round.
    pub edge_rate: f64,
    /// `cagri`: calls per round.
    pub call_rate: f64,
    /// `tekil`: unique ids per round.
    pub unique_rate: f64,
    /// `carpan`: calls per unique id (`None` where the document prints 0
    /// for want of ids).
    pub amplification: Option<f64>,
    /// `basari`: served / calls (`None` where the document prints 0 for
    /// want of calls).
    pub success_rate: Option<f64>,
}

impl Trace {
    /// The summary of rounds `from..=to`.
    pub fn window(&self, from: u64, to: u64) -> Window {
        let range = (from - 1) as usize..to as usize;
        let sum = |a: &[u64]| a[range.clone()].iter().sum::<u64>();
        let rounds = to - from + 1;
        let n = rounds as f64;
        let unique = self.ids[range.clone()]
            .iter()
            .flatten()
            .collect::<HashSet<_>>()
            .len() as u64;
        let calls = sum(&self.calls);
        let served = sum(&self.served);
        let arrivals = sum(&self.edge);
        Window {
            rounds,
            arrivals,
            calls,
            served,
            unique,
            dropped: sum(&self.dropped),
            edge_rate: arrivals as f64 / n,
            call_rate: calls as f64 / n,
            unique_rate: unique as f64 / n,
            amplification: (unique > 0).then(|| calls as f64 / unique as f64),
            success_rate: (calls > 0).then(|| served as f64 / calls as f64),
        }
    }

    /// `donus`: rounds from the fault's last round to the first later round
    /// whose calls are at or below `threshold`.
    pub fn recovery(&self, fault_end: u64, threshold: f64) -> Option<u64> {
        (fault_end + 1..=self.calls.len() as u64)
            .find(|&t| self.calls[t as usize - 1] as f64 <= threshold)
            .map(|t| t - fault_end)
    }

    /// The most calls in one round (`Math.max(...cagri)`).
    pub fn peak(&self) -> u64 {
        self.calls.iter().copied().max().unwrap_or(0)
    }

    /// Requests that entered.
    pub fn entered(&self) -> u64 {
        self.edge.iter().sum()
    }
}

/// One request in [`decimal_units`].
const DECIMAL_UNIT: u128 = 1_000_000_000_000;

/// A rate in units of 10^-12 request, read from its shortest decimal
/// spelling (the number as written in a scenario), not from the double's
/// binary value.
fn decimal_units(rate: f64) -> u128 {
    let text = format!("{rate}");
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let whole: u128 = whole.parse().unwrap_or(0);
    let frac = format!("{frac:0<12}");
    let frac: u128 = frac[..12].parse().unwrap_or(0);
    whole * DECIMAL_UNIT + frac
}
