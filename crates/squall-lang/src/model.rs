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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Clock {
    /// An abstract step (`tur`), with no wall-clock length.
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Model {
    /// The scenario's name.
    pub name: String,
    /// The unit of time.
    pub clock: Clock,
    /// Length of the run in ticks; ticks are numbered `1..=ticks`.
    pub ticks: u64,
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
}

/// A node of the call graph: a service that calls another node, or a
/// dependency at the bottom of a chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeSpec {
    /// The node's name.
    pub name: String,
    /// The node it calls, if any.
    pub downstream: Option<usize>,
    /// Calls accepted per tick; `None` for unlimited.
    pub capacity: Option<u64>,
    /// How it retries a failed call to its downstream node.
    pub retry: Option<RetrySpec>,
}

/// A retry policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrySpec {
    /// Tries, the first one included (at least 1).
    pub attempts: u32,
    /// The wait before each retry.
    pub backoff: Backoff,
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
}

impl Backoff {
    /// The wait before retry `n` (1 = the wait after the first failed try).
    pub fn wait(&self, n: u32) -> u64 {
        match *self {
            Backoff::Fixed { wait } => wait,
            Backoff::Exponential {
                base,
                multiplier,
                cap,
            } => {
                let w = (base as f64) * multiplier.powi(n.saturating_sub(1).min(1024) as i32);
                let w = if w.is_finite() && w < u64::MAX as f64 {
                    w.round() as u64
                } else {
                    u64::MAX
                };
                cap.map_or(w, |c| w.min(c))
            }
        }
    }
}

/// How a source spreads its arrivals over ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Arrivals {
    /// A deterministic accumulator: the rate is added every tick and a
    /// request enters for every whole unit; fractions carry over.
    Uniform,
    /// A Poisson number of arrivals per tick with the rate as its mean,
    /// drawn from the run's random stream.
    Poisson,
}

/// A source of new requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// A named inclusive range of ticks.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// A sentence with embedded values.
    Line(Vec<LinePart>),
    /// A demand-or-retry-storm verdict per variant.
    Diagnose(DiagnoseSpec),
}

/// A table: rows from one or two axes, one column per expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableSpec {
    /// Title.
    pub title: String,
    /// Heading of the first column.
    pub label: String,
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
}

impl Metric {
    /// Every metric with its name in the language.
    pub const ALL: [(&'static str, Metric); 17] = [
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
        )
    }
}
