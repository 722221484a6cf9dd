//! A node's `discipline` and a source's `priority`: the order of a queue.
//!
//! `discipline fifo`, `lifo`, `adaptive_lifo` with its settings by name,
//! or `codel` (FIFO with CoDel's shedding: fbthrift's `ThreadManager`)
//! with the first two:
//!
//! | setting | default | from |
//! |---|---|---|
//! | `target_delay` | 5 ms | folly `folly/executors/Codel.cpp`, gflag `codel_target_delay` |
//! | `interval` | 100 ms | the same file, gflag `codel_interval` |
//! | `lifo_threshold` | 0.8 of the queue's bound | HBase `RpcExecutor.java`, `CALL_QUEUE_CODEL_DEFAULT_LIFO_THRESHOLD` |
//! | `lifo_switch_threshold` | none: a count of waiting calls | HHVM `hphp/util/job-queue.h`, `lifoSwitchThreshold` |
//!
//! folly's `Codel::setOptions` refuses an interval not above the target
//! delay, or either not above zero; so does this. Under `clock round` the
//! wall-clock defaults do not exist and the two durations must be written.
//! A queue without a bound has no share to take 0.8 of: it needs
//! `lifo_switch_threshold`.

use super::settings::Settings;
use super::Cx;
use crate::ast::{Ident, KindBlockAst, Timed, TimedPart};
use crate::decl::Scenario;
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::model::{AdaptiveLifo, CodelFifo, Model, QueueDiscipline, UNBOUNDED_QUEUE};
use crate::needs::{Need, Needs};
use crate::twice::Twice;
use crate::units;
use crate::unknown::Unknown;

/// folly's `codel_target_delay` and `codel_interval` \[ms\].
const TARGET_DELAY_MS: f64 = 5.0;
const INTERVAL_MS: f64 = 100.0;
/// HBase's `hbase.ipc.server.callqueue.codel.lifo.threshold`.
const LIFO_THRESHOLD: f64 = 0.8;

impl Scenario {
    /// `discipline WORD [{ ... }]` on a node whose queue holds `queue`
    /// calls at most: one of [`QueueDiscipline::KEYWORDS`] (an unknown
    /// word gets the nearest one suggested) with its settings.
    pub(super) fn discipline(
        &self,
        t: &Timed,
        queue: u64,
        cx: &mut Cx<'_>,
    ) -> Option<QueueDiscipline> {
        let word = t.first_word()?;
        let block = settings_block(word, t);
        let known = QueueDiscipline::settings_of(&word.name);
        let mut ok = true;
        for (k, (name, _)) in block.fields.iter().enumerate() {
            if !known.contains(&name.name.as_str()) {
                ok = false;
                let help = did_you_mean(&name.name, known.iter().copied()).unwrap_or_else(|| {
                    if known.is_empty() {
                        format!("`discipline {}` takes no settings", word.name)
                    } else {
                        let list: Vec<String> = known.iter().map(|f| format!("`{f}`")).collect();
                        format!("its settings: {}", list.join(", "))
                    }
                });
                cx.errs.push(
                    Diagnostic::new(
                        format!("`discipline {}` has no setting `{}`", word.name, name.name),
                        name.span,
                    )
                    .label("unknown setting")
                    .help(help),
                );
            } else if block.fields[..k].iter().any(|(n, _)| n.name == name.name) {
                ok = false;
                let block = "`discipline` block";
                let setting = &name.name;
                cx.errs
                    .push(Twice::InBlock { setting, block }.at(name.span));
            }
        }
        match word.name.as_str() {
            "fifo" => ok.then_some(QueueDiscipline::Fifo),
            "lifo" => ok.then_some(QueueDiscipline::Lifo),
            "adaptive_lifo" => {
                let a = self.adaptive_lifo(&block, queue, cx);
                a.filter(|_| ok)
                    .map(|a| QueueDiscipline::AdaptiveLifo(Box::new(a)))
            }
            "codel" => {
                let set = Settings {
                    scenario: self,
                    block: &block,
                };
                let (target_delay, interval) = self.codel(&set, cx)?;
                let c = CodelFifo {
                    target_delay,
                    interval,
                };
                ok.then(|| QueueDiscipline::Codel(Box::new(c)))
            }
            _ => {
                let words: Vec<String> = QueueDiscipline::KEYWORDS
                    .iter()
                    .map(|w| format!("`{w}`"))
                    .collect();
                let expected = match words.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => words.concat(),
                };
                cx.errs.push(
                    Unknown::new("queue discipline", &word.name)
                        .label(format!("expected {expected}"))
                        .at(word.span, QueueDiscipline::KEYWORDS),
                );
                None
            }
        }
    }

    /// `adaptive_lifo`'s settings, read and checked against folly's and
    /// the threshold's library.
    fn adaptive_lifo(&self, b: &KindBlockAst, queue: u64, cx: &mut Cx<'_>) -> Option<AdaptiveLifo> {
        let set = Settings {
            scenario: self,
            block: b,
        };
        let (target_delay, interval) = self.codel(&set, cx)?;
        let lifo_above = match (set.get("lifo_threshold"), set.get("lifo_switch_threshold")) {
            (Some(_), Some(_)) => {
                cx.errs.push(
                    Diagnostic::new(
                        "adaptive LIFO switches at a share of the queue or at a count, not both",
                        set.span_of("lifo_switch_threshold"),
                    )
                    .label("`lifo_threshold` and `lifo_switch_threshold`")
                    .help("`lifo_threshold 0.8` is HBase's share of the queue's bound, `lifo_switch_threshold 8` HHVM's count of waiting calls"),
                );
                return None;
            }
            (None, Some(_)) => set.count(cx, "lifo_switch_threshold", 0, 1_000_000_000)? as f64,
            (_, None) if queue == UNBOUNDED_QUEUE => {
                cx.errs.push(
                    Needs::new("adaptive LIFO on a queue without a bound", Need::Key("lifo_switch_threshold"))
                        .because("HBase's `lifo_threshold` is a share of the queue's bound, and this queue has none")
                        .help("give the count of waiting calls past which it serves the newest first, e.g. `lifo_switch_threshold 8`, or bound the queue: `queue 100`")
                        .at(b.kind.span),
                );
                return None;
            }
            _ => {
                let share = |x: f64| (0.0..=1.0).contains(&x);
                let t = set.real(
                    cx,
                    "lifo_threshold",
                    LIFO_THRESHOLD,
                    share,
                    "is a share in 0..1",
                )?;
                t * queue as f64
            }
        };
        Some(AdaptiveLifo {
            target_delay,
            interval,
            lifo_above,
        })
    }

    /// CoDel's `target_delay` and `interval` of a `discipline` block (both
    /// disciplines that shed), checked as folly's `Codel::setOptions`
    /// checks them.
    fn codel(&self, set: &Settings<'_>, cx: &mut Cx<'_>) -> Option<(f64, f64)> {
        let ms = self.clock.tick_millis().map(|m| 1.0 / m as f64);
        let target_delay = self.fine(set, cx, "target_delay", ms.map(|t| t * TARGET_DELAY_MS))?;
        let interval = self.fine(set, cx, "interval", ms.map(|t| t * INTERVAL_MS))?;
        if target_delay <= 0.0 || interval <= target_delay {
            let (name, why) = if target_delay <= 0.0 {
                (
                    "target_delay",
                    "a target delay of 0 would shed every call that waited at all",
                )
            } else {
                ("interval", "the target delay is measured over the interval")
            };
            cx.errs.push(
                Diagnostic::new(
                    "a CoDel `interval` must be longer than its `target_delay`, and both above 0",
                    set.span_of(name),
                )
                .label(why)
                .help("folly's Codel::setOptions refuses them; its defaults are `target_delay 5ms  interval 100ms`"),
            );
            return None;
        }
        Some((target_delay, interval))
    }

    /// A duration setting in (fractional) ticks; `default` none under
    /// `clock round`, where it must be written.
    fn fine(
        &self,
        set: &Settings<'_>,
        cx: &mut Cx<'_>,
        name: &str,
        default: Option<f64>,
    ) -> Option<f64> {
        let Some(v) = set.get(name) else {
            if default.is_none() {
                cx.errs.push(
                    Diagnostic::new(
                        format!("`{name}` has no default under `clock round`: folly's default is wall-clock time"),
                        set.block.span,
                    )
                    .label(format!("no `{name}`"))
                    .help(format!("write it in rounds, e.g. `{name} 2 rounds`")),
                );
            }
            return default;
        };
        let clock = self.clock;
        cx.keep(self.conv(v, cx.o, |v| units::fine_ticks(v, clock, name)))
    }

    /// A source's `priority N`, 0 when not written.
    pub(super) fn priority(&self, t: Option<&Timed>, cx: &mut Cx<'_>) -> u32 {
        t.and_then(|t| self.whole(t, "", "a priority", cx))
            .map_or(0, |p| u32::try_from(p).unwrap_or(u32::MAX))
    }
}

/// The settings after a discipline's word, as a block named by it.
fn settings_block(word: &Ident, t: &Timed) -> KindBlockAst {
    let mut fields = Vec::new();
    let mut name: Option<&Ident> = None;
    for p in &t.parts[1..] {
        match p {
            TimedPart::Word(w) => name = Some(w),
            TimedPart::Value(v) | TimedPart::Percent(v) => {
                if let Some(n) = name.take() {
                    fields.push((n.clone(), v.clone()));
                }
            }
            TimedPart::Code(..) => {}
        }
    }
    KindBlockAst {
        kind: word.clone(),
        fields,
        span: t.span,
    }
}

/// A `priority` orders the calls waiting for a worker: in a model where
/// no service has `workers`, no call ever waits, and it is refused, at
/// the first one the run gives (a variant's, else the source's own),
/// rather than ignored.
pub(super) fn check_priorities(s: &Scenario, model: &Model, cx: &mut Cx<'_>) {
    let waits = model
        .nodes
        .iter()
        .any(|n| n.server.as_ref().is_some_and(|s| s.workers.is_some()));
    if waits {
        return;
    }
    // The first source given a priority, by the run's variant or its own.
    let first = s
        .sources
        .iter()
        .enumerate()
        .find_map(|(i, d)| super::sources::setting(cx.o, i, "priority", &d.priority));
    if let Some(t) = first {
        cx.errs.push(
            Needs::new("a source's `priority`", Need::Key("workers"))
                .because("it orders the calls waiting in a service's queue, and with no `workers` anywhere no call waits")
                .help("add e.g. `workers 4` to the service whose queue the sources share")
                .at(t.span),
        );
    }
}
