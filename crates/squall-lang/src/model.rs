//! The typed model: what the engine runs and what the report evaluates.
//!
//! A [`Model`] is one fully resolved run: every param substituted, every
//! duration and rate converted to ticks of the file's clock, every name bound
//! to an index. It is plain data; a test can build one by hand.
//!
//! The report side ([`ReportSpec`]) is resolved once per scenario: its
//! expressions refer to variants, windows and nodes by index.

use serde::Serialize;

/// The unit of time of a scenario file. One tick is one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub enum Clock {
    /// An abstract step (`tur`), with no wall-clock length.
    #[default]
    Round,
    /// One millisecond.
    Ms,
    /// One second.
    S,
}

impl Clock {
    /// Milliseconds in one tick; `None` for rounds.
    pub fn tick_millis(self) -> Option<u64> {
        match self {
            Clock::Round => None,
            Clock::Ms => Some(1),
            Clock::S => Some(1000),
        }
    }

    /// The singular name of one tick, as printed in reports.
    pub fn unit_name(self) -> &'static str {
        match self {
            Clock::Round => "round",
            Clock::Ms => "ms",
            Clock::S => "s",
        }
    }
}

/// One fully resolved run of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Model {
    /// The scenario's name.
    pub name: String,
    /// The unit of time.
    pub clock: Clock,
    /// First tick of the run (1 unless the file says `run a..b`).
    pub start: u64,
    /// Last tick of the run; the run covers `start..=ticks`.
    pub ticks: u64,
    /// Warm-up ticks at the start of the run (simulated, meant to be left
    /// out of measurements; `after warmup` starts after them).
    pub warmup: u64,
    /// The root seed of this run's random stream.
    pub seed: u64,
    /// Nodes in declaration order; indices are node ids.
    pub nodes: Vec<NodeSpec>,
    /// Sources of new requests.
    pub sources: Vec<SourceSpec>,
    /// Faults active in this run.
    pub faults: Vec<FaultSpec>,
    /// Named windows over which the engine counts unique request ids.
    pub windows: Vec<WindowSpec>,
    /// Named random generators.
    pub rngs: Vec<RngSpec>,
    /// Named backoff policies (for report tables; services hold their own copy).
    pub backoffs: Vec<(String, Backoff)>,
    /// Width of a series bin in a run that takes time \[ticks\]; none:
    /// a default that keeps a run to at most 2000 bins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series_every: Option<u64>,
}

/// A named random generator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RngSpec {
    /// Its name.
    pub name: String,
    /// The algorithm.
    pub algorithm: RngAlgorithm,
    /// Its explicit seed; `None`: derived from the run's seed and the name.
    pub seed: Option<u64>,
}

/// Random number algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RngAlgorithm {
    /// mulberry32: 32-bit state, the seed documents' generator.
    Mulberry32,
    /// SplitMix64: squall's default.
    SplitMix64,
}

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Method {
    /// GET
    Get,
    /// HEAD
    Head,
    /// OPTIONS
    Options,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
}

impl Method {
    /// Parses an upper-case method name.
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "OPTIONS" => Method::Options,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            _ => return None,
        })
    }

    /// Safe methods change nothing on the server, so repeating them is harmless.
    pub fn is_safe(self) -> bool {
        matches!(self, Method::Get | Method::Head | Method::Options)
    }

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Options => "OPTIONS",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// What a request is, for routing and for deciding whether to retry it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestSpec {
    /// Its method.
    pub method: Method,
    /// Its path.
    pub path: String,
    /// Whether it carries an idempotency key.
    pub key: bool,
}

impl Default for RequestSpec {
    fn default() -> Self {
        RequestSpec {
            method: Method::Get,
            path: "/".into(),
            key: false,
        }
    }
}

/// One operation of a sequential client.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpSpec {
    /// Label in reports.
    pub label: String,
    /// The request.
    pub request: RequestSpec,
    /// Retry policy for this operation at the entry node, replacing the
    /// node's own.
    pub retry: Option<RetrySpec>,
}

/// When a source sends requests.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub enum Schedule {
    /// By its rate (`rate`, `periods`, `arrivals`).
    #[default]
    Rate,
    /// One request at each of these ticks.
    At(Vec<u64>),
    /// Operations one after another, each starting when the previous ends.
    Sequential(Vec<OpSpec>),
}

/// A circuit breaker on a node's calls to its downstream node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakerSpec {
    /// Consecutive failures that open it.
    pub threshold: u32,
    /// Ticks it stays open before letting a probe through.
    pub cooldown: u64,
    /// Calls let through at once while half-open.
    pub probes: u32,
    /// One breaker per request path instead of one for all calls.
    pub per_path: bool,
}

/// A response a node can give.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ResponseSpec {
    /// A status code; 2xx is success.
    Status {
        /// The code.
        code: u32,
        /// Retry-After.
        retry_after: Option<RetryAfter>,
    },
    /// The connection failed before an answer.
    NetworkError,
    /// No answer in time.
    Timeout,
    /// The answer's body could not be read.
    BodyError,
}

/// A server's Retry-After.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RetryAfter {
    /// Wait at least this many ticks.
    Delay(u64),
    /// Wait until this tick.
    At(u64),
}

/// A step of a response script.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepSpec {
    /// What it answers.
    pub response: ResponseSpec,
    /// For so many calls.
    pub times: Option<u64>,
    /// Until this tick (inclusive of earlier ticks only).
    pub until: Option<u64>,
}

/// A route of a scripted endpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteSpec {
    /// Name.
    pub name: String,
    /// Method matched; `None` for any.
    pub method: Option<Method>,
    /// Path matched; `None` for any (the default route).
    pub path: Option<String>,
    /// Its script; the last step holds for ever.
    pub script: Vec<StepSpec>,
}

/// A node of the call graph: a service that calls another node, or a
/// dependency at the bottom of a chain.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct NodeSpec {
    /// The node's name.
    pub name: String,
    /// The node it calls, if any.
    pub downstream: Option<usize>,
    /// Calls accepted per tick; `None` for unlimited.
    pub capacity: Option<u64>,
    /// How it retries a failed call to its downstream node.
    pub retry: Option<RetrySpec>,
    /// A circuit breaker on its calls to its downstream node.
    pub breaker: Option<BreakerSpec>,
    /// Scripted answers, for a node at the bottom of a chain.
    pub routes: Vec<RouteSpec>,
    /// A response assembled from fields fetched from other nodes.
    pub composite: Option<CompositeSpec>,
    /// Its work as a server: latency, workers, queue, rate limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<crate::timing::ServerSpec>,
    /// Its side of the calls it makes: per-try timeout, cancellation.
    #[serde(skip_serializing_if = "crate::timing::CallerSpec::is_empty")]
    pub caller: crate::timing::CallerSpec,
}

/// A response made of fields from several nodes, and what to do when some
/// are missing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompositeSpec {
    /// Fields in declaration order.
    pub fields: Vec<FieldSpec>,
    /// Bytes of the freshness marker every present field carries.
    pub marker: u64,
    /// The degradation policy.
    pub policy: Degradation,
    /// The last-known-value ledger.
    pub ledger: Option<LedgerSpec>,
}

/// One field of a composite response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldSpec {
    /// Name.
    pub name: String,
    /// The node it is fetched from.
    pub source: usize,
    /// A core field: without it the response is not worth sending.
    pub core: bool,
    /// Its size in bytes.
    pub bytes: u64,
}

/// What a composite response does when fields are not fresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Degradation {
    /// Drop the request unless every field is fresh.
    AllOrNothing,
    /// Drop the request only when a core field is missing; leave missing
    /// optional fields out.
    SkipOptional,
    /// As `SkipOptional`, but a field that is not fresh is served from the
    /// ledger when its last fresh value is recent enough.
    StaleFallback,
}

impl Degradation {
    /// The policy's name in the language.
    pub fn name(self) -> &'static str {
        match self {
            Degradation::AllOrNothing => "all_or_nothing",
            Degradation::SkipOptional => "skip_optional",
            Degradation::StaleFallback => "stale_fallback",
        }
    }

    /// Parses a policy name.
    pub fn parse(s: &str) -> Option<Degradation> {
        Some(match s {
            "all_or_nothing" => Degradation::AllOrNothing,
            "skip_optional" => Degradation::SkipOptional,
            "stale_fallback" => Degradation::StaleFallback,
            _ => return None,
        })
    }
}

/// The last-known-value ledger (yedek defteri).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerSpec {
    /// Entries it holds (for cost estimates).
    pub entries: u64,
    /// The oldest value it serves \[ticks\].
    pub stale_for: u64,
}

/// A retry policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrySpec {
    /// Tries, the first one included (at least 1).
    pub attempts: u32,
    /// The wait before each retry.
    pub backoff: Backoff,
    /// No retry starts later than this many ticks after the first try.
    pub deadline: Option<u64>,
    /// Whether a server's Retry-After is a lower bound on the wait.
    pub honor_retry_after: bool,
    /// Tries for an outcome of unknown class.
    pub unknown_attempts: u32,
}

impl RetrySpec {
    /// A policy with defaults around `attempts` and `backoff`: Retry-After
    /// honoured, no deadline, 2 tries for unknown outcomes.
    pub fn new(attempts: u32, backoff: Backoff) -> Self {
        RetrySpec {
            attempts,
            backoff,
            deadline: None,
            honor_retry_after: true,
            unknown_attempts: 2,
        }
    }
}

/// How long a service waits before its next try.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Backoff {
    /// The same wait before every retry \[ticks\].
    Fixed {
        /// The wait \[ticks\].
        wait: u64,
    },
    /// `base * multiplier^(n-1)` before retry `n`, at most `cap` \[ticks\].
    Exponential {
        /// The first wait \[ticks\].
        base: u64,
        /// Growth per retry.
        multiplier: f64,
        /// The largest wait \[ticks\].
        cap: Option<u64>,
    },
    /// `round(r * exponential(n))`: anywhere from 0 to the exponential wait.
    FullJitter {
        /// The first bound \[ticks\].
        base: u64,
        /// Growth per retry.
        multiplier: f64,
        /// The largest bound \[ticks\].
        cap: Option<u64>,
        /// Generator, by index in the model (`None`: the run's default).
        rng: Option<usize>,
    },
    /// `round(e/2 + r * e/2)` with `e = exponential(n)`: at least half the
    /// exponential wait.
    EqualJitter {
        /// The first bound \[ticks\].
        base: u64,
        /// Growth per retry.
        multiplier: f64,
        /// The largest bound \[ticks\].
        cap: Option<u64>,
        /// Generator.
        rng: Option<usize>,
    },
    /// `min(cap, round(base + r * (3 * previous - base)))`, the previous
    /// wait starting at `base`.
    Decorrelated {
        /// The smallest wait \[ticks\].
        base: u64,
        /// The largest wait \[ticks\].
        cap: Option<u64>,
        /// Generator.
        rng: Option<usize>,
    },
}

impl Backoff {
    /// True when the policy draws a random number for each wait.
    pub fn draws(&self) -> bool {
        matches!(
            self,
            Backoff::FullJitter { .. } | Backoff::EqualJitter { .. } | Backoff::Decorrelated { .. }
        )
    }

    /// The generator the policy draws from (`None`: the run's default).
    pub fn rng(&self) -> Option<usize> {
        match *self {
            Backoff::FullJitter { rng, .. }
            | Backoff::EqualJitter { rng, .. }
            | Backoff::Decorrelated { rng, .. } => rng,
            Backoff::Fixed { .. } | Backoff::Exponential { .. } => None,
        }
    }
}

/// How a source spreads its arrivals over ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub enum Arrivals {
    /// A deterministic accumulator: the rate is added every tick and a
    /// request enters for every whole unit; fractions carry over.
    #[default]
    Uniform,
    /// A Poisson number of arrivals per tick with the rate as its mean,
    /// drawn from the run's random stream.
    Poisson,
}

/// A source of new requests.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SourceSpec {
    /// The source's name.
    pub name: String,
    /// The node its requests enter.
    pub entry: usize,
    /// How arrivals are spread.
    pub arrivals: Arrivals,
    /// Requests per tick outside any period.
    pub rate: f64,
    /// Periods with another rate; the last matching one wins.
    pub periods: Vec<RatePeriod>,
    /// When it sends (by rate unless `at` or `sequential`).
    pub schedule: Schedule,
    /// What its requests are (for `Schedule::Sequential`, each op says).
    pub request: RequestSpec,
    /// A deadline set on each request at its start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<crate::timing::DeadlineSpec>,
}

impl SourceSpec {
    /// The rate in force at tick `t` \[requests/tick\].
    pub fn rate_at(&self, t: u64) -> f64 {
        self.periods
            .iter()
            .rev()
            .find(|p| p.from <= t && t <= p.to)
            .map_or(self.rate, |p| p.rate)
    }
}

/// A rate that holds from tick `from` to tick `to`, inclusive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatePeriod {
    /// First tick.
    pub from: u64,
    /// Last tick.
    pub to: u64,
    /// Requests per tick.
    pub rate: f64,
}

/// A fault: a change to a node during an inclusive range of ticks.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct FaultSpec {
    /// The fault's name.
    pub name: String,
    /// The node it affects.
    pub node: usize,
    /// First tick.
    pub from: u64,
    /// Last tick.
    pub to: u64,
    /// The node's capacity while the fault lasts \[calls/tick\].
    pub capacity: Option<u64>,
    /// The answer the node gives to every call while the fault lasts.
    pub fail: Option<ResponseSpec>,
    /// Only at some ticks: `(t + phase + step * field) % every == 0`.
    pub periodic: Option<Periodic>,
    /// What it does to calls that take time (latency, error share, workers).
    #[serde(skip_serializing_if = "crate::timing::TimedFault::is_empty")]
    pub timed: crate::timing::TimedFault,
}

/// A fault that strikes periodically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Periodic {
    /// The period \[ticks\].
    pub every: u64,
    /// The phase \[ticks\].
    pub phase: u64,
    /// The phase step per field of a composite response \[ticks\].
    pub step: u64,
}

impl Periodic {
    /// True when it strikes at tick `t` for field `field` (0 for calls not
    /// made for a field).
    pub fn strikes(&self, t: u64, field: usize) -> bool {
        let shifted = t as u128 + self.phase as u128 + self.step as u128 * field as u128;
        self.every > 0 && shifted.is_multiple_of(self.every as u128)
    }
}

/// A named inclusive range of ticks.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct WindowSpec {
    /// The window's name.
    pub name: String,
    /// First tick.
    pub from: u64,
    /// Last tick.
    pub to: u64,
}

impl WindowSpec {
    /// Number of ticks in the window.
    pub fn len(&self) -> u64 {
        self.to + 1 - self.from
    }

    /// True for an empty window (never: validation requires `from <= to`).
    pub fn is_empty(&self) -> bool {
        self.to < self.from
    }
}

// ------------------------------------------------------------------ report --

/// The report a scenario asks for, with every name bound.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ReportSpec {
    /// Named per-run expressions.
    pub measures: Vec<MeasureSpec>,
    /// Tables, lines and diagnoses in declaration order.
    pub items: Vec<ReportItemSpec>,
    /// `expect` lines.
    pub expects: Vec<ExpectSpec>,
}

/// `measure name = expr`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureSpec {
    /// Its name.
    pub name: String,
    /// Its value in a run.
    pub expr: RExpr,
}

/// One item of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ReportItemSpec {
    /// A table.
    Table(TableSpec),
    /// A sentence with embedded values, and the variant they come from when
    /// they name none.
    Line(Vec<LinePart>, Option<usize>),
    /// A demand-or-retry-storm verdict per variant.
    Diagnose(DiagnoseSpec),
    /// Waits of several backoff policies per retry.
    Waits(WaitsSpec),
    /// When a herd of clients wakes up.
    Herd(HerdSpec),
    /// Each operation of a sequential source.
    Operations {
        /// Title.
        title: String,
        /// The source, by index.
        source: usize,
    },
    /// A circuit breaker's decisions.
    Trace {
        /// Title.
        title: String,
        /// The node, by index.
        node: usize,
    },
    /// Which source down leaves what of a composite response.
    Isolation(IsolationSpec),
}

/// `isolation "title" of NODE { variants [..] window W }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IsolationSpec {
    /// Title.
    pub title: String,
    /// The node with the composite response.
    pub node: usize,
    /// One row per variant.
    pub variants: Vec<usize>,
    /// The window measured.
    pub window: usize,
}

/// `waits "title" { policies [...] attempts n rng r }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitsSpec {
    /// Title.
    pub title: String,
    /// Named backoff policies, by index in `Model::backoffs`.
    pub policies: Vec<usize>,
    /// Rows: retries 1..=attempts.
    pub attempts: u32,
    /// The generator every jittered column draws from, fresh for the table.
    pub rng: Option<usize>,
}

/// `herd "title" { policy p clients n attempt k bucket b rng r }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HerdSpec {
    /// Title.
    pub title: String,
    /// Named backoff policy, by index in `Model::backoffs`.
    pub policy: usize,
    /// Clients failing at the same instant.
    pub clients: u32,
    /// Which retry's wait (1 = after the first failed try).
    pub attempt: u32,
    /// Bucket width \[ticks\].
    pub bucket: u64,
    /// The generator, fresh for the herd.
    pub rng: Option<usize>,
}

/// A table: rows from one or two axes, one column per expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableSpec {
    /// Title.
    pub title: String,
    /// Headings of the label columns: one for all axes, or one per axis.
    pub labels: Vec<String>,
    /// Row axes; rows are their cross product, first axis outermost.
    pub rows: Vec<AxisSpec>,
    /// The node bare metric names refer to.
    pub at: Option<usize>,
    /// Columns in order.
    pub columns: Vec<ColumnSpec>,
}

/// An axis of rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum AxisSpec {
    /// Variants by index.
    Variants(Vec<usize>),
    /// Windows by index.
    Windows(Vec<usize>),
    /// The points of a sweep.
    Sweep(usize),
}

/// A column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnSpec {
    /// Heading.
    pub title: String,
    /// Value per row.
    pub expr: RExpr,
    /// Digits after the decimal point.
    pub digits: usize,
}

/// A piece of a `line` template.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum LinePart {
    /// Literal text.
    Text(String),
    /// A value, printed with so many digits after the point.
    Value(RExpr, usize),
}

/// `diagnose node in window vs baseline [against variant]`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagnoseSpec {
    /// The node whose calls are examined.
    pub node: usize,
    /// The window under suspicion.
    pub window: usize,
    /// The normal window.
    pub baseline: usize,
    /// A variant whose served calls are compared.
    pub against: Option<usize>,
}

/// An `expect` line, with the text for messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectSpec {
    /// The value checked.
    pub lhs: RExpr,
    /// What it must satisfy; bounds with units are already in ticks.
    pub check: CheckSpec,
    /// The line as written.
    pub text: String,
    /// 1-based line in the file.
    pub line: usize,
}

/// What an `expect` line asks of its value, resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum CheckSpec {
    /// `op bound`
    Compare(crate::ast::CmpOp, RExpr),
    /// `in lo..hi`, both inclusive
    Range(RExpr, RExpr),
    /// `== expected within tolerance`
    Near(RExpr, ToleranceSpec),
}

/// A resolved tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ToleranceSpec {
    /// A share of the expected value's magnitude, in percent.
    Percent(f64),
    /// An absolute distance.
    Absolute(RExpr),
}

/// A resolved expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RExpr {
    /// A constant.
    Number(f64),
    /// A param's value in the row's run.
    Param(String),
    /// A measured value; `None` parts come from the row's context.
    Metric {
        /// Which variant.
        variant: Option<usize>,
        /// Which window.
        window: Option<usize>,
        /// Which node.
        node: Option<usize>,
        /// What.
        metric: Metric,
    },
    /// A measure's value in a variant (`None`: the row's).
    Measure {
        /// Which variant.
        variant: Option<usize>,
        /// Which measure.
        measure: usize,
    },
    /// A built-in function.
    Call(Func, Vec<RExpr>),
    /// `-x`
    Neg(Box<RExpr>),
    /// `a op b`
    Binary(crate::ast::BinOp, Box<RExpr>, Box<RExpr>),
}

/// Built-in functions, with their name arguments bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Func {
    /// `recovery(node, fault, threshold)`: ticks from the fault's last tick to
    /// the first later tick where the node's calls are at or below threshold.
    Recovery {
        /// The node.
        node: usize,
        /// The fault, by index in the scenario.
        fault: usize,
    },
    /// `peak(node)`: the most calls the node saw in one tick.
    Peak {
        /// The node.
        node: usize,
    },
    /// `peak_tick(node)`: the first tick with the most calls.
    PeakTick {
        /// The node.
        node: usize,
    },
    /// `call_bound(node)`: the most calls one request can make at the node
    /// (the product of the tries of every service above it).
    CallBound {
        /// The node.
        node: usize,
    },
    /// `route_calls(node, route)`: calls a scripted route answered.
    RouteCalls {
        /// The node.
        node: usize,
        /// The route, by index among the node's routes.
        route: usize,
    },
    /// `fields(node)`: fields of a composite response.
    Fields {
        /// The node.
        node: usize,
    },
    /// `marker(node)`: bytes of a composite response's freshness marker.
    Marker {
        /// The node.
        node: usize,
    },
    /// `response_bytes(node)`: the sum of a composite response's field sizes.
    ResponseBytes {
        /// The node.
        node: usize,
    },
    /// `ledger_entries(node)`: entries of a composite response's ledger.
    LedgerEntries {
        /// The node.
        node: usize,
    },
    /// `minutes(ticks)`: ticks as minutes of wall-clock time.
    Minutes,
    /// `seconds(ticks)`: ticks as seconds of wall-clock time.
    Seconds,
    /// `min(a, b, ...)`
    Min,
    /// `max(a, b, ...)`
    Max,
    /// `abs(a)`
    Abs,
}

/// Values measured per window (and node, for node metrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Metric {
    /// Calls the node saw.
    Calls,
    /// Calls the node answered with success.
    Served,
    /// Calls the node answered with failure.
    Failed,
    /// Calls refused by the node's own capacity.
    Refused,
    /// Distinct request ids the node saw in the window.
    Unique,
    /// Ticks in which the node refused a call for capacity.
    SaturatedTicks,
    /// Calls per tick.
    CallRate,
    /// Served calls per tick.
    ServedRate,
    /// Unique ids per tick of the window.
    UniqueRate,
    /// Calls per unique id.
    Amplification,
    /// Served calls / calls.
    SuccessRate,
    /// New requests that entered the system.
    Arrivals,
    /// New requests per tick (the rate at the edge).
    EdgeRate,
    /// Requests that failed after their last try.
    Dropped,
    /// Dropped requests per tick.
    DroppedRate,
    /// Requests answered with success.
    Completed,
    /// Ticks in the window.
    Ticks,
    /// Calls the node's circuit breaker did not send.
    Blocked,
    /// Composite responses answered (full or reduced).
    Answered,
    /// Composite responses with every field fresh.
    Full,
    /// Composite responses answered with some field stale or missing.
    Reduced,
    /// Fresh fields in answered composite responses.
    FreshFields,
    /// Fields served from the ledger in answered composite responses.
    StaleFields,
    /// Fields left out of answered composite responses.
    MissingFields,
    /// Bytes of answered composite responses.
    Bytes,
    /// Bytes per answered composite response.
    AvgBytes,
    /// Requests completed without a retry anywhere on their path.
    FirstTryOk,
    /// `first_try_ok` / requests that ended (completed or dropped): the
    /// share that succeeded at the first try.
    FirstTryRate,
    /// `completed` / requests that ended: the share that succeeded at all.
    CompletionRate,
    /// The last tick of the window with an answered composite response,
    /// counted from the window's start (1 = its first tick); 0 if none.
    LastAnswered,
}

impl Metric {
    /// Every metric with its name in the language.
    pub const ALL: [(&'static str, Metric); 30] = [
        ("calls", Metric::Calls),
        ("served", Metric::Served),
        ("failed", Metric::Failed),
        ("refused", Metric::Refused),
        ("unique", Metric::Unique),
        ("saturated_ticks", Metric::SaturatedTicks),
        ("call_rate", Metric::CallRate),
        ("served_rate", Metric::ServedRate),
        ("unique_rate", Metric::UniqueRate),
        ("amplification", Metric::Amplification),
        ("success_rate", Metric::SuccessRate),
        ("arrivals", Metric::Arrivals),
        ("edge_rate", Metric::EdgeRate),
        ("dropped", Metric::Dropped),
        ("dropped_rate", Metric::DroppedRate),
        ("completed", Metric::Completed),
        ("ticks", Metric::Ticks),
        ("blocked", Metric::Blocked),
        ("answered", Metric::Answered),
        ("full", Metric::Full),
        ("reduced", Metric::Reduced),
        ("fresh_fields", Metric::FreshFields),
        ("stale_fields", Metric::StaleFields),
        ("missing_fields", Metric::MissingFields),
        ("bytes", Metric::Bytes),
        ("avg_bytes", Metric::AvgBytes),
        ("last_answered", Metric::LastAnswered),
        ("first_try_ok", Metric::FirstTryOk),
        ("first_try_rate", Metric::FirstTryRate),
        ("completion_rate", Metric::CompletionRate),
    ];

    /// Looks a metric up by name.
    pub fn parse(name: &str) -> Option<Metric> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
    }

    /// The metric's name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }

    /// True for metrics measured at a node; false for whole-system ones.
    pub fn needs_node(self) -> bool {
        !matches!(
            self,
            Metric::Arrivals
                | Metric::EdgeRate
                | Metric::Dropped
                | Metric::DroppedRate
                | Metric::Completed
                | Metric::Ticks
                | Metric::FirstTryOk
                | Metric::FirstTryRate
                | Metric::CompletionRate
        )
    }
}
