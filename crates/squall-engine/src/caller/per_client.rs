//! [`PerClient`]: one caller-side component of a node in the shape every
//! per-client part shares: the node's own, then one per client of each
//! source with `clients N` entering the node, all behind one pointer.
//!
//! The throttles (`throttle.rs`), the retry gates (`gate.rs`), the retry
//! budgets (`budget.rs`) and the concurrency limiters ([`super::CallerSide`])
//! are each a `PerClient` of their rule. A node without the component
//! (almost every node) carries one null pointer and pays one test on the
//! call path: the zero-time walk indexes nodes, and a larger node made the
//! round storm's walk dearer (27473ad).
//!
//! A client's index is the one [`PerClient::add_clients`] returned for its
//! source plus the client's number (`simulation/clients.rs` keeps the
//! base per source); `None` picks the node's own.

/// The node's own `T` and one per client, boxed.
#[derive(Debug, Clone)]
pub(crate) struct PerClient<T>(Option<Box<Set<T>>>);

impl<T> Default for PerClient<T> {
    fn default() -> Self {
        PerClient(None)
    }
}

#[derive(Debug, Clone)]
struct Set<T> {
    own: T,
    clients: Vec<T>,
}

impl<T> PerClient<T> {
    /// The node's own `own`, or none.
    pub(crate) fn new(own: Option<T>) -> Self {
        PerClient(own.map(|own| {
            Box::new(Set {
                own,
                clients: Vec::new(),
            })
        }))
    }

    /// True when the node has the component.
    #[inline(always)]
    pub(crate) fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// Adds `count` clients' own, client `k`'s made by `fresh(own, k)`
    /// from the node's; the index of the first, or `None` when the node
    /// has no component or `count` is 0.
    pub(crate) fn add_clients(
        &mut self,
        count: u32,
        mut fresh: impl FnMut(&T, u32) -> T,
    ) -> Option<usize> {
        let set = self.0.as_deref_mut().filter(|_| count > 0)?;
        let base = set.clients.len();
        for k in 0..count {
            let made = fresh(&set.own, k);
            set.clients.push(made);
        }
        Some(base)
    }

    /// Client `client`'s own (an index from [`Self::add_clients`]), or the
    /// node's for `None`; `None` when the node has none or the index is
    /// not a client's.
    #[inline]
    pub(crate) fn pick(&mut self, client: Option<usize>) -> Option<&mut T> {
        let set = self.0.as_deref_mut()?;
        match client {
            None => Some(&mut set.own),
            Some(i) => set.clients.get_mut(i),
        }
    }
}
