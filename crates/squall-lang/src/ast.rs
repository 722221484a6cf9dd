//! The syntax tree: what the file says, with a span on every node.
//!
//! Nothing here is checked beyond the grammar; [`crate::validate`] binds names
//! and [`crate::instantiate`] turns values into numbers.

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
}

/// A value with its span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Value {
    /// What it says.
    pub kind: ValueKind,
    /// Where.
    pub span: Span,
}

/// An inclusive range `a..b`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Range {
    /// First tick.
    pub start: Value,
    /// Last tick (inclusive).
    pub end: Value,
    /// Where.
    pub span: Span,
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
pub enum Item {
    /// `clock round`
    Clock(Ident),
    /// `run 400 rounds`
    Run(Value),
    /// `seed 42`
    Seed(u64, Span),
    /// `param name = value`
    Param(Ident, Value),
    /// `source name { ... }`
    Source(SourceDecl),
    /// `chain a -> b -> c`
    Chain(Vec<Ident>),
    /// `service a, b { ... }`
    Service(ServiceDecl),
    /// `fault name { ... }`
    Fault(FaultDecl),
    /// `window name a..b`
    Window(Ident, Range),
    /// `variant name "label" { ... }`
    Variant(VariantDecl),
    /// `sweep name "label" { ... }`
    Sweep(SweepDecl),
    /// `report { ... }`
    Report(Vec<ReportItem>),
    /// `expect lhs op rhs`
    Expect(ExpectDecl),
}

/// `source users { rate 4/round enters edge }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceDecl {
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
}

/// `service a, b { ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceDecl {
    /// The services the block applies to.
    pub names: Vec<Ident>,
    /// Their properties.
    pub props: Vec<ServiceProp>,
}

/// A property of a service.
// A syntax tree holds a handful of these per file; boxing `Retry` would only
// add indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ServiceProp {
    /// `retry { ... }`
    Retry(RetryAst),
    /// `capacity 12/round`
    Capacity(Value),
}

/// `retry { attempts 3 backoff fixed 4 rounds }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryAst {
    /// `attempts n`
    pub attempts: Option<Value>,
    /// `backoff ...`
    pub backoff: Option<BackoffAst>,
    /// The whole block.
    pub span: Span,
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
}

/// `fault name { on db during a..b capacity 1/round }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultDecl {
    /// The fault's name.
    pub name: Ident,
    /// Its properties.
    pub props: Vec<FaultProp>,
    /// The whole declaration.
    pub span: Span,
}

/// A property of a fault.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum FaultProp {
    /// `on db`
    On(Ident),
    /// `during a..b`
    During(Range),
    /// `capacity 1/round`
    Capacity(Value),
}

/// `variant name "label" { ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantDecl {
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
    Without(Ident),
    /// `source name { rate ... }`: replaces the source's rates
    Source(Ident, Vec<RateAst>),
}

/// `sweep name "label" { param in [v, ...] variant base }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepDecl {
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
    /// `measure name = expr`
    Measure(Ident, Expr),
    /// `table "title" { ... }`
    Table(TableAst),
    /// `line "template"`
    Line(String, Span),
    /// `diagnose node in window vs baseline [against variant]`
    Diagnose(DiagnoseAst),
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
    /// `label "..."`
    pub label: Option<String>,
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
pub struct ExpectDecl {
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
    /// `storm.during.db.call_rate`
    Path(Vec<Ident>),
    /// `recovery(db, brownout, 1.1 * before.db.call_rate)`
    Call(Ident, Vec<Expr>),
    /// `-x`
    Neg(Box<Expr>),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
}
