//! [`Throttles`]: a node's client-side throttle ([`SreThrottle`], the SRE
//! book's rule), its own and one per client of a source with `clients N`
//! entering it.
//!
//! The node asks its throttle before each try it sends downstream, first
//! tries and retries alike ([`Throttles::admit`]), and tells it each sent
//! try's outcome ([`Throttles::answered`]); both engine paths call these
//! two at the moments the breaker is asked and told (`simulation/call.rs`,
//! `simulation/timed/flow/`), behind the one test a node without a
//! breaker or throttle pays ([`super::CallerSide::guarded`]), with the
//! client's index (`Runner::client_part`). A rejected try is
//! counted at once as a request that was not accepted and fails with
//! [`FailKind::Throttled`](crate::outcome::FailKind::Throttled) without
//! being sent.
//!
//! Each throttle draws from its own stream: `throttle/<node>` for the
//! node's, `throttle/<node>/<source>/<client>` for a client's, so that one
//! client's draws do not move another's.

use squall_lang::{Model, ThrottleSpec};

use crate::observe::NodeSeries;
use crate::outcome::{fail, Answer, FailKind};
use crate::policy::breaker::counts_against_dependency;
use crate::policy::throttle::SreThrottle;
use crate::rng::Stream;

use super::per_client::PerClient;

/// A node's throttles, each with its stream, in the one pointer of a
/// [`PerClient`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Throttles(PerClient<(SreThrottle, Stream)>);

fn fresh(spec: &ThrottleSpec, stream: Stream) -> (SreThrottle, Stream) {
    let t = SreThrottle::new(spec.k, spec.bucket_width(), spec.buckets);
    (t, stream)
}

impl Throttles {
    /// The throttle of node `i` of `model` run with `seed`, if it has one.
    pub(crate) fn new(model: &Model, i: usize, seed: u64) -> Self {
        Throttles(PerClient::new(model.nodes[i].throttle.map(|spec| {
            fresh(&spec, Stream::new(seed, &format!("throttle/{i}")))
        })))
    }

    /// True when the node throttles its tries.
    #[inline(always)]
    pub(crate) fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// Adds one throttle per client of source `source` (`count` clients)
    /// entering node `node` of `model` run with `seed`; the index of the
    /// first, or `None` when the node has no throttle.
    pub(crate) fn add_clients(
        &mut self,
        model: &Model,
        seed: u64,
        node: usize,
        source: usize,
        count: u32,
    ) -> Option<usize> {
        let spec = model.nodes[node].throttle?;
        self.0.add_clients(count, |_, k| {
            fresh(
                &spec,
                Stream::new(seed, &format!("throttle/{node}/{source}/{k}")),
            )
        })
    }

    /// Whether a try at tick `now` goes: the throttle of `client` (an
    /// index from [`Self::add_clients`]) or the node's draws against its
    /// rejection probability. `None`: it goes; `Some(answer)`: it is
    /// rejected locally, counted as a request and in the node's
    /// `rejected_locally` (`series`, slot `slot`), and fails with `answer`.
    #[inline(never)]
    pub(crate) fn admit(
        &mut self,
        client: Option<usize>,
        now: u64,
        series: &mut NodeSeries,
        slot: usize,
    ) -> Option<Answer> {
        let (t, stream) = self.0.pick(client)?;
        let p = t.reject_probability(now);
        if p > 0.0 && stream.next_f64() < p {
            t.record(now, false);
            series.count_rejected_locally(slot);
            return Some(fail(FailKind::Throttled));
        }
        None
    }

    /// A sent try's `answer` at tick `now`: accepted unless it counts
    /// against the dependency.
    #[inline(never)]
    pub(crate) fn answered(&mut self, client: Option<usize>, now: u64, answer: Answer) {
        if let Some((t, _)) = self.0.pick(client) {
            t.record(now, !counts_against_dependency(answer));
        }
    }
}
