//! The document's `kosum` (bozulma/yanit.mjs), written here from its
//! JavaScript and generalised: any fields (name, source, core or optional,
//! bytes), any marker size and staleness bound, any transient period with a
//! phase and a per-field step, any warm-up and measured length, and any
//! sources down over any ranges of ticks. Nothing here comes from squall's
//! code; `reference_reproduces_the_document` checks it against the numbers
//! the document prints.
//!
//! The JavaScript, line by line, and its generalisation:
//!
//! * `for (t = 1; t <= isinma + ariza; t++)`: ticks 1..=warm-up+measured;
//!   only ticks after the warm-up are counted (`if (!arizada) continue`).
//! * `durum = arizada ? kip[a.kaynak] : "saglam"`: a source is down at `t`
//!   when an outage covering `t` names it (the document's days put the
//!   outage at warm-up+1..=end).
//! * `gecici = durum === "saglam" && (t + i * 10) % 40 === 0`: a healthy
//!   source times out for field `i` when `(t + phase + step * i) % every ==
//!   0`, if the source has transient timeouts at all.
//! * fresh (`taze`) writes the field's round into the ledger (`yedek`); a
//!   field that is not fresh is stale (`bayat`) under stale-fallback when
//!   its last fresh round is at most the bound old (`yas <= BAYATLIK_SINIRI`;
//!   never seen is infinitely old), otherwise missing (`yok`).
//! * all-or-nothing (`hepsi`) drops when any field is not fresh; the others
//!   drop when a core field is missing.
//! * an answer counts its fresh, stale and missing fields, and bytes of
//!   every present field plus its marker; full when every field is fresh.
//! * `sonYanitTuru = t - isinma`; `ortBayt = 0` when nothing was answered.

/// One field of a response (`ALAN`).
#[derive(Debug, Clone)]
pub struct Field {
    /// `ad`.
    pub name: String,
    /// `kaynak`.
    pub source: String,
    /// `cekirdek`.
    pub core: bool,
    /// `bayt`.
    pub bytes: u64,
}

impl Field {
    pub fn new(name: &str, source: &str, core: bool, bytes: u64) -> Self {
        Field {
            name: name.into(),
            source: source.into(),
            core,
            bytes,
        }
    }
}

/// The three policies (`hepsi`, `atlama`, `yedekli`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    AllOrNothing,
    SkipOptional,
    StaleFallback,
}

impl Policy {
    pub const ALL: [Policy; 3] = [
        Policy::AllOrNothing,
        Policy::SkipOptional,
        Policy::StaleFallback,
    ];

    /// The policy's name in the scenario language.
    pub fn word(self) -> &'static str {
        match self {
            Policy::AllOrNothing => "all_or_nothing",
            Policy::SkipOptional => "skip_optional",
            Policy::StaleFallback => "stale_fallback",
        }
    }
}

/// Transient timeouts of healthy sources (`GECICI` and the `i * 10` phase).
#[derive(Debug, Clone, Copy)]
pub struct Transient {
    pub every: u64,
    pub phase: u64,
    pub step: u64,
}

/// Sources down over ticks `from..=to` (absolute ticks, warm-up included).
#[derive(Debug, Clone)]
pub struct Outage {
    pub sources: Vec<String>,
    pub from: u64,
    pub to: u64,
}

/// Everything `kosum` depends on.
#[derive(Debug, Clone)]
pub struct Model {
    pub fields: Vec<Field>,
    /// `ISARET_BAYT`.
    pub marker: u64,
    /// `BAYATLIK_SINIRI`.
    pub stale_for: u64,
    /// `GECICI` with its phases; `None` for no transient timeouts.
    pub transient: Option<Transient>,
    /// The sources that time out transiently (the document: all of them).
    pub blips_on: Vec<String>,
    /// `isinma`.
    pub warmup: u64,
    /// `ariza`.
    pub measured: u64,
}

/// What one tick's sample request got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tick {
    pub answered: bool,
    pub full: bool,
    pub fresh: u32,
    pub stale: u32,
    pub missing: u32,
    pub bytes: u64,
}

/// The counters `kosum` returns (`s`), over the measured ticks.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Totals {
    pub full: u64,
    pub reduced: u64,
    pub dropped: u64,
    pub fresh: u64,
    pub stale: u64,
    pub missing: u64,
    pub bytes: u64,
    pub last_answered: u64,
}

impl Totals {
    /// `yanit`.
    pub fn answered(&self) -> u64 {
        self.full + self.reduced
    }

    /// `ortBayt`.
    pub fn avg_bytes(&self) -> f64 {
        if self.answered() == 0 {
            0.0
        } else {
            self.bytes as f64 / self.answered() as f64
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Hal {
    Taze,
    Bayat,
    Yok,
}

/// Runs the model under `policy` with `outages`: the totals over the
/// measured ticks and every tick's outcome (index 0 is tick 1; warm-up
/// ticks included, although the totals leave them out).
pub fn kosum(m: &Model, policy: Policy, outages: &[Outage]) -> (Totals, Vec<Tick>) {
    let mut ledger: Vec<Option<u64>> = vec![None; m.fields.len()];
    let mut s = Totals::default();
    let mut ticks = Vec::new();
    for t in 1..=m.warmup + m.measured {
        let measured = t > m.warmup;
        let mut outcome = Vec::with_capacity(m.fields.len());
        for (i, a) in m.fields.iter().enumerate() {
            let healthy = !outages
                .iter()
                .any(|o| o.from <= t && t <= o.to && o.sources.contains(&a.source));
            let transient = healthy
                && m.blips_on.contains(&a.source)
                && m.transient
                    .is_some_and(|g| (t + g.phase + g.step * i as u64).is_multiple_of(g.every));
            if healthy && !transient {
                ledger[i] = Some(t);
                outcome.push(Hal::Taze);
                continue;
            }
            let young = ledger[i].is_some_and(|last| t - last <= m.stale_for);
            if policy == Policy::StaleFallback && young {
                outcome.push(Hal::Bayat);
            } else {
                outcome.push(Hal::Yok);
            }
        }
        let core_missing = outcome
            .iter()
            .zip(&m.fields)
            .any(|(&h, a)| a.core && h == Hal::Yok);
        let not_fresh = outcome.iter().any(|&h| h != Hal::Taze);
        let drop = match policy {
            Policy::AllOrNothing => not_fresh,
            _ => core_missing,
        };
        let mut tick = Tick::default();
        if !drop {
            tick.answered = true;
            tick.full = !not_fresh;
            for (&h, a) in outcome.iter().zip(&m.fields) {
                match h {
                    Hal::Taze => tick.fresh += 1,
                    Hal::Bayat => tick.stale += 1,
                    Hal::Yok => {
                        tick.missing += 1;
                        continue;
                    }
                }
                tick.bytes += a.bytes + m.marker;
            }
        }
        ticks.push(tick);
        if !measured {
            continue;
        }
        if drop {
            s.dropped += 1;
            continue;
        }
        s.fresh += u64::from(tick.fresh);
        s.stale += u64::from(tick.stale);
        s.missing += u64::from(tick.missing);
        s.bytes += tick.bytes;
        s.last_answered = t - m.warmup;
        if tick.full {
            s.full += 1;
        } else {
            s.reduced += 1;
        }
    }
    (s, ticks)
}

/// The document's model: `ALAN`, 6 B markers, 60 rounds, `GECICI = 40`
/// with phase `i * 10`, 120 warm-up rounds, 900 measured.
pub fn document() -> Model {
    let sources = ["izdusum", "tahmin", "ucretlendirme"];
    Model {
        fields: vec![
            Field::new("durum", "izdusum", true, 180),
            Field::new("rota", "izdusum", true, 120),
            Field::new("tahmin", "tahmin", false, 90),
            Field::new("ucret", "ucretlendirme", false, 90),
        ],
        marker: 6,
        stale_for: 60,
        transient: Some(Transient {
            every: 40,
            phase: 0,
            step: 10,
        }),
        blips_on: sources.iter().map(|s| s.to_string()).collect(),
        warmup: 120,
        measured: 900,
    }
}

/// The document's day with `source` down after the warm-up.
fn day(m: &Model, source: Option<&str>) -> Vec<Outage> {
    source
        .map(|s| Outage {
            sources: vec![s.to_string()],
            from: m.warmup + 1,
            to: m.warmup + m.measured,
        })
        .into_iter()
        .collect()
}

/// A row as the document prints it: answered, full, reduced, dropped,
/// fresh/stale/missing, avg bytes, last answered round.
fn printed(s: &Totals) -> String {
    format!(
        "{} {} {} {} {}/{}/{} {:.1} {}",
        s.answered(),
        s.full,
        s.reduced,
        s.dropped,
        s.fresh,
        s.stale,
        s.missing,
        s.avg_bytes(),
        s.last_answered
    )
}

/// The reference gives the document's own output (its three day tables),
/// before it is used as the yardstick for squall.
#[test]
fn reference_reproduces_the_document() {
    let m = document();
    let days = [
        (
            None,
            [
                "810 810 0 90 3240/0/0 504.0 899",
                "856 810 46 44 3378/0/46 498.8 900",
                "900 810 90 0 3510/90/0 504.0 900",
            ],
        ),
        (
            Some("ucretlendirme"),
            [
                "0 0 0 900 0/0/0 0.0 0",
                "856 0 856 44 2545/0/879 405.4 900",
                "900 0 900 0 2633/127/840 414.4 900",
            ],
        ),
        (
            Some("izdusum"),
            [
                "0 0 0 900 0/0/0 0.0 0",
                "0 0 0 900 0/0/0 0.0 0",
                "59 0 59 841 115/121/0 504.0 59",
            ],
        ),
    ];
    for (down, want) in days {
        let got: Vec<String> = Policy::ALL
            .iter()
            .map(|&p| printed(&kosum(&m, p, &day(&m, down)).0))
            .collect();
        assert_eq!(got, want, "day with {down:?} down");
    }
    // The isolation table's middle row: the estimator (tahmin) down.
    let (s, _) = kosum(&m, Policy::StaleFallback, &day(&m, Some("tahmin")));
    assert_eq!(
        (
            s.answered(),
            format!("{:.1}", s.avg_bytes()),
            s.last_answered
        ),
        (900, "414.4".to_string(), 900)
    );
}
