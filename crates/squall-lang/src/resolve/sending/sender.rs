//! A `sender` block: its records, pool, rate, client (naive or
//! classified, with its classification, attempt caps and jitter) and the
//! bin of its series.

use crate::ast::{SendBlockAst, SendSetting};
use crate::diagnostic::Diagnostic;
use crate::model::sending::*;
use crate::model::{Schedule, SourceSpec};
use crate::needs::{Need, Needs};
use crate::units;

use super::reader::{part_span, positive, Parts, Reader};

const SENDER_KEYS: [&str; 18] = [
    "records",
    "senders",
    "rate",
    "burst",
    "latency",
    "window_attempts",
    "client",
    "success",
    "terminal",
    "retryable",
    "throttles",
    "attempts",
    "unknown_attempts",
    "max_age",
    "jitter",
    "retry_after",
    "adaptive",
    "bin",
];

/// Milliseconds in a minute: the default series bin, the document's query's.
const MINUTE_MS: f64 = 60_000.0;
/// Bins a sender's series may have (each is a row of its report table).
pub const MAX_BINS: u64 = 10_000;

impl Reader<'_> {
    pub(super) fn sender(
        &mut self,
        b: &SendBlockAst,
        settings: &[&SendSetting],
        provider: ProviderSpec,
        ticks: u64,
        feed: Option<(&str, SourceSpec)>,
    ) -> Option<SendSpec> {
        let what = format!("sender `{}`", b.name.name);
        let settings = self.check_keys(&what, settings, &SENDER_KEYS);
        let before = self.errs.len();
        let clock = self.s.clock;
        let written = Self::find(&settings, "records");
        let records = match (&feed, written) {
            (Some((source, _)), Some(s)) => {
                self.errs.push(
                    Diagnostic::new(
                        format!("{what} has `records` and is fed by source `{source}`"),
                        s.span,
                    )
                    .label("records twice")
                    .help(format!(
                        "keep one: remove this line, or the source's `enters {}`",
                        b.name.name
                    )),
                );
                None
            }
            (Some((_, spec)), None) => Some(RecordsSpec {
                count: expected_records(spec, ticks),
                rate: None,
                batch: None,
            }),
            (None, None) => {
                self.errs.push(
                    Diagnostic::new(format!("{what} has no `records` and no source feeds it"), b.name.span)
                        .label("no records")
                        .help(format!("add e.g. `records 48000`, or a source that enters it: `source new {{ rate 14/s  enters {} }}`", b.name.name)),
                );
                None
            }
            (None, Some(s)) => Some(s).and_then(|s| {
                let mut parts = Parts { set: s, i: 0 };
                let v = self.value(&mut parts, "a count of records")?;
                let r = self.s.conv(v, self.o, |v| units::count(v, "`records`"));
                let count = self.keep(r)?;
                let mut rate = None;
                if parts.peek_word("at") {
                    parts.i += 1;
                    let v = self.value(&mut parts, "a rate such as `14/s`")?;
                    let r = self.s.conv(v, self.o, |v| {
                        units::per_tick(v, clock, "the records' rate")
                            .and_then(|r| positive(r, v, "the records' rate"))
                    });
                    rate = Some(self.keep(r)?);
                }
                let batch = self.batch(&mut parts, rate.is_some())?;
                self.end(&mut parts);
                Some(RecordsSpec { count, rate, batch })
            }),
        };
        let senders = Self::find(&settings, "senders").map_or(Some(1), |s| self.count(s));
        if let (Some(0), Some(s)) = (senders, Self::find(&settings, "senders")) {
            self.errs.push(
                Needs::new(
                    "a pool",
                    Need::AtLeastOne {
                        one: "sender",
                        many: "senders",
                    },
                )
                .at(s.span),
            );
        }
        let rate = self
            .required(&what, &b.name, &settings, "rate", "rate 18/s")
            .and_then(|s| self.rate(s));
        let burst = Self::find(&settings, "burst").map_or(Some(1.0), |s| self.real(s));
        let latency = Self::find(&settings, "latency").map_or(Some(0.0), |s| self.duration(s));
        let window_cap = match Self::find(&settings, "window_attempts") {
            None => Some(None),
            Some(s) => {
                let mut parts = Parts { set: s, i: 0 };
                let n = self.value(&mut parts, "a count of attempts").and_then(|v| {
                    let r = self.s.conv(v, self.o, |v| {
                        units::count(v, "`window_attempts`").and_then(|n| {
                            if n == 0 {
                                Err(
                                    Diagnostic::new("a window of 0 attempts never sends", v.span)
                                        .label("zero")
                                        .help("give at least 1"),
                                )
                            } else {
                                Ok(n)
                            }
                        })
                    });
                    self.keep(r)
                });
                let w = if self.expect_word(&mut parts, "per", "window_attempts 600 per 1min") {
                    self.value(&mut parts, "a duration such as `1min`")
                        .and_then(|v| {
                            let r = self.s.conv(v, self.o, |v| {
                                units::fine_ticks(v, clock, "the window")
                                    .and_then(|t| positive(t, v, "the window"))
                            });
                            self.keep(r)
                        })
                } else {
                    None
                };
                self.end(&mut parts);
                match (n, w) {
                    (Some(attempts), Some(window)) => Some(Some(WindowCap { attempts, window })),
                    _ => None,
                }
            }
        };
        let client_word = Self::find(&settings, "client").map_or(Some("classified"), |s| {
            self.word(s, &["naive", "classified"])
        });
        let success = match Self::find(&settings, "success") {
            Some(s) => self.code_list(s),
            None => Some(vec![CodeMatch::Exact(provider.success)]),
        };
        let tick_ms = clock.tick_millis().unwrap_or(1) as f64;
        let bin = match Self::find(&settings, "bin") {
            Some(s) => self.duration(s).and_then(|t| {
                if t >= 1.0 && t.fract() == 0.0 {
                    Some(t as u64)
                } else {
                    self.errs.push(
                        Diagnostic::new("the bin is a whole number of ticks, at least one", s.span)
                            .label("not whole ticks"),
                    );
                    None
                }
            }),
            None => Some(((MINUTE_MS / tick_ms).round() as u64).max(1)),
        };
        if let Some(width) = bin {
            let bins = ticks.div_ceil(width.max(1));
            if bins > MAX_BINS {
                let at = Self::find(&settings, "bin").map_or(b.name.span, |s| s.span);
                self.errs.push(
                    Diagnostic::new(
                        format!(
                            "the run has {bins} bins of the sender's series; at most {MAX_BINS}"
                        ),
                        at,
                    )
                    .label("too many bins")
                    .help("widen them: `bin 10min`"),
                );
            }
        }
        // The naive client ignores the classified client's settings, so a
        // variant can switch a sender to it with `client naive` alone.
        let client = match client_word {
            Some("naive") => success.clone().map(|success| ClientSpec::Naive { success }),
            Some(_) => self
                .classified(&what, b, &settings, &provider, success.clone())
                .map(ClientSpec::Classified),
            None => None,
        };
        let adaptive = match Self::find(&settings, "adaptive") {
            Some(s) if client_word != Some("naive") => self.adaptive(s),
            _ => Some(None),
        };
        if self.errs.len() > before {
            return None;
        }
        Some(SendSpec {
            name: b.name.name.clone(),
            clock,
            ticks,
            seed: self.o.seed.unwrap_or(self.s.seed),
            bin: bin?,
            records: records?,
            feed: feed.map(|(_, spec)| spec),
            pool: PoolSpec {
                senders: u32::try_from(senders?).unwrap_or(u32::MAX),
                rate: rate?,
                burst: burst?,
                latency: latency?,
                window_cap: window_cap?,
            },
            provider,
            client: client?,
            adaptive: adaptive?,
        })
    }

    pub(super) fn classified(
        &mut self,
        what: &str,
        b: &SendBlockAst,
        settings: &[&SendSetting],
        provider: &ProviderSpec,
        success: Option<Vec<CodeMatch>>,
    ) -> Option<ClassifiedSpec> {
        let mut rules: Vec<(CodeMatch, CodeClass)> = success?
            .into_iter()
            .map(|m| (m, CodeClass::Success))
            .collect();
        for s in settings {
            let class = match s.key.name.as_str() {
                "terminal" => CodeClass::Terminal,
                "retryable" => CodeClass::Retryable,
                _ => continue,
            };
            for m in self.code_list(s)? {
                rules.push((m, class));
            }
        }
        let throttles = match Self::find(settings, "throttles") {
            Some(s) => self.code_list(s)?,
            None => provider
                .throttles
                .iter()
                .map(|(c, _)| CodeMatch::Exact(*c))
                .collect(),
        };
        let max_attempts = self
            .required(what, &b.name, settings, "attempts", "attempts 8")
            .and_then(|s| self.count(s));
        let unknown_attempts = self
            .required(
                what,
                &b.name,
                settings,
                "unknown_attempts",
                "unknown_attempts 2",
            )
            .and_then(|s| self.count(s));
        let max_age = match Self::find(settings, "max_age") {
            Some(s) => Some(Some(self.duration(s)?)),
            None => Some(None),
        };
        let jitter = self
            .required(what, &b.name, settings, "jitter", "jitter 500ms cap 60s")
            .and_then(|s| {
                let clock = self.s.clock;
                let mut parts = Parts { set: s, i: 0 };
                let base = self.value(&mut parts, "a first window such as `500ms`")?;
                let base = self.s.conv(base, self.o, |v| {
                    units::fine_ticks(v, clock, "the jitter's first window")
                });
                let base = self.keep(base)?;
                if !self.expect_word(&mut parts, "cap", "jitter 500ms cap 60s") {
                    return None;
                }
                let cap = self.value(&mut parts, "a largest window such as `60s`")?;
                let cap = self.s.conv(cap, self.o, |v| {
                    units::fine_ticks(v, clock, "the jitter's cap")
                });
                let cap = self.keep(cap)?;
                self.end(&mut parts);
                Some((base, cap))
            });
        let honor = match Self::find(settings, "retry_after") {
            Some(s) => self.word(s, &["honor", "ignore"]).map(|w| w == "honor"),
            None => Some(true),
        };
        let (max_attempts, unknown_attempts) = (max_attempts?, unknown_attempts?);
        let (jitter_base, jitter_cap) = jitter?;
        Some(ClassifiedSpec {
            classifier: Classifier { rules },
            throttles,
            max_attempts: u32::try_from(max_attempts.max(1)).unwrap_or(u32::MAX),
            unknown_attempts: u32::try_from(unknown_attempts.max(1)).unwrap_or(u32::MAX),
            max_age: max_age?,
            jitter_base,
            jitter_cap,
            honor_retry_after: honor?,
        })
    }

    /// `batch B per D` after `records N` (and after its rate, if written,
    /// which `rated` says): N records made B at a time, every D from tick
    /// 0. `Some(None)` when the setting has no `batch`; `None` after an
    /// error, which is pushed.
    fn batch(&mut self, parts: &mut Parts<'_>, rated: bool) -> Option<Option<RecordBatch>> {
        if !parts.peek_word("batch") {
            return Some(None);
        }
        let word = parts.next().map(part_span)?;
        if rated {
            self.errs.push(
                Diagnostic::new("records made at a rate and in batches", word)
                    .label("`at` a rate, or `batch`, not both")
                    .help("keep one: `records 48000 at 14/s` spreads them evenly, `records 48000 batch 500 per 1min` makes 500 at a time"),
            );
            return None;
        }
        let v = self.value(parts, "a number of records such as `500`")?;
        let r = self.s.conv(v, self.o, |v| {
            units::count(v, "a batch").and_then(|n| positive(n as f64, v, "a batch").map(|_| n))
        });
        let size = self.keep(r)?;
        if !parts.peek_word("per") {
            let d = match parts.next() {
                Some(p) => parts
                    .takes("`per` and a duration such as `1min`")
                    .at(part_span(p)),
                None => parts.missing("`per` and a duration such as `1min`"),
            };
            self.errs.push(d);
            return None;
        }
        parts.i += 1;
        let clock = self.s.clock;
        let v = self.value(parts, "a duration such as `1min`")?;
        let r = self.s.conv(v, self.o, |v| {
            units::fine_ticks(v, clock, "a batch's period")
                .and_then(|t| positive(t, v, "a batch's period"))
        });
        let every = self.keep(r)?;
        Some(Some(RecordBatch { size, every }))
    }
}

/// The records a source that feeds a sender is expected to make over a
/// run of `ticks` ticks: its `at` times, or its rate summed over the ticks
/// (ticks `0..=ticks`, the run's). Exact for `at` times and, within one, for
/// uniform arrivals; the mean for Poisson ones. It sizes the run (the
/// memory estimate and the records limit; the engine refuses a run that
/// makes more than the limit all the same).
fn expected_records(spec: &SourceSpec, ticks: u64) -> u64 {
    if let Schedule::At(times) = &spec.schedule {
        return times.len() as u64;
    }
    let sum = if spec.periods.is_empty() {
        spec.rate * (ticks as f64 + 1.0)
    } else {
        (0..=ticks).map(|t| spec.rate_at(t)).sum()
    };
    sum.ceil() as u64
}
