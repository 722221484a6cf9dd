//! Report items about client-side retry, one file each:
//!
//! - `waits.rs`: [`Study::waits`], a policy's backoff wait before each
//!   retry, one column per policy.
//! - `herd.rs`: [`Study::herd`], when a herd of clients failing at once
//!   wakes up for one retry, bucketed into a histogram.
//! - `operations.rs`: [`Study::operations`], each operation of a sequential
//!   client: its tries, outcome and waits.
//! - `trace.rs`: [`Study::trace`], a circuit breaker's decisions, call by
//!   call.
//!
//! `waits` and `herd` draw their waits with the engine's own backoff
//! sampling (`squall_engine::sample_wait`), outside the engine's runs:
//! each draws from a fresh generator (the item's `rng`, the one its policy
//! names, or the run's default stream), so their numbers depend on the
//! policy and the seed, not on the run's traffic. `operations` and `trace`
//! read what the engine recorded, worded by [`crate::words`]. `waits` and `herd` describe the report's
//! default run ([`Study::default_key`]); `operations` and `trace` give one
//! table per selected variant.

mod herd;
mod operations;
mod trace;
mod waits;

use squall_engine::rng::Generator;
use squall_lang::{Model, RunKey};

use crate::study::Study;

/// A fresh generator for a report item: the named one (from its seed), or
/// the run's default stream.
fn generator(model: &Model, rng: Option<usize>) -> Generator {
    match rng.and_then(|i| model.rngs.get(i)) {
        Some(spec) => Generator::from_spec(spec, model.seed),
        None => Generator::default_for(model.seed),
    }
}

impl Study<'_> {
    fn default_model(&self) -> Option<&Model> {
        let key = self.default_key();
        self.runs.get(&key).map(|r| &r.model)
    }

    fn per_variant_runs(&self) -> Vec<RunKey> {
        (0..self.scenario.variants.len())
            .filter(|&v| self.includes_variant(v))
            .map(RunKey::Variant)
            .collect()
    }

    fn titled(&self, title: &str, key: RunKey, many: bool) -> String {
        if many {
            format!("{title}: {}", self.run_label(key))
        } else {
            title.to_string()
        }
    }
}
