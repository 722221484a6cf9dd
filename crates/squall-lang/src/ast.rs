//! The syntax tree: what the file says, with a span on every node.
//!
//! Nothing here is checked beyond the grammar; [`crate::validate`] binds names
//! and [`crate::resolve`] turns values into numbers.

use serde::Serialize;

use crate::span::Span;

/// A name with its span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ident {
    /// The name as written.
    pub name: String,
    /// Where.
    pub span: Span,
}

/// A time unit written after a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TimeUnit {
    /// `round`/`rounds`: the abstract step of a `clock round` file.
    Round,
    /// milliseconds
    Ms,
    /// seconds
    S,
    /// minutes
    Min,
    /// hours
    H,
}

impl TimeUnit {
    /// Parses a unit word.
    pub fn parse(s: &str) -> Option<TimeUnit> {
        Some(match s {
            "round" | "rounds" => TimeUnit::Round,
            "ms" => TimeUnit::Ms,
            "s" => TimeUnit::S,
            "min" => TimeUnit::Min,
            "h" => TimeUnit::H,
            _ => return None,
        })
    }

    /// Milliseconds in one unit; `None` for rounds, which have no wall-clock length.
    pub fn millis(self) -> Option<u64> {
        match self {
            TimeUnit::Round => None,
            TimeUnit::Ms => Some(1),
            TimeUnit::S => Some(1_000),
            TimeUnit::Min => Some(60_000),
            TimeUnit::H => Some(3_600_000),
        }
    }

    /// The unit's canonical spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeUnit::Round => "round",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
            TimeUnit::Min => "min",
            TimeUnit::H => "h",
        }
    }
}

/// What a value literally says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ValueKind {
    /// A plain number: a count, a multiplier, or ticks of the file's clock.
    Number(f64),
    /// `n/unit`: so many per unit of time.
    Rate {
        /// How many.
        n: f64,
        /// Per what, as written (checked against the clock when resolved).
        unit: String,
        /// Span of the unit word.
        unit_span: Span,
    },
    /// `n unit`: a span of time.
    Duration {
        /// How many units.
        n: f64,
        /// Which unit.
        unit: TimeUnit,
    },
    /// `$name`: the value of a param.
    Param(String),
    /// `$name/unit`: so many per unit of time, the param a plain number
    /// (boxed, so a value stays as small as a written rate).
    ParamRate(Box<ParamRate>),
    /// `180 B`: a size in bytes.
    Size {
        /// Bytes.
        bytes: f64,
    },
    /// A word, as a param's value: `stale_fallback`.
    Word(String),
    /// `10%`, as a param's value: the number before the `%` (10).
    Percent(f64),
    /// A symbolic tick in a range: `end`, or the start of `after warmup`.
    Mark(Mark),
}

/// `$name/unit`: a rate whose count is a plain-number param.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamRate {
    /// The param.
    pub name: String,
    /// Per what, as written (checked against the clock when resolved).
    pub unit: String,
    /// Span of the unit word.
    pub unit_span: Span,
}

/// A symbolic tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Mark {
    /// The run's first tick.
    Start,
    /// The run's last tick.
    End,
    /// The first tick after the warm-up.
    AfterWarmup,
}

/// A value with its span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Value {
    /// What it says.
    pub kind: ValueKind,
    /// Where.
    pub span: Span,
}

/// A range `a..b` (both inclusive) or `a..<b` (`b` left out); each bound
/// may add or subtract further values (`1..$start - 1`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Range {
    /// First tick.
    pub start: Value,
    /// Last tick (inclusive unless `half_open`).
    pub end: Value,
    /// Where.
    pub span: Span,
    /// Values added to or subtracted from `start`, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub start_terms: Vec<Term>,
    /// Values added to or subtracted from `end`, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub end_terms: Vec<Term>,
    /// `a..<b`: the range stops one tick before `b`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub half_open: bool,
}

/// `+ v` or `- v` after a range bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    /// `-`: subtracted.
    pub minus: bool,
    /// The value.
    pub value: Value,
}

/// A whole scenario file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioAst {
    /// The quoted name.
    pub name: String,
    /// Span of the quoted name.
    pub name_span: Span,
    /// Items in declaration order.
    pub items: Vec<Item>,
}

/// One declaration inside `scenario { ... }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(clippy::large_enum_variant)] // built once per file; boxing buys nothing
pub enum Item {
    /// `clock round`
    Clock(Ident),
    /// `run 400 rounds`
    Run(Value),
    /// `run a..b`
    RunRange(Range),
    /// `warmup 2min`
    Warmup(Value),
    /// `epoch "..."`: wall-clock time of tick 0
    Epoch(String, Span),
    /// `rng name { ... }`
    Rng(RngAst),
    /// `backoff name = ...`
    Backoff(Ident, BackoffAst),
    /// `policy name { ... }`
    Policy(Ident, RetryAst),
    /// `endpoint node { ... }`
    Endpoint(EndpointAst),
    /// `seed 42`
    Seed(u64, Span),
    /// `draws common` (or `separate`): the word as written
    Draws(Ident),
    /// `work_budget 1_000_000`: the budget, the literal as written, and its span
    WorkBudget(u64, String, Span),
    /// `param name = value`
    Param(Ident, Value),
    /// `source name { ... }`
    Source(SourceAst),
    /// `chain a -> b -> c` (nodes), optionally `-> [d, e]` (a fan-out from
    /// the last node)
    Chain(Vec<Ident>, Vec<Ident>),
    /// `service a, b { ... }`
    Service(ServiceAst),
    /// `fault name { ... }`
    Fault(FaultAst),
    /// `window name a..b`
    Window(Ident, Range),
    /// `variant name "label" { ... }`
    Variant(VariantAst),
    /// `sweep name "label" { ... }`
    Sweep(SweepAst),
    /// `report { ... }`
    Report(Vec<ReportItem>),
    /// `expect lhs op rhs`
    Expect(ExpectAst),
    /// `series every 1s`
    Series(Timed),
    /// `provider name { ... }`
    Provider(SendBlockAst),
    /// `sender name to provider { ... }`
    Sender(SendBlockAst),
    /// `link api -> db { latency 2ms }`
    Link(LinkAst),
}

/// A setting of calls that take time, kept as written: its keyword, then
/// its words and values in order (`latency lognormal p50 5ms p99 80ms`,
/// `timeout 250ms cancel`, `errors 30% as 503`). The grammar fixes which
/// words each keyword takes; resolution reads them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timed {
    /// The keyword: `latency`, `load`, `workers`, `queue`, `discipline`,
    /// `optimistic`, `limit`,
    /// `timeout`, `deadline`, `errors` or `series`.
    pub key: Ident,
    /// What follows it.
    pub parts: Vec<TimedPart>,
    /// The whole setting.
    pub span: Span,
}

/// One part of a [`Timed`] setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum TimedPart {
    /// A word: `lognormal`, `p99`, `cancel`, `x`, `+`, ...
    Word(Ident),
    /// A value: `5ms`, `20`, `$timeout`, `100/s`.
    Value(Value),
    /// A value written with `%`: `30%`.
    Percent(Value),
    /// A status code: `503`.
    Code(u32, Span),
}

/// One entry of a source's `at [...]`: a send time, and how many requests
/// it sends then (`1ms x 100`; one when not written).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtTime {
    /// The send time.
    pub time: Value,
    /// `x N`: the requests sent at that time.
    pub count: Option<Value>,
}

/// `source users { rate 4/round enters edge }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceAst {
    /// The source's name.
    pub name: Ident,
    /// Its properties in order.
    pub props: Vec<SourceProp>,
    /// The whole declaration.
    pub span: Span,
}

/// A `rate` line: a base rate, or a rate that holds during a range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateAst {
    /// The rate.
    pub value: Value,
    /// When it holds; `None` for the whole run.
    pub during: Option<Range>,
    /// `rate A to B during ..`: the rate at the range's end (a ramp).
    pub to: Option<Box<Value>>,
}

/// A property of a source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SourceProp {
    /// `rate 4/round [during a..b]`
    Rate(RateAst),
    /// `enters edge`
    Enters(Ident),
    /// `arrivals uniform|poisson`
    Arrivals(Ident),
    /// `at [t, t x N, ...]`
    At(Vec<AtTime>),
    /// `request METHOD /path [idempotency_key]`
    Request(RequestAst),
    /// `sequential { op ... }`
    Sequential(Vec<OpAst>),
    /// `deadline 2s [propagate]`
    Timed(Timed),
}

/// What a request is: method, path, key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestAst {
    /// `GET`, `POST`, ... or `*`.
    pub method: String,
    /// `/path`.
    pub path: String,
    /// Carries an idempotency key.
    pub key: bool,
    /// Where.
    pub span: Span,
}

/// `op "label" GET /path [idempotency_key] [attempts n] [policy p]`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpAst {
    /// Label in reports.
    pub label: String,
    /// The request.
    pub request: RequestAst,
    /// Tries for this operation (overrides the entry service's policy).
    pub attempts: Option<Value>,
    /// A named policy for this operation.
    pub policy: Option<Ident>,
}

/// `rng name { algorithm seed n }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RngAst {
    /// Name.
    pub name: Ident,
    /// `mulberry32` or `splitmix64`.
    pub algorithm: Option<Ident>,
    /// Explicit seed.
    pub seed: Option<(u64, Span)>,
}

/// `endpoint node { route ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndpointAst {
    /// The node.
    pub node: Ident,
    /// Routes in order; the first match wins.
    pub routes: Vec<RouteAst>,
}

/// `route name METHOD /path { script }` or `default { script }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteAst {
    /// Name (`default` for the default route).
    pub name: Ident,
    /// Method, `*` for any; `None` for the default route.
    pub method: Option<String>,
    /// Path; `None` for the default route.
    pub path: Option<String>,
    /// What it answers.
    pub script: Vec<StepAst>,
}

/// One step of a response script.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepAst {
    /// The response.
    pub response: ResponseAst,
    /// `x n`: for so many calls.
    pub times: Option<Value>,
    /// `until t`: until this time.
    pub until: Option<Value>,
    /// Where.
    pub span: Span,
}

/// A response as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ResponseAst {
    /// A status code, optionally with Retry-After.
    Status {
        /// The code as written (`503`, `0x58`).
        code: String,
        /// Retry-After.
        retry_after: Option<RetryAfterAst>,
        /// Where.
        span: Span,
    },
    /// The connection failed.
    NetworkError,
    /// No answer in time.
    Timeout,
    /// The answer's body could not be read.
    BodyError,
}

/// A Retry-After value as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RetryAfterAst {
    /// A delay.
    Delay(Value),
    /// An HTTP date.
    Date(String, Span),
}

/// `service a, b { ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceAst {
    /// The services the block applies to.
    pub names: Vec<Ident>,
    /// Their properties.
    pub props: Vec<ServiceProp>,
}

/// A property of a service.
// A file holds a handful of these; boxing `RetryAst` would change the public
// shape of the tree for no measurable gain.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ServiceProp {
    /// `retry { ... }`
    Retry(RetryAst),
    /// `capacity 12/round`
    Capacity(Value),
    /// `breaker { ... }`
    Breaker(BreakerAst),
    /// `budget KIND { ... }`
    Budget(KindBlockAst),
    /// `breaker KIND { ... }`: a library's rate-window breaker.
    LibraryBreaker(KindBlockAst),
    /// `hedge KIND { ... }`: hedged tries.
    Hedge(KindBlockAst),
    /// `limiter KIND { ... }`: an adaptive concurrency limit.
    Limiter(KindBlockAst),
    /// `throttle KIND { ... }`: client-side adaptive throttling.
    Throttle(KindBlockAst),
    /// `response { ... }`
    Response(ResponseBlockAst),
    /// `latency ...`, `load ...`, `workers N`, `queue N ...`, `discipline D`,
    /// `optimistic [conflict CODE]`, `limit ...`,
    /// `timeout D [cancel]`
    Timed(Timed),
}

impl ServiceProp {
    /// Calls `f` on every value the property holds.
    pub fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        match self {
            ServiceProp::Capacity(v) => f(v),
            ServiceProp::Timed(t) => t.each_value(f),
            ServiceProp::Retry(r) => r.each_value(f),
            ServiceProp::Breaker(b) => b
                .after
                .iter()
                .chain(b.cooldown.iter())
                .chain(b.probes.iter())
                .for_each(&mut *f),
            ServiceProp::Budget(b)
            | ServiceProp::LibraryBreaker(b)
            | ServiceProp::Hedge(b)
            | ServiceProp::Limiter(b)
            | ServiceProp::Throttle(b) => b.fields.iter().for_each(|(_, v)| f(v)),
            ServiceProp::Response(r) => {
                r.fields.iter().for_each(|x| {
                    f(&x.bytes);
                    if let Some(t) = &x.timeout {
                        f(t);
                    }
                });
                r.marker.iter().chain(r.policy.iter()).for_each(&mut *f);
                if let Some(l) = &r.ledger {
                    l.entries.iter().chain(l.stale_for.iter()).for_each(&mut *f);
                }
            }
        }
    }
}

/// A change a variant makes to a service.
// As for `ServiceProp`: a variant holds a handful of these.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ServiceChange {
    /// A property replacing the service's own of the same kind.
    Set(ServiceProp),
    /// `retry none`, `breaker none`, `budget none`: the property removed.
    Remove(Ident),
}

/// `response { field ... marker ... policy ... ledger { ... } }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResponseBlockAst {
    /// Fields in declaration order.
    pub fields: Vec<FieldAst>,
    /// `marker 6 B`
    pub marker: Option<Value>,
    /// `policy ...` (a word or a `$param`)
    pub policy: Option<Value>,
    /// `ledger { ... }`
    pub ledger: Option<LedgerAst>,
    /// Where.
    pub span: Span,
}

/// `field NAME from NODE core|optional SIZE`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldAst {
    /// The field.
    pub name: Ident,
    /// The node it comes from.
    pub source: Ident,
    /// Core (the response is useless without it) or optional.
    pub core: bool,
    /// Its size.
    pub bytes: Value,
    /// `timeout D`: how long the response waits for it (calls that take
    /// time); none: the node's own `timeout`, or no limit.
    pub timeout: Option<Value>,
}

/// `ledger { entries N  stale_for D }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerAst {
    /// Entries it holds.
    pub entries: Option<Value>,
    /// The oldest value it serves.
    pub stale_for: Option<Value>,
    /// Where.
    pub span: Span,
}

/// `every P [phase F] [step S per field]`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EveryAst {
    /// The period.
    pub every: Value,
    /// The phase.
    pub phase: Option<Value>,
    /// The phase step per field.
    pub step: Option<Value>,
    /// Where.
    pub span: Span,
}

/// `breaker { after 3 failures cooldown 5s probes 1 }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakerAst {
    /// Consecutive failures that open it.
    pub after: Option<Value>,
    /// How long it stays open.
    pub cooldown: Option<Value>,
    /// Probes let through when half-open.
    pub probes: Option<Value>,
    /// `per path`: one breaker per request path.
    pub per_path: bool,
    /// Where.
    pub span: Span,
}

/// A block named by its kind, with settings by name:
/// `budget grpc { max_tokens 10  token_ratio 0.1 }`, `breaker polly { sampling 10s }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindBlockAst {
    /// The library whose rule it is (`grpc`, `envoy`, `polly`, ...).
    pub kind: Ident,
    /// Its fields as written, in order.
    pub fields: Vec<(Ident, Value)>,
    /// Where.
    pub span: Span,
}

/// `retry { ... }` or `retry name`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryAst {
    /// `attempts n`
    pub attempts: Option<Value>,
    /// `backoff ...`
    pub backoff: Option<BackoffRef>,
    /// `deadline d`
    pub deadline: Option<Value>,
    /// `retry_after honor|ignore`
    pub retry_after: Option<Ident>,
    /// `unknown_attempts n`
    pub unknown_attempts: Option<Value>,
    /// `pushback grpc|retry_after { ... }`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pushback: Option<KindBlockAst>,
    /// `gate 10%`: the number before the sign.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Value>,
    /// `gate 10% window d`: the trailing window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate_window: Option<Value>,
    /// `retry name`: a named policy instead of a block.
    pub named: Option<Ident>,
    /// The whole block.
    pub span: Span,
}

/// A backoff written in place or named.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum BackoffRef {
    /// Written in place.
    Inline(BackoffAst),
    /// `backoff name`
    Named(Ident),
}

/// A backoff policy as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum BackoffAst {
    /// `fixed 4 rounds`
    Fixed(Value),
    /// `exponential 200ms x 2 cap 5s`
    Exponential {
        /// The first wait.
        base: Value,
        /// Growth per try (default 2).
        multiplier: Option<Value>,
        /// Upper bound on a wait.
        cap: Option<Value>,
    },
    /// `full_jitter 200ms x 2 cap 5s rng r`: uniform in `[0, exponential]`
    FullJitter {
        /// The first bound.
        base: Value,
        /// Growth (default 2).
        multiplier: Option<Value>,
        /// Cap.
        cap: Option<Value>,
        /// Generator.
        rng: Option<Ident>,
    },
    /// `equal_jitter ...`: half the exponential plus a uniform half
    EqualJitter {
        /// The first bound.
        base: Value,
        /// Growth (default 2).
        multiplier: Option<Value>,
        /// Cap.
        cap: Option<Value>,
        /// Generator.
        rng: Option<Ident>,
    },
    /// `decorrelated 200ms cap 5s rng r`
    Decorrelated {
        /// The smallest wait.
        base: Value,
        /// Cap.
        cap: Option<Value>,
        /// Generator.
        rng: Option<Ident>,
    },
    /// `grpc { initial 100ms  multiplier 1.6  max 10s }`: a library's own
    /// backoff, its settings by name.
    Library(KindBlockAst),
}

/// `fault name { on db during a..b capacity 1/round }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultAst {
    /// The fault's name.
    pub name: Ident,
    /// Its properties.
    pub props: Vec<FaultProp>,
    /// The whole declaration.
    pub span: Span,
}

/// `link api -> db { latency 2ms  answer latency exponential mean 1ms }`:
/// the steady latency of a link, each leg's setting kept as written
/// (`latency ...`, `answer latency ...`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkAst {
    /// The caller.
    pub from: Ident,
    /// The callee.
    pub to: Ident,
    /// Its settings.
    pub props: Vec<Timed>,
    /// The whole declaration.
    pub span: Span,
}

impl LinkAst {
    /// Where `api -> db` is written.
    pub fn ends_span(&self) -> Span {
        Span::new(self.from.span.start, self.to.span.end)
    }
}

/// A node a fault strikes: `db`, or one replica of a replicated service,
/// `api[1]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Target {
    /// The node.
    pub node: Ident,
    /// The replica's index as written, and where (from `[` to `]`).
    pub replica: Option<(u64, Span)>,
    /// `api -> db`: the target is the link from `node` to this callee.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<Ident>,
}

impl Target {
    /// The target as written: `db` or `api[1]`.
    pub fn text(&self) -> String {
        if let Some(to) = &self.to {
            return format!("{} -> {}", self.node.name, to.name);
        }
        match self.replica {
            None => self.node.name.clone(),
            Some((r, _)) => format!("{}[{r}]", self.node.name),
        }
    }

    /// Where it is, the index or the link's callee included.
    pub fn span(&self) -> Span {
        if let Some(to) = &self.to {
            return Span::new(self.node.span.start, to.span.end);
        }
        match self.replica {
            None => self.node.span,
            Some((_, s)) => Span::new(self.node.span.start, s.end),
        }
    }
}

/// A property of a fault.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum FaultProp {
    /// `on db`, `on a, b` or `on api[1]`
    On(Vec<Target>),
    /// `during a..b`
    During(Range),
    /// `capacity 1/round`
    Capacity(Value),
    /// `fail 503`
    Fail(ResponseAst),
    /// `every 40s phase 0s step 10s per field`
    Every(EveryAst),
    /// `latency x N`, `latency + D`, `errors P% as CODE`, `workers N`
    Timed(Timed),
}

/// `variant name "label" { ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantAst {
    /// The name used in paths (`storm.during.db.call_rate`).
    pub name: Ident,
    /// The label printed in reports (defaults to the name).
    pub label: Option<String>,
    /// What it changes.
    pub items: Vec<VariantItem>,
}

/// One change a variant makes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum VariantItem {
    /// `set name = value`
    Set(Ident, Value),
    /// `without fault`
    Without(Vec<Ident>),
    /// `source name { rate ...  deadline ...  clients ...  think ...
    /// priority ... }`: replaces the source's rates (when it gives any) and
    /// each of its `deadline`, `clients`, `think` and `priority` that it
    /// gives; only
    /// [`SourceProp::Rate`] and [`SourceProp::Timed`] occur
    Source(Ident, Vec<SourceProp>),
    /// `service a, b { budget envoy { ... }  breaker none }`: replaces or
    /// removes each named service's retry, breaker, budget or capacity
    Service(Vec<Ident>, Vec<ServiceChange>),
    /// `sender name { ... }` or `provider name { ... }`: replaces the
    /// settings of the same keys
    Send(SendBlockAst),
}

/// `sweep name "label" { param in [v, ...] variant base }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepAst {
    /// The sweep's name.
    pub name: Ident,
    /// Its label.
    pub label: Option<String>,
    /// The axes; points are their cross product, first axis outermost.
    pub axes: Vec<(Ident, Vec<Value>)>,
    /// The variant every point starts from.
    pub base: Option<Ident>,
}

/// An item of the `report` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ReportItem {
    /// `replications N`: every run repeated with N derived seeds.
    Replications(Value),
    /// `measure name = expr`
    Measure(Ident, Expr),
    /// `table "title" { ... }`
    Table(TableAst),
    /// `line [variant] "template"`: the raw template, its span, and the
    /// variant its values come from when they name none.
    Line(Option<Ident>, String, Span),
    /// `diagnose node in window vs baseline [against variant]`
    Diagnose(DiagnoseAst),
    /// `waits "title" { ... }`
    Waits(WaitsAst),
    /// `herd "title" { ... }`
    Herd(HerdAst),
    /// `operations "title" of source`
    Operations(String, Ident),
    /// `trace "title" of node`
    Trace(String, Ident),
    /// `isolation "title" of node { ... }`
    Isolation(IsolationAst),
    /// `chart ["title"] metric [at node]`
    Chart(ChartAst),
}

/// `chart ["title"] METRIC [at NODE]`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartAst {
    /// Title, if given.
    pub title: Option<String>,
    /// The metric drawn.
    pub metric: Ident,
    /// The node it is measured at.
    pub at: Option<Ident>,
    /// Where.
    pub span: Span,
}

/// `isolation "title" of NODE { variants [..] window W }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IsolationAst {
    /// Title.
    pub title: String,
    /// The node with the response.
    pub node: Ident,
    /// One row each.
    pub variants: Vec<Ident>,
    /// The window measured.
    pub window: Option<Ident>,
    /// Where.
    pub span: Span,
}

/// `waits "title" { policies [..] attempts n rng r }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitsAst {
    /// Title.
    pub title: String,
    /// Policies, one column each.
    pub policies: Vec<Ident>,
    /// Rows.
    pub attempts: Option<Value>,
    /// Generator.
    pub rng: Option<Ident>,
    /// Where.
    pub span: Span,
}

/// `herd "title" { policy p clients n attempt k bucket b rng r }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HerdAst {
    /// Title.
    pub title: String,
    /// The policy every client follows.
    pub policy: Option<Ident>,
    /// How many clients fail at once.
    pub clients: Option<Value>,
    /// Which try's wait (1 = the wait after the first failed try).
    pub attempt: Option<Value>,
    /// Histogram bucket width.
    pub bucket: Option<Value>,
    /// Generator.
    pub rng: Option<Ident>,
    /// Where.
    pub span: Span,
}

/// `table "title" { rows ... at ... column ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableAst {
    /// The title.
    pub title: String,
    /// The whole declaration.
    pub span: Span,
    /// `rows a [x b]`
    pub rows: Vec<AxisAst>,
    /// `at node`
    pub at: Option<Ident>,
    /// `label "..."[, "..."]`: headings of the label columns.
    pub labels: Vec<String>,
    /// The columns in order.
    pub columns: Vec<ColumnAst>,
}

/// One axis of a table's rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum AxisAst {
    /// `variants [a, b]` (all when no list)
    Variants(Option<Vec<Ident>>, Span),
    /// `windows [a, b]` (all when no list)
    Windows(Option<Vec<Ident>>, Span),
    /// `sweep name`
    Sweep(Ident),
}

/// `column "title" = expr :.2`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnAst {
    /// The heading.
    pub title: String,
    /// The value of each row.
    pub expr: Expr,
    /// Digits after the decimal point.
    pub digits: Option<usize>,
}

/// `diagnose db in during vs before against no_retries`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagnoseAst {
    /// The node whose calls rose.
    pub node: Ident,
    /// The window under suspicion.
    pub window: Ident,
    /// The normal window.
    pub baseline: Ident,
    /// A variant to compare served calls with.
    pub against: Option<Ident>,
    /// The whole item.
    pub span: Span,
}

/// `expect lhs op rhs`, `expect lhs in lo..hi` or `expect lhs == x within tol`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectAst {
    /// The value checked.
    pub lhs: Expr,
    /// What it must satisfy.
    pub check: ExpectCheck,
    /// The whole line.
    pub span: Span,
}

/// What an `expect` line asks of its value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ExpectCheck {
    /// `op bound`, e.g. `> 6`
    Compare(CmpOp, Bound),
    /// `in lo..hi`, both inclusive
    Range(Bound, Bound),
    /// `== expected within tolerance`
    Near(Bound, Tolerance),
}

/// A bound of an `expect` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Bound {
    /// A report expression (a plain number is one).
    Expr(Expr),
    /// A rate or a duration, converted to the file's clock: `25/round`, `2s`.
    Quantity(Value),
}

/// How far from the expected value an `expect ... within` line may be.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Tolerance {
    /// `5%`: a share of the expected value's magnitude.
    Percent(f64, Span),
    /// An absolute distance.
    Absolute(Bound),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl CmpOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    /// Applies the comparison.
    pub fn eval(self, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }
}

/// `[1]` in a path: a replica's index after one of its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PathIndex {
    /// The part it follows (0: the first).
    pub after: usize,
    /// The index as written.
    pub index: u64,
    /// Where it is, from `[` to `]`.
    pub span: Span,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^`
    Pow,
}

impl BinOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "^",
        }
    }
}

/// An expression in a report or `expect` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
}

/// The forms of an expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ExprKind {
    /// `1.1`
    Number(f64),
    /// `$attempts`
    Param(String),
    /// `storm.during.db.call_rate`; `storm.during.api[1].calls` names one
    /// replica of `api`.
    Path(Vec<Ident>, Option<PathIndex>),
    /// `recovery(db, brownout, 1.1 * before.db.call_rate)`
    Call(Ident, Vec<Expr>),
    /// `-x`
    Neg(Box<Expr>),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

// ------------------------------------------------------------- visiting --

impl Range {
    fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        f(&self.start);
        for t in &self.start_terms {
            f(&t.value);
        }
        f(&self.end);
        for t in &self.end_terms {
            f(&t.value);
        }
    }
}

impl RateAst {
    fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        f(&self.value);
        if let Some(v) = &self.to {
            f(v);
        }
        if let Some(d) = &self.during {
            d.each_value(f);
        }
    }
}

impl BackoffAst {
    /// Calls `f` on every value of the policy.
    pub fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        match self {
            BackoffAst::Fixed(v) => f(v),
            BackoffAst::Exponential {
                base,
                multiplier,
                cap,
            }
            | BackoffAst::FullJitter {
                base,
                multiplier,
                cap,
                ..
            }
            | BackoffAst::EqualJitter {
                base,
                multiplier,
                cap,
                ..
            } => {
                f(base);
                multiplier.iter().chain(cap.iter()).for_each(f);
            }
            BackoffAst::Decorrelated { base, cap, .. } => {
                f(base);
                cap.iter().for_each(f);
            }
            BackoffAst::Library(b) => b.fields.iter().for_each(|(_, v)| f(v)),
        }
    }
}

impl RetryAst {
    /// Calls `f` on every value of the policy.
    pub fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        self.attempts
            .iter()
            .chain(self.deadline.iter())
            .chain(self.unknown_attempts.iter())
            .chain(self.gate.iter())
            .chain(self.gate_window.iter())
            .for_each(&mut *f);
        if let Some(p) = &self.pushback {
            p.fields.iter().for_each(|(_, v)| f(v));
        }
        if let Some(BackoffRef::Inline(b)) = &self.backoff {
            b.each_value(f);
        }
    }
}

impl ResponseAst {
    fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        if let ResponseAst::Status {
            retry_after: Some(RetryAfterAst::Delay(v)),
            ..
        } = self
        {
            f(v);
        }
    }
}

impl Timed {
    /// Calls `f` on every value of the setting, in order.
    pub fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        for p in &self.parts {
            if let TimedPart::Value(v) | TimedPart::Percent(v) = p {
                f(v);
            }
        }
    }

    /// The value after the word `word` (`burst` in `limit 100/s burst
    /// 20`), or the first value when `word` is empty.
    pub fn value_after(&self, word: &str) -> Option<&Value> {
        let mut armed = word.is_empty();
        for p in &self.parts {
            match p {
                TimedPart::Word(w) => armed = w.name == word,
                TimedPart::Value(v) | TimedPart::Percent(v) if armed => return Some(v),
                _ => {}
            }
        }
        None
    }

    /// True when the setting has the word `word`.
    pub fn has(&self, word: &str) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, TimedPart::Word(w) if w.name == word))
    }

    /// The first word (a distribution's name), if any.
    pub fn first_word(&self) -> Option<&Ident> {
        match self.parts.first() {
            Some(TimedPart::Word(w)) => Some(w),
            _ => None,
        }
    }

    /// The status code, if any.
    pub fn code(&self) -> Option<u32> {
        self.parts.iter().find_map(|p| match p {
            TimedPart::Code(c, _) => Some(*c),
            _ => None,
        })
    }
}

impl Item {
    /// Calls `f` on every value the item holds (not the report's
    /// expressions), in source order.
    pub fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        match self {
            Item::Clock(_)
            | Item::Seed(..)
            | Item::Draws(_)
            | Item::WorkBudget(..)
            | Item::Chain(..)
            | Item::Epoch(..)
            | Item::Rng(_)
            | Item::Expect(_) => {}
            Item::Provider(b) | Item::Sender(b) => b.each_value(f),
            Item::Run(v) | Item::Param(_, v) | Item::Warmup(v) => f(v),
            Item::RunRange(r) | Item::Window(_, r) => r.each_value(f),
            Item::Series(t) => t.each_value(f),
            Item::Link(l) => l.props.iter().for_each(|t| t.each_value(f)),
            Item::Backoff(_, b) => b.each_value(f),
            Item::Policy(_, r) => r.each_value(f),
            Item::Source(s) => {
                for p in &s.props {
                    match p {
                        SourceProp::Rate(r) => r.each_value(f),
                        SourceProp::At(list) => {
                            for a in list {
                                f(&a.time);
                                a.count.iter().for_each(&mut *f);
                            }
                        }
                        SourceProp::Sequential(ops) => {
                            for op in ops {
                                op.attempts.iter().for_each(&mut *f);
                            }
                        }
                        SourceProp::Timed(t) => t.each_value(f),
                        SourceProp::Enters(_)
                        | SourceProp::Arrivals(_)
                        | SourceProp::Request(_) => {}
                    }
                }
            }
            Item::Service(s) => s.props.iter().for_each(|p| p.each_value(f)),
            Item::Endpoint(e) => {
                for r in &e.routes {
                    for s in &r.script {
                        s.response.each_value(f);
                        s.times.iter().chain(s.until.iter()).for_each(&mut *f);
                    }
                }
            }
            Item::Fault(x) => {
                for p in &x.props {
                    match p {
                        FaultProp::During(r) => r.each_value(f),
                        FaultProp::Capacity(v) => f(v),
                        FaultProp::Timed(t) => t.each_value(f),
                        FaultProp::Fail(r) => r.each_value(f),
                        FaultProp::Every(x) => {
                            f(&x.every);
                            x.phase.iter().chain(x.step.iter()).for_each(&mut *f);
                        }
                        FaultProp::On(_) => {}
                    }
                }
            }
            Item::Variant(v) => {
                for vi in &v.items {
                    match vi {
                        VariantItem::Set(_, val) => f(val),
                        VariantItem::Source(_, props) => props.iter().for_each(|p| match p {
                            SourceProp::Rate(r) => r.each_value(f),
                            SourceProp::Timed(t) => t.each_value(f),
                            _ => {}
                        }),
                        VariantItem::Without(_) => {}
                        VariantItem::Send(b) => b.each_value(f),
                        VariantItem::Service(_, changes) => {
                            for c in changes {
                                if let ServiceChange::Set(p) = c {
                                    p.each_value(f);
                                }
                            }
                        }
                    }
                }
            }
            Item::Sweep(s) => {
                for (_, vals) in &s.axes {
                    vals.iter().for_each(&mut *f);
                }
            }
            Item::Report(items) => {
                for i in items {
                    match i {
                        ReportItem::Waits(w) => w.attempts.iter().for_each(&mut *f),
                        ReportItem::Replications(v) => f(v),
                        ReportItem::Herd(h) => h
                            .clients
                            .iter()
                            .chain(h.attempt.iter())
                            .chain(h.bucket.iter())
                            .for_each(&mut *f),
                        _ => {}
                    }
                }
            }
        }
    }
}

/// A `provider` or `sender` block (or a variant's change to one): a name,
/// for a sender the provider it sends to, and its settings as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SendBlockAst {
    /// `sender` or `provider`.
    pub kind: SendKind,
    /// The block's name.
    pub name: Ident,
    /// `to provider` (a sender's declaration only).
    pub to: Option<Ident>,
    /// Its settings in order.
    pub settings: Vec<SendSetting>,
    /// The whole block.
    pub span: Span,
}

/// Which block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SendKind {
    /// `provider`
    Provider,
    /// `sender`
    Sender,
}

impl SendKind {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            SendKind::Provider => "provider",
            SendKind::Sender => "sender",
        }
    }
}

/// One setting of a sending block: a key and its parts
/// (`jitter 500ms cap 60s`, `throttle 0x58 weight 0.3`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SendSetting {
    /// The key.
    pub key: Ident,
    /// What follows it.
    pub parts: Vec<SendPart>,
    /// The whole setting.
    pub span: Span,
}

/// One part of a [`SendSetting`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SendPart {
    /// A word: `naive`, `weight`, `cap`, ...
    Word(Ident),
    /// A value: `12.5/s`, `80ms`, `8`, `$rate`.
    Value(Value),
    /// `5%`: the number before the sign.
    Percent(f64, Span),
    /// A protocol code standing alone: `0x58`.
    Hex(u32, Span),
    /// `[200, 500..599, 0x58]`.
    Codes(Vec<CodeItem>, Span),
    /// `{ ... }`: nested settings (`aimd { threshold 5% }`).
    Block(Vec<SendSetting>, Span),
}

/// One entry of a code list: a code, or an HTTP range `500..599`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CodeItem {
    /// The code, or a range's first.
    pub from: CodeLit,
    /// A range's last.
    pub to: Option<CodeLit>,
    /// Where.
    pub span: Span,
}

/// A code as written: `429` or `0x58`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CodeLit {
    /// Its value.
    pub code: u32,
    /// Written in hex (a protocol code).
    pub hex: bool,
    /// Where.
    pub span: Span,
}

impl SendBlockAst {
    /// Calls `f` on every value of its settings, nested ones included.
    pub fn each_value(&self, f: &mut dyn FnMut(&Value)) {
        fn walk(settings: &[SendSetting], f: &mut dyn FnMut(&Value)) {
            for s in settings {
                for p in &s.parts {
                    match p {
                        SendPart::Value(v) => f(v),
                        SendPart::Block(inner, _) => walk(inner, f),
                        _ => {}
                    }
                }
            }
        }
        walk(&self.settings, f);
    }
}
