//! Overrides: the param values, removed faults, replaced rates and seed
//! that make one run differ from the base scenario.

use crate::ast::{RateAst, SendBlockAst, ServiceChange, Timed, Value};

/// One param override and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// The param.
    pub name: String,
    /// Its new value.
    pub value: Value,
    /// `Some("--set x=1")` for values from outside the file (their spans do
    /// not point into the file): how the caller spells a setting (`--set`
    /// on the command line, `set` in Python), a space, the text as given.
    pub origin: Option<String>,
}

/// Changes applied to the base scenario for one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// Param values, later ones winning.
    pub sets: Vec<Setting>,
    /// Faults removed, by index.
    pub without: Vec<usize>,
    /// Sources whose `rate` lines are replaced.
    pub sources: Vec<(usize, Vec<RateAst>)>,
    /// Sources whose `deadline`, `clients`, `think` or `priority` is replaced, in
    /// order (a later setting of the same keyword wins).
    pub source_settings: Vec<(usize, Vec<Timed>)>,
    /// Services whose retry, breaker, budget or capacity is replaced or
    /// removed, in order (later changes win).
    pub services: Vec<(usize, Vec<ServiceChange>)>,
    /// The run's seed; `None`: the scenario's.
    pub seed: Option<u64>,
    /// Changes to `sender` and `provider` blocks, in order (a change
    /// replaces the settings of the keys it names).
    pub sending: Vec<SendBlockAst>,
}

impl Overrides {
    /// `self` followed by `later` (whose settings win).
    pub fn then(&self, later: &Overrides) -> Overrides {
        let mut o = self.clone();
        o.sets.extend(later.sets.iter().cloned());
        o.without.extend(later.without.iter().copied());
        o.sources.extend(later.sources.iter().cloned());
        o.source_settings
            .extend(later.source_settings.iter().cloned());
        o.services.extend(later.services.iter().cloned());
        o.seed = later.seed.or(o.seed);
        o.sending.extend(later.sending.iter().cloned());
        o
    }
}
