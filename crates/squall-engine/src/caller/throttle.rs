//! [`Throttles`]: a node's client-side throttle ([`SreThrottle`], the SRE
//! book's rule), its own and one per client of a source with `clients N`
//! entering it.
//!
//! The node asks its throttle before each try it sends downstream, first
//! tries and retries alike ([`Throttles::admit`]), and tells it each sent
//! try's outcome ([`Throttles::answered`]); both engine paths call these
//! two at the moments the breaker is asked and told. A rejected try is
//! counted at once as a request that was not accepted and fails with
//! [`FailKind::Throttled`](crate::outcome::FailKind::Throttled) without
//! being sent.
//!
//! Each throttle draws from its own stream: `throttle/<node>` for the
//! node's, `throttle/<node>/<source>/<client>` for a client's, so that one
//! client's draws do not move another's.

use squall_lang::{Model, ThrottleSpec};

use crate::policy::throttle::SreThrottle;
use crate::rng::Stream;

/// A node's throttles. Boxed, so that a node without one (almost every
/// node) carries one pointer (see `gate.rs`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Throttles(Option<Box<ThrottleSet>>);

#[derive(Debug, Clone)]
struct ThrottleSet {
    spec: ThrottleSpec,
    /// The node's own, then one per client, each with its stream.
    list: Vec<(SreThrottle, Stream)>,
}

fn fresh(spec: &ThrottleSpec, stream: Stream) -> (SreThrottle, Stream) {
    let t = SreThrottle::new(spec.k, spec.bucket_width(), spec.buckets);
    (t, stream)
}

impl Throttles {
    /// The throttle of node `i` of `model` run with `seed`, if it has one.
    pub(crate) fn new(model: &Model, i: usize, seed: u64) -> Self {
        Throttles(model.nodes[i].throttle.map(|spec| {
            let own = fresh(&spec, Stream::new(seed, &format!("throttle/{i}")));
            Box::new(ThrottleSet {
                spec,
                list: vec![own],
            })
        }))
    }

    /// True when the node throttles its tries.
    #[inline(always)]
    pub(crate) fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// Adds one throttle per client of source `source` (`count` clients)
    /// entering node `node` run with `seed`; the index of the first, or
    /// `None` when the node has no throttle.
    pub(crate) fn add_clients(
        &mut self,
        seed: u64,
        node: usize,
        source: usize,
        count: u32,
    ) -> Option<usize> {
        let set = self.0.as_deref_mut().filter(|_| count > 0)?;
        let base = set.list.len();
        for k in 0..count {
            let stream = Stream::new(seed, &format!("throttle/{node}/{source}/{k}"));
            set.list.push(fresh(&set.spec, stream));
        }
        Some(base)
    }

    /// Whether a try at tick `now` goes: the throttle of `client` (an
    /// index from [`Self::add_clients`]) or the node's draws against its
    /// rejection probability; a rejected try is counted.
    pub(crate) fn admit(&mut self, client: Option<usize>, now: u64) -> bool {
        let Some(set) = self.0.as_deref_mut() else {
            return true;
        };
        let Some((t, stream)) = set.list.get_mut(client.unwrap_or(0)) else {
            return true;
        };
        let p = t.reject_probability(now);
        if p > 0.0 && stream.next_f64() < p {
            t.record(now, false);
            return false;
        }
        true
    }

    /// A sent try's outcome at tick `now`: `accepted` by the dependency or
    /// not.
    pub(crate) fn answered(&mut self, client: Option<usize>, now: u64, accepted: bool) {
        if let Some(set) = self.0.as_deref_mut() {
            if let Some((t, _)) = set.list.get_mut(client.unwrap_or(0)) {
                t.record(now, accepted);
            }
        }
    }
}
