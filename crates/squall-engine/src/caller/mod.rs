//! The caller side of a node: everything the node does around a call it
//! sends downstream, owned by one [`CallerSide`] per calling node.
//!
//! | part                                   | owner                         |
//! |----------------------------------------|-------------------------------|
//! | breakers: the node's own, one per request path (`per path`), one per client of the sources entering it | [`Breakers`] (`breakers.rs`) |
//! | retry budget: the node's own, one per client; the in-flight counts an Envoy budget reads | [`Budgets`] (`budget.rs`) |
//! | retry gate on a failure ratio (mbrooker's `retry_sim`): the node's own, one per client | `Gates` (`gate.rs`), held and asked by [`Budgets`] |
//! | the retry rule and backoff draw        | [`crate::policy::retry`], asked through [`Budgets::next_try`] |
//! | per-try timeout, cancel on timeout, hedging policy | [`CallerSide`] (read by the timed path) |
//! | hedged tries: each hedging call's tries in flight, and what the call does when one answers | [`Hedges`] (`hedge.rs`; one per timed run, held beside its call slab) |
//! | adaptive concurrency limit: the node's tries in flight and the limit they adapt (the timed path): the node's own, one per client | [`CallerSide`], the rule in [`crate::policy::limiter`] |
//! | client-side throttling (the SRE book's rule): the node's own, one per client | [`Throttles`] (`throttle.rs`); the rule in [`crate::policy::throttle`] |
//! | the shape the per-client parts share: the node's own, then one per client of a source with `clients N`, behind one pointer | `PerClient` (`per_client.rs`), used by the throttles, gates, budgets and limiters |
//!
//! Both engine paths (the zero-time path's `simulation/call.rs` and the
//! timed path's `simulation/timed/flow/`) call the same methods, in the
//! same order in a try's life:
//!
//! 1. [`CallerSide::first_try`] — a request's retry loop opens at the
//!    node (its budget hears of the request);
//! 2. [`CallerSide::acquire`] — on a node with a concurrency limiter (the
//!    timed path only), a try asks it whether it goes (refused: not sent,
//!    counted as `limited`, failed as [`FailKind::Limited`](crate::outcome::FailKind::Limited));
//!    then [`Breakers::admit`] — a try asks the breaker whether it goes
//!    ([`Throttles::admit`]: the throttle, at a node that throttles; a try
//!    either refuses gives its limiter's place back, unsampled);
//! 3. [`CallerSide::sent`] / [`CallerSide::back`] — a try is in flight
//!    downstream and comes back (the timed path only: on the zero-time
//!    path a try is answered before anything else happens); with a
//!    limiter, [`CallerSide::release`] tells it the try's round trip and
//!    what became of it;
//! 4. [`Breakers::answered`] — the breaker hears the try's answer and
//!    how long it took (0 on the zero-time path); [`Throttles::answered`],
//!    the throttle, whether the dependency accepted it;
//! 5. [`CallerSide::retry_closed`] — a granted retry is no longer open
//!    (Envoy's open retries);
//! 6. [`Budgets::next_try`] — after a failure: the wait before the
//!    next try (the retry rule), gated by the retry gate and the budget,
//!    or `None`;
//! 7. [`CallerSide::leave`] — the request leaves the node with its answer
//!    (a success is credited to the budget).
//!
//! A hedging node (the timed path only; it has no retry, timeout or
//! budget) replaces steps 5 and 6 with its [`Hedges`]: [`Hedges::sent`]
//! when a try goes (the delay before the next, if one is left),
//! [`Hedges::answered`] when one answers ([`HedgeStep`]: answer, send the
//! next try now, or wait for the others), [`Hedges::take`] for the tries
//! to cancel when the call answers or is cancelled. The event loop sends,
//! sets timers and cancels; the rule is here.
//!
//! The per-try state (the retry loop, the breaker's epoch, the grant) lives
//! with the path's own record of the try (the zero-time path's request
//! slab, the timed path's call slab), since a timed node can have many
//! tries of one request out at once; the caller side holds what the node
//! shares across requests. A new breaker kind is a variant of
//! [`AnyBreaker`](crate::policy::breaker::any::AnyBreaker) and a new budget
//! a variant of [`Budget`](crate::policy::budget::Budget): nothing here or
//! in `simulation/` changes.

mod breakers;
mod budget;
mod gate;
mod hedge;
mod per_client;
mod throttle;

use squall_lang::{HedgeSpec, Model};

use crate::outcome::Answer;
use crate::policy::limiter::{Limiter, Sample};
use crate::rng::Stream;
use crate::time::{Duration, Resolution, Time};

pub(crate) use breakers::Breakers;
pub(crate) use budget::{unbudgeted, Budgets, Decision, NO_GRANT};
pub(crate) use hedge::{HedgeStep, Hedges};
pub(crate) use throttle::Throttles;

use per_client::PerClient;

/// A limiter `spec` of `model`'s clock drawing from stream `name` under
/// the model's seed.
fn limiter(model: &Model, spec: &squall_lang::LimiterSpec, name: String) -> Limiter {
    let stream = Stream::new(model.seed, &name);
    Limiter::new(spec, Resolution::fine(model.clock), stream)
}

/// One node's caller side.
#[derive(Debug, Clone)]
pub(crate) struct CallerSide {
    pub(crate) breakers: Breakers,
    pub(crate) budgets: Budgets,
    pub(crate) throttles: Throttles,
    /// The node has a breaker or a throttle: one test before a try goes
    /// and when it answers.
    guarded: bool,
    /// Per-try timeout \[engine units\] and whether a timeout cancels the
    /// try (the timed path).
    timeout: Option<Duration>,
    cancel: bool,
    hedge: Option<HedgeSpec>,
    /// The adaptive concurrency limit, the node's own and one per client
    /// (boxed: rare, and kept off the size of a node that has none).
    limiter: PerClient<Limiter>,
}

/// Which of the caller side's optional components a node holds
/// ([`CallerSide::holds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Holds {
    /// A breaker or a throttle ([`CallerSide::guarded`]).
    pub(crate) guarded: bool,
    /// A retry budget or gate ([`CallerSide::has_budget`]).
    pub(crate) budget: bool,
}

impl CallerSide {
    /// Which optional components the caller side of node `i` of `model`
    /// holds, read from the model alone (the zero-time walk's plan,
    /// `simulation/plan.rs`); [`CallerSide::new`] builds exactly these.
    pub(crate) fn holds(model: &Model, i: usize) -> Holds {
        let n = &model.nodes[i];
        Holds {
            guarded: n.breaker.is_some() || n.library_breaker.is_some() || n.throttle.is_some(),
            budget: n.budget.is_some() || gate::Gates::new(model, i).is_some(),
        }
    }

    /// What this caller side holds (as [`CallerSide::holds`] reads the
    /// model).
    pub(crate) fn held(&self) -> Holds {
        Holds {
            guarded: self.guarded,
            budget: self.has_budget(),
        }
    }

    /// The caller side of node `i` of `model` before the run, with
    /// `scopes` distinct request paths for a `per path` breaker. `timed`:
    /// the run takes time (tries can be in flight while others decide);
    /// a throttle draws from streams of the run's `seed`.
    pub(crate) fn new(model: &Model, i: usize, scopes: usize, timed: bool, seed: u64) -> Self {
        let n = &model.nodes[i];
        let breakers = Breakers::new(model, i, scopes);
        let throttles = Throttles::new(model, i, seed);
        CallerSide {
            guarded: !breakers.is_empty() || throttles.is_some(),
            breakers,
            throttles,
            budgets: Budgets::new(n.budget.as_ref(), gate::Gates::new(model, i), timed),
            timeout: n
                .caller
                .timeout
                .map(|t| Resolution::fine(model.clock).duration(t)),
            cancel: n.caller.cancel,
            hedge: n.hedge,
            limiter: PerClient::new(
                n.limiter
                    .as_ref()
                    .map(|spec| limiter(model, spec, format!("limiter/{i}"))),
            ),
        }
    }

    /// Adds one limiter per client of source `source` (`count` clients)
    /// entering node `node` of `model`, each drawing from its own stream
    /// (`limiter/<node>/<source>/<client>`); the index of the first, or
    /// `None` when the node has no limiter.
    pub(crate) fn add_limiter_clients(
        &mut self,
        model: &Model,
        node: usize,
        source: usize,
        count: u32,
    ) -> Option<usize> {
        let spec = model.nodes[node].limiter.as_ref()?;
        self.limiter.add_clients(count, |_, k| {
            limiter(model, spec, format!("limiter/{node}/{source}/{k}"))
        })
    }

    /// True when the node bounds its tries in flight by a limiter.
    #[inline(always)]
    pub(crate) fn has_limiter(&self) -> bool {
        self.limiter.is_some()
    }

    /// A try asks its limiter (`client`'s, an index from
    /// [`Self::add_limiter_clients`], or the node's) to go at `now`: `None`
    /// when refused; otherwise the tries in flight with it (1 without a
    /// limiter).
    pub(crate) fn acquire(&mut self, now: Time, client: Option<usize>) -> Option<u32> {
        match self.limiter.pick(client) {
            Some(l) => l.acquire(now.units()),
            None => Some(1),
        }
    }

    /// A try sent at `sent` with `inflight` tries out ended at `now` as
    /// `sample`: its limiter (`client`'s or the node's), if any, hears it.
    pub(crate) fn release(
        &mut self,
        now: Time,
        sent: Time,
        inflight: u32,
        sample: Sample,
        client: Option<usize>,
    ) {
        if let Some(l) = self.limiter.pick(client) {
            l.release(now.units(), sent.units(), inflight, sample);
        }
    }

    /// True when the node guards its tries with a breaker.
    #[inline(always)]
    pub(crate) fn has_breaker(&self) -> bool {
        !self.breakers.is_empty()
    }

    /// True when the node guards its tries with a breaker or a throttle.
    #[inline(always)]
    pub(crate) fn guarded(&self) -> bool {
        self.guarded
    }

    /// True when the node's retries spend a budget or pass a retry gate.
    #[inline(always)]
    pub(crate) fn has_budget(&self) -> bool {
        self.budgets.is_some()
    }

    /// The per-try timeout \[engine units\], if any.
    pub(crate) fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// True when a timed-out try is cancelled rather than left behind.
    pub(crate) fn cancels(&self) -> bool {
        self.cancel
    }

    /// The node's hedging policy, if it hedges.
    pub(crate) fn hedge(&self) -> Option<HedgeSpec> {
        self.hedge
    }

    /// A request's retry loop opens at the node (its first try is about
    /// to go): the budget it spends hears of it.
    #[inline]
    pub(crate) fn first_try(&mut self, tick: u64, client: Option<usize>) {
        self.budgets.first_try(tick, client);
    }

    /// A try goes downstream (the timed path).
    #[inline]
    pub(crate) fn sent(&mut self) {
        self.budgets.sent();
    }

    /// A try in flight came back: answered or given up on (the timed path).
    #[inline]
    pub(crate) fn back(&mut self) {
        self.budgets.back();
    }

    /// A retry the budget granted is no longer open: on the timed path its
    /// answer came back or its request ended; the zero-time path closes it
    /// when the retry is sent (see `budget.rs`).
    #[inline]
    pub(crate) fn retry_closed(&mut self) {
        self.budgets.retry_closed();
    }

    /// A request whose loop was `opened` here leaves the node, with
    /// `answer` (`None`: cancelled); `grant` is what its last retry cost
    /// ([`NO_GRANT`]: none).
    #[inline]
    pub(crate) fn leave(
        &mut self,
        opened: bool,
        answer: Option<Answer>,
        grant: u32,
        client: Option<usize>,
    ) {
        self.budgets.leave(opened, answer, grant, client);
    }
}
