//! [`SimError`]: why the engine refuses a model or a run.
//!
//! The engine never panics on a model the language accepted: every check
//! the builder makes ([`crate::SimulationBuilder::build`]) and every
//! impossible schedule the run meets ([`SchedulingError`]) comes back as one
//! of these variants. The variants are data (names, indices, counts, ticks);
//! their messages are the `Display` text a report or the CLI shows.

use crate::queue::SchedulingError;

/// A problem with a model or a run; never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The model refers to a node that does not exist.
    #[error("{what} refers to node {index}, but the model has {count} nodes")]
    BadNode {
        /// What refers to it.
        what: String,
        /// The index.
        index: usize,
        /// How many nodes there are.
        count: usize,
    },
    /// The downstream links form a cycle.
    #[error("the call graph has a cycle through node `{node}`")]
    Cycle {
        /// A node on the cycle.
        node: String,
    },
    /// A window or fault lies outside the run.
    #[error("{what} {from}..{to} is outside the run {start}..{ticks}")]
    OutOfRun {
        /// What.
        what: String,
        /// First tick.
        from: u64,
        /// Last tick.
        to: u64,
        /// First tick of the run.
        start: u64,
        /// Last tick of the run.
        ticks: u64,
    },
    /// A retry policy with no tries.
    #[error("node `{node}` has a retry policy with 0 attempts")]
    NoAttempts {
        /// The node.
        node: String,
    },
    /// A backoff names a generator the model does not have.
    #[error("a backoff of node `{node}` draws from generator {index}, but the model has {count}")]
    BadRng {
        /// The node.
        node: String,
        /// The index.
        index: usize,
        /// How many generators there are.
        count: usize,
    },
    /// The run handled more events than its work budget allows.
    #[error("the run stopped at tick {tick} after {events} events, its work budget: {}", budget_cause(.node, *.attempts, *.ratio, *.product, .driver))]
    WorkBudget {
        /// The budget \[events\].
        events: u64,
        /// The tick the run had reached.
        tick: u64,
        /// The node whose retry policy multiplied the work most (empty:
        /// none retries).
        node: String,
        /// Its tries per call.
        attempts: u32,
        /// Calls it sent down per call it received.
        ratio: f64,
        /// The product of every node's tries.
        product: f64,
        /// With no node retrying: what else in the model makes the work
        /// (a work queue's redeliveries, hedges, a loop with no think
        /// time), in words; empty when nothing but the rates does.
        driver: String,
    },
    /// A source would send more requests than a run simulates.
    #[error("source `{name}` would send up to {requests:.0} requests; squall simulates at most 1000000000 per source and run (scale rates and capacities down together, or shorten the run)")]
    TooManyRequests {
        /// The source.
        name: String,
        /// Requests at its peak rate over the run.
        requests: f64,
    },
    /// The per-tick observations of the run would not fit in memory.
    #[error("a run of {ticks} ticks over {nodes} nodes needs about {mib} MiB of per-tick counters, more than the {limit} MiB squall allows a run (use a coarser clock, or a shorter run)")]
    TooLong {
        /// Ticks in the run.
        ticks: u64,
        /// Nodes in the model.
        nodes: usize,
        /// The memory it would take \[MiB\].
        mib: u64,
        /// The limit \[MiB\].
        limit: u64,
    },
    /// A source's rate is beyond what one run simulates.
    #[error("source `{name}` sends {rate} requests per tick; squall simulates at most 1000000 per tick per source (scale the scenario down: rates, capacities and counts by the same factor)")]
    RateTooLarge {
        /// The source.
        name: String,
        /// Its largest rate.
        rate: f64,
    },
    /// A run that takes time whose failure-free estimate of work is past
    /// its work budget: refused before it starts.
    #[error("source `{name}` makes about {events:.0} events even if nothing fails ({requests:.0} requests x {per_request:.1} events each), more than the work budget of {budget} events (raise `work_budget`, shorten the run, or lower the rate)")]
    EstimateOverBudget {
        /// The source whose requests make the most events.
        name: String,
        /// The run's estimated events.
        events: f64,
        /// The source's requests.
        requests: f64,
        /// Events per request of that source.
        per_request: f64,
        /// The budget \[events\].
        budget: u64,
    },
    /// A run that takes time whose estimated peak memory is past the memory
    /// budget it was given: refused before it starts.
    #[error("this run would hold about {mib:.1} MiB ({series:.1} counters and bins, {histograms:.1} latency histograms, {in_flight:.1} work in flight), more than the memory budget of {budget} MiB (shorten the run, widen `series every`, lower the rate or the latency, or raise the memory budget)")]
    MemoryOverBudget {
        /// The run's estimated peak \[MiB\].
        mib: f64,
        /// Of which its counters and bins \[MiB\].
        series: f64,
        /// Of which its latency histograms \[MiB\].
        histograms: f64,
        /// Of which the requests, calls and events in flight \[MiB\].
        in_flight: f64,
        /// The budget \[MiB\].
        budget: u64,
    },
    /// A run whose senders alone would hold more memory than the budget
    /// it was given ([`crate::sending::estimate_bytes`]): refused before
    /// it starts.
    #[error("{}", senders_over_text(.senders, *.records, *.mib, *.budget))]
    SendersOverBudget {
        /// The run's senders, in declaration order.
        senders: Vec<String>,
        /// Their records, all together.
        records: u64,
        /// What they would hold \[MiB\].
        mib: f64,
        /// The budget \[MiB\].
        budget: u64,
    },
    /// An event was scheduled in the past.
    #[error(transparent)]
    Scheduling(#[from] SchedulingError),
    /// A sending study with more records than a run holds.
    #[error("a sending study of {records} records is more than the {limit} squall holds in one run (scale the study down)")]
    TooManyRecords {
        /// Records asked for.
        records: u64,
        /// The limit.
        limit: u64,
    },
}

/// [`SimError::SendersOverBudget`] in words: the senders by name and
/// their records, what each record holds, and what to do.
fn senders_over_text(senders: &[String], records: u64, mib: f64, budget: u64) -> String {
    let names = senders
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (who, their) = if senders.len() == 1 {
        ("sender", "its")
    } else {
        ("senders", "their")
    };
    format!(
        "{who} {names} would hold about {mib:.1} MiB for {their} {records} record{} (each record with its place in the queue and its pending event, and every attempt the attempt log keeps), more than the memory budget of {budget} MiB (send fewer records, or raise the memory budget)",
        if records == 1 { "" } else { "s" }
    )
}

/// The second half of [`SimError::WorkBudget`]'s message.
fn budget_cause(node: &str, attempts: u32, ratio: f64, product: f64, driver: &str) -> String {
    if node.is_empty() {
        if !driver.is_empty() {
            return format!("no node retries; the work comes from {driver}");
        }
        return "no node retries, hedges or redelivers, and every loop thinks, so the work is the sources' requests: the run is long for its rates (shorten it, or lower the rates)".to_string();
    }
    format!(
        "the retry policy of node `{node}` (attempts {attempts}) sends {ratio:.1} calls down per call it receives, and the tries of all layers multiply to {product:.0} per request (make fewer tries, or wait between them)"
    )
}

/// Why a run of `m` stopped at tick `t` past its work budget of
/// `max_events` events: the node whose retry policy multiplies its calls
/// the most (calls it sends down per call it receives, from the series
/// in `obs`).
pub(crate) fn over_budget(
    m: &squall_lang::Model,
    obs: &crate::observe::Observations,
    max_events: u64,
    t: u64,
) -> SimError {
    let calls = |i: usize| -> u64 { obs.nodes[i].calls.iter().map(|&c| u64::from(c)).sum() };
    let culprit = m
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let retry = n.retry.as_ref()?;
            let down = n.downstream?;
            let (own, sent) = (calls(i), calls(down));
            let ratio = if own == 0 {
                0.0
            } else {
                sent as f64 / own as f64
            };
            Some((ratio, n.name.clone(), retry.attempts))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let (ratio, node, attempts) = culprit.unwrap_or((0.0, String::new(), 0));
    let product: f64 = m
        .nodes
        .iter()
        .filter_map(|n| n.retry.as_ref().map(|r| f64::from(r.attempts)))
        .product();
    SimError::WorkBudget {
        events: max_events,
        tick: t,
        node,
        attempts,
        ratio,
        product,
        driver: crate::error::work_drivers(m),
    }
}

/// What drives the work of a run in which no node retries, in words for
/// [`SimError::WorkBudget`]: each work queue that redelivers failed
/// messages, each node that hedges, each closed loop whose clients do not
/// think; joined with `; `. Empty when the model has none of these.
pub(crate) fn work_drivers(m: &squall_lang::Model) -> String {
    use squall_lang::{LatencySpec, Poison};
    let mut out: Vec<String> = Vec::new();
    for n in &m.nodes {
        if let Some(q) = &n.work_queue {
            let poison = match q.poison {
                Some(Poison::First(1)) => "its poison message fails every receive and ".to_string(),
                Some(Poison::First(k)) if k > 1 => {
                    format!("its {k} poison messages fail every receive and ")
                }
                Some(Poison::Share(p)) if p > 0.0 => {
                    "its poison messages fail every receive and ".to_string()
                }
                _ => String::new(),
            };
            let again = if q.redeliver.is_some() {
                "after a wait"
            } else {
                "at once"
            };
            out.push(match q.max_receives {
                Some(k) => format!(
                    "work queue `{}`: {poison}each failed message is received again {again}, up to {k} receives (`max_receives`; lower it, or send to a `dead_letter` queue sooner)",
                    n.name
                ),
                None => format!(
                    "work queue `{}`: {poison}each failed message is received again {again}, without end (set `max_receives` and a `dead_letter` queue)",
                    n.name
                ),
            });
        }
        if let Some(h) = &n.hedge {
            out.push(format!(
                "node `{}` hedges each call with up to {} tries (fewer tries, or a longer hedging delay)",
                n.name, h.max_attempts
            ));
        }
    }
    for s in &m.sources {
        let Some(c) = &s.clients else { continue };
        if matches!(c.think, Some(LatencySpec::Constant(t)) if t <= 0.0) {
            out.push(format!(
                "source `{}`: each of its {} clients sends its next request the moment the last ends (`think 0`; give the clients a think time)",
                s.name, c.count
            ));
        }
        if matches!(c.serial, Some(LatencySpec::Constant(t)) if t <= 0.0) {
            out.push(format!(
                "source `{}`: each of its {} serial clients starts its next request the moment the last ends (`serial every 0`; give the clients a gap)",
                s.name, c.count
            ));
        }
    }
    out.join("; ")
}

/// A run's error inside its loops: boxed, so that the `Result` every step
/// returns is one pointer (null when it went on), and not the 88 bytes of
/// a [`SimError`] written through memory at each return. The loops' entry
/// points give the [`SimError`] itself, its message unchanged.
impl From<Box<SimError>> for SimError {
    fn from(e: Box<SimError>) -> Self {
        *e
    }
}

impl From<SchedulingError> for Box<SimError> {
    #[cold]
    fn from(e: SchedulingError) -> Self {
        Box::new(SimError::Scheduling(e))
    }
}
