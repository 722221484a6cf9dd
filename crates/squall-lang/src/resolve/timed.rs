//! Resolving the settings of calls that take time into the run model:
//! a node's server and caller sides, a source's deadline, a fault's timed
//! effects, the series bin. Values go through params and overrides like
//! every other value; durations become fractional ticks.

use crate::ast::{Timed, Value};
use crate::decl::Scenario;
use crate::diagnostic::Diagnostic;
use crate::model::{
    CallerSpec, DeadlineSpec, LatencySpec, RateLimitSpec, ServerSpec, TimedFault, UNBOUNDED_QUEUE,
};
use crate::needs::{Need, Needs};
use crate::not_a::NotA;
use crate::units;

use super::Cx;

/// The most versioned items a node holds (`optimistic items N`): each
/// keeps its version, 8 bytes.
const MAX_ITEMS: u64 = 1_000_000;

impl Scenario {
    fn timed_value<T>(
        &self,
        t: &Timed,
        word: &str,
        cx: &mut Cx<'_>,
        f: impl FnOnce(&Value) -> Result<T, Diagnostic>,
    ) -> Option<T> {
        let v = t.value_after(word)?;
        cx.keep(self.conv(v, cx.o, f))
    }

    fn duration(&self, t: &Timed, word: &str, what: &str, cx: &mut Cx<'_>) -> Option<f64> {
        let clock = self.clock;
        self.timed_value(t, word, cx, |v| units::fine_ticks(v, clock, what))
    }

    pub(super) fn whole(&self, t: &Timed, word: &str, what: &str, cx: &mut Cx<'_>) -> Option<u64> {
        self.timed_value(t, word, cx, |v| units::count(v, what))
    }

    /// A node's `latency`, `load`, `workers`, `queue`, `discipline`,
    /// `optimistic`, `limit` and `timeout`: its server side (none when it has no server setting) and
    /// its caller side.
    pub(super) fn server_and_caller(
        &self,
        timed: &[Timed],
        cx: &mut Cx<'_>,
    ) -> (Option<ServerSpec>, CallerSpec) {
        let mut server = ServerSpec::default();
        let mut caller = CallerSpec::default();
        let mut any = false;
        for t in timed {
            match t.key.name.as_str() {
                "latency" => {
                    any = true;
                    server.latency = self.latency(t, cx);
                }
                "load" => {
                    any = true;
                    server.per_call = self.duration(t, "", "a load term", cx).unwrap_or(0.0);
                }
                "workers" => {
                    any = true;
                    server.workers = self
                        .whole(t, "", "a number of workers", cx)
                        .map(|w| u32::try_from(w).unwrap_or(u32::MAX));
                    if server.workers == Some(0) {
                        cx.errs.push(
                            Needs::new(
                                "a node",
                                Need::AtLeastOne {
                                    one: "worker",
                                    many: "workers",
                                },
                            )
                            .at(t.span),
                        );
                    }
                }
                "queue" => {
                    any = true;
                    server.queue = if t.has("unbounded") {
                        Some(UNBOUNDED_QUEUE)
                    } else {
                        self.whole(t, "", "a queue length", cx)
                    };
                    server.queue_timeout = self.duration(t, "timeout", "a queue timeout", cx);
                }
                // Resolved below, once the queue's bound is known.
                "discipline" => any = true,
                "optimistic" => {
                    any = true;
                    server.optimistic = Some(t.code().unwrap_or(CONFLICT));
                    if let Some(v) = t.value_after("items") {
                        let n = self.whole(t, "items", "a number of items", cx).unwrap_or(1);
                        if !(1..=MAX_ITEMS).contains(&n) {
                            cx.errs.push(
                                Diagnostic::new(format!("`items` is from 1 to {MAX_ITEMS}, found {n}"), v.span)
                                    .label("not a number of versioned items")
                                    .help("`optimistic items 8` spreads the writes over 8 items; one item (the default) is `optimistic`"),
                            );
                        }
                        server.optimistic_items = n.clamp(1, MAX_ITEMS) as u32;
                    }
                }
                "limit" => {
                    any = true;
                    let clock = self.clock;
                    let rate =
                        self.timed_value(t, "", cx, |v| units::per_tick(v, clock, "a rate limit"));
                    let burst = t
                        .value_after("burst")
                        .and_then(|v| cx.keep(self.conv(v, cx.o, |v| units::real(v, "a burst"))))
                        .unwrap_or(1.0);
                    let max_wait = self.duration(t, "max", "a longest wait", cx);
                    server.rate_limit = rate.map(|rate| RateLimitSpec {
                        rate,
                        burst,
                        status: t.code().unwrap_or(429),
                        retry_after: t.has("retry_after"),
                        wait: t.has("wait"),
                        max_wait,
                    });
                }
                "timeout" => {
                    caller.timeout = self.duration(t, "", "a timeout", cx);
                    caller.cancel = t.has("cancel");
                    if caller.timeout == Some(0.0) {
                        cx.errs.push(
                            Diagnostic::new("a timeout of 0 fails every try", t.span)
                                .label("zero timeout"),
                        );
                    }
                }
                _ => {}
            }
        }
        // `workers N` alone: the calls that find every worker busy wait in
        // a FIFO queue without bound (the reference's reading: "the rest
        // wait"), not refused as if the queue held nothing.
        if server.workers.is_some() && server.queue.is_none() {
            server.queue = Some(UNBOUNDED_QUEUE);
        }
        if let Some(t) = timed.iter().find(|t| t.key.name == "discipline") {
            let queue = server.queue.unwrap_or(0);
            if let Some(d) = self.discipline(t, queue, cx) {
                server.discipline = d;
            }
        }
        if server.queue.is_some() && server.workers.is_none() {
            if let Some(t) = timed.iter().find(|t| t.key.name == "queue") {
                cx.errs.push(
                    Diagnostic::new(
                        "a `queue` waits for workers, and this node has no `workers`",
                        t.span,
                    )
                    .label("queue without workers")
                    .help("add e.g. `workers 20`"),
                );
            }
        }
        // On a work queue (`consumers`) the setting is refused as none of
        // its business (`resolve/work_queue.rs`), not as lacking workers.
        let work_queue = timed.iter().any(|t| t.key.name == "consumers");
        if server.workers.is_none() && !work_queue {
            if let Some(t) = timed.iter().find(|t| t.key.name == "discipline") {
                cx.errs.push(
                    Needs::new("a `discipline`", Need::Key("workers"))
                        .because("it orders the calls waiting for a worker")
                        .help("add e.g. `workers 20`")
                        .at(t.span),
                );
            }
        }
        // Without a service time a call's read and commit fall in one
        // moment: no other write can land between them, so nothing would
        // ever conflict. Refused rather than a silent no-op.
        if server.optimistic.is_some() && server.latency.is_none() && !work_queue {
            if let Some(t) = timed.iter().find(|t| t.key.name == "optimistic") {
                cx.errs.push(
                    Needs::new("an `optimistic` node", Need::Key("latency"))
                        .because("a write conflicts only with one that commits while it is in service, and without a service time none can")
                        .help("add e.g. `latency normal mean 20ms sd 3ms`")
                        .at(t.span),
                );
            }
        }
        (any.then_some(server), caller)
    }

    /// `latency ...` (or a source's `think ...`, or what follows `serial
    /// every`) as a distribution.
    pub(super) fn latency(&self, t: &Timed, cx: &mut Cx<'_>) -> Option<LatencySpec> {
        let key = t.key.name.as_str();
        let Some(kind) = t.first_word() else {
            let what = match key {
                "think" => "a think time",
                "serial" => "a gap between a serial client's starts",
                _ => "a latency",
            };
            return self.duration(t, "", what, cx).map(LatencySpec::Constant);
        };
        let written = if key == "serial" { "serial every" } else { key };
        let need = |cx: &mut Cx<'_>, words: &str| {
            let who = format!("`{written} {}`", kind.name);
            cx.errs.push(
                Needs::new(&who, Need::Words(words))
                    .label("incomplete distribution")
                    .at(t.span),
            );
        };
        let d = |cx: &mut Cx<'_>, w: &str| self.duration(t, w, &format!("`{w}`"), cx);
        match kind.name.as_str() {
            "lognormal" => {
                let (Some(p50), Some(p99)) = (d(cx, "p50"), d(cx, "p99")) else {
                    need(cx, "`p50` and `p99`");
                    return None;
                };
                if p50 <= 0.0 || p99 < p50 {
                    cx.errs.push(
                        Needs::new("a lognormal", Need::Words("0 < p50 <= p99"))
                            .label("p99 below p50")
                            .at(t.span),
                    );
                    return None;
                }
                Some(LatencySpec::LogNormal { p50, p99 })
            }
            "exponential" => match d(cx, "mean") {
                Some(mean) => Some(LatencySpec::Exponential { mean }),
                None => {
                    need(cx, "a `mean`");
                    None
                }
            },
            "uniform" => {
                let (Some(low), Some(high)) = (d(cx, "low"), d(cx, "high")) else {
                    need(cx, "`low` and `high`");
                    return None;
                };
                if high < low {
                    cx.errs.push(
                        Needs::new("a uniform latency", Need::Words("low <= high"))
                            .label("high below low")
                            .at(t.span),
                    );
                    return None;
                }
                Some(LatencySpec::Uniform { low, high })
            }
            "normal" => {
                let (Some(mean), Some(sd)) = (d(cx, "mean"), d(cx, "sd")) else {
                    need(cx, "`mean` and `sd`");
                    return None;
                };
                Some(LatencySpec::Normal { mean, sd })
            }
            _ => {
                let mut points = Vec::new();
                let mut word: Option<&crate::ast::Ident> = None;
                for p in &t.parts[1..] {
                    match p {
                        crate::ast::TimedPart::Word(w) => word = Some(w),
                        crate::ast::TimedPart::Value(v) => {
                            let Some(w) = word.take() else { continue };
                            let share = w
                                .name
                                .strip_prefix('p')
                                .and_then(|x| x.parse::<f64>().ok())
                                .filter(|q| (0.0..=100.0).contains(q))
                                .map(|q| q / 100.0);
                            let Some(share) = share else {
                                cx.errs.push(
                                    NotA::new(&w.name, "a percentile from `p0` to `p100`")
                                        .label("not a percentile")
                                        .help("write the table as `latency table p0 1ms p50 5ms p100 200ms`")
                                        .at(w.span),
                                );
                                return None;
                            };
                            let clock = self.clock;
                            let value =
                                cx.keep(self.conv(v, cx.o, |v| {
                                    units::fine_ticks(v, clock, "a table value")
                                }))?;
                            if let Some(&(q, x)) = points.last() {
                                if share <= q || value < x {
                                    cx.errs.push(
                                        Diagnostic::new(
                                            "a latency table goes up: each percentile and its value above the one before",
                                            v.span,
                                        )
                                        .label("not increasing"),
                                    );
                                    return None;
                                }
                            }
                            points.push((share, value));
                        }
                        _ => {}
                    }
                }
                Some(LatencySpec::Table(points))
            }
        }
    }

    /// A source's `deadline ...`.
    pub(super) fn deadline(&self, t: &Timed, cx: &mut Cx<'_>) -> Option<DeadlineSpec> {
        let after = self.duration(t, "", "a deadline", cx)?;
        Some(DeadlineSpec {
            after,
            propagate: t.has("propagate"),
        })
    }

    /// A fault's `latency x N`, `latency + D [jitter J]`, `errors P% as
    /// CODE`, `answer latency + D [jitter J]`, `partition` and `workers N`.
    pub(super) fn timed_fault(&self, timed: &[Timed], cx: &mut Cx<'_>) -> TimedFault {
        let mut out = TimedFault::default();
        for t in timed {
            match t.key.name.as_str() {
                "latency" if t.has("x") => {
                    out.latency_factor =
                        self.timed_value(t, "x", cx, |v| units::real(v, "a latency factor"));
                    if let Some(j) = t.value_after("jitter") {
                        cx.errs.push(
                            Diagnostic::new("`jitter` spreads an added latency, not a factor", j.span)
                                .label("after `latency x`")
                                .help("write `latency + 20ms jitter 5ms`: each call's addition drawn uniformly in 15..25ms"),
                        );
                    }
                }
                "latency" => {
                    out.latency_add = self.duration(t, "+", "an added latency", cx);
                    out.latency_jitter = self.duration(t, "jitter", "a jitter", cx);
                }
                "errors" => {
                    // `errors 30% as 503`, or `errors $p as 503` with a
                    // percentage param (`param p = 30%`).
                    let share =
                        if matches!(t.parts.first(), Some(crate::ast::TimedPart::Percent(_))) {
                            self.timed_value(t, "", cx, |v| units::real(v, "an error share"))
                        } else {
                            self.timed_value(t, "", cx, |v| units::percent(v, "an error share"))
                        };
                    if let Some(s) = share {
                        if !(0.0..=100.0).contains(&s) {
                            cx.errs.push(
                                Diagnostic::new("an error share is from 0% to 100%", t.span)
                                    .label("out of range"),
                            );
                        }
                        out.errors = Some((s / 100.0, t.code().unwrap_or(503)));
                    }
                }
                "answer" => {
                    out.answer_add = self.duration(t, "+", "an added latency", cx);
                    out.answer_jitter = self.duration(t, "jitter", "a jitter", cx);
                }
                "partition" => out.partition = true,
                "workers" => {
                    out.workers = self
                        .whole(t, "", "a number of workers", cx)
                        .map(|w| u32::try_from(w).unwrap_or(u32::MAX));
                }
                _ => {}
            }
        }
        out
    }

    /// `series every D` as whole ticks.
    pub(super) fn series_every(&self, cx: &mut Cx<'_>) -> Option<u64> {
        let t = self.series.as_ref()?;
        let clock = self.clock;
        let every = self.timed_value(t, "every", cx, |v| units::ticks(v, clock, "a series bin"))?;
        if every == 0 {
            cx.errs.push(
                Diagnostic::new("a series bin of 0 ticks holds nothing", t.span).label("zero bin"),
            );
            return None;
        }
        Some(every)
    }
}

/// The status of a write that lost the race when `optimistic` names none:
/// HTTP's 409 Conflict (RFC 9110, section 15.5.10: "the request could not
/// be completed due to a conflict with the current state of the target
/// resource", the status an edit conflict answers).
const CONFLICT: u32 = 409;
