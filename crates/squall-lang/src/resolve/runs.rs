//! Which runs a scenario declares, and what makes each one differ: its
//! overrides and its seed.

use crate::decl::{Overrides, Scenario, Setting, SEED_AXIS};
use crate::seed::derive_seed;

/// Which run of a scenario: a variant, or a point of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunKey {
    /// Variant by index.
    Variant(usize),
    /// Sweep by index, point by index (on the sweep's own base variant).
    Point(usize, usize),
    /// A sweep point applied on top of a variant: variant, sweep, point.
    Cross(usize, usize, usize),
}

impl Scenario {
    /// The overrides of a run: `cli` settings, then the variant's (and the
    /// sweep point's) own.
    pub fn overrides(&self, key: RunKey, cli: &[Setting]) -> Overrides {
        let base = Overrides {
            sets: cli.to_vec(),
            ..Overrides::default()
        };
        match key {
            RunKey::Variant(v) => {
                let mut o = base.then(&self.variants[v].overrides);
                o.seed = Some(self.run_seed(key));
                o
            }
            RunKey::Point(s, p) => {
                let sweep = &self.sweeps[s];
                let mut o = base.then(&self.variants[sweep.base].overrides);
                if let Some(point) = sweep.point(p) {
                    for (name, value) in point.into_iter().filter(|(n, _)| n != SEED_AXIS) {
                        let origin = sweep.flag.as_ref().map(|flag| {
                            format!("{flag} {name}={}", crate::format::value_text(&value))
                        });
                        o.sets.push(Setting {
                            name,
                            value,
                            origin,
                        });
                    }
                }
                o.seed = Some(self.run_seed(key));
                o
            }
            RunKey::Cross(v, s, p) => {
                let sweep = &self.sweeps[s];
                let mut o = base.then(&self.variants[v].overrides);
                if let Some(point) = sweep.point(p) {
                    for (name, value) in point.into_iter().filter(|(n, _)| n != SEED_AXIS) {
                        o.sets.push(Setting {
                            name,
                            value,
                            origin: None,
                        });
                    }
                }
                o.seed = Some(self.run_seed(key));
                o
            }
        }
    }

    /// The seed of a run, derived from the scenario's `seed` and a label:
    /// `variant/<name>` for a variant, `point/<settings>` for a sweep point
    /// (its settings sorted by name, so the seed follows the point's values
    /// and not its position), `variant/<name>/point/<settings>` for a point
    /// on top of a variant. A point with a `seed` axis derives from that
    /// value instead of the scenario's seed, and the axis is left out of
    /// its settings: each seed is its own stream, and the other settings
    /// label it as before. Under `draws common` no label is mixed in: every
    /// run has the scenario's seed (or its point's `seed` axis value).
    pub fn run_seed(&self, key: RunKey) -> u64 {
        let settings = |s: usize, p: usize| {
            let mut parts: Vec<String> = self
                .sweeps
                .get(s)
                .and_then(|sw| sw.point(p))
                .unwrap_or_default()
                .iter()
                .filter(|(n, _)| n != SEED_AXIS)
                .map(|(n, v)| format!("{n}={}", crate::format::value_text(v)))
                .collect();
            parts.sort();
            parts.join(",")
        };
        let label = match key {
            RunKey::Variant(v) => format!("variant/{}", self.variants[v].name),
            RunKey::Point(s, p) => format!("point/{}", settings(s, p)),
            RunKey::Cross(v, s, p) => {
                format!("variant/{}/point/{}", self.variants[v].name, settings(s, p))
            }
        };
        let root = match key {
            RunKey::Variant(_) => None,
            RunKey::Point(s, p) | RunKey::Cross(_, s, p) => {
                self.sweeps.get(s).and_then(|sw| sw.point_seed(p))
            }
        };
        if self.common_draws {
            // Common random numbers: every run under the same seed, so
            // that replication r of one run pairs with replication r of
            // another.
            return root.unwrap_or(self.seed);
        }
        derive_seed(root.unwrap_or(self.seed), &label)
    }

    /// The seed of replication `r` (0-based) of a run, for a report with
    /// `replications N`: the first replication is the run itself
    /// ([`Scenario::run_seed`]), so a report with replications shows the
    /// unreplicated run as its first sample; replication `r >= 1` derives
    /// `derive_seed(run_seed, "replication/<r + 1>")`. It depends only on
    /// the run and `r`, never on the thread count or the other runs.
    pub fn replication_seed(&self, key: RunKey, r: usize) -> u64 {
        let seed = self.run_seed(key);
        if r == 0 {
            seed
        } else {
            derive_seed(seed, &format!("replication/{}", r + 1))
        }
    }

    /// Every run the file declares: variants, then sweep points.
    pub fn all_runs(&self) -> Vec<RunKey> {
        let mut keys: Vec<RunKey> = (0..self.variants.len()).map(RunKey::Variant).collect();
        for (s, sweep) in self.sweeps.iter().enumerate() {
            for p in 0..sweep.len() {
                keys.push(RunKey::Point(s, p));
            }
        }
        keys
    }
}
