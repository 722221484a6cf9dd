//! Seeds: one root seed per scenario, a derived seed per run and component.
//!
//! A run's seed is derived from the scenario's `seed` and the run's label
//! (`variant/<name>`, `point/<settings>` for a sweep point, the settings
//! sorted by name, or `variant/<name>/point/<settings>` for a point on a
//! variant; see `Scenario::run_seed`), so every variant and sweep point has
//! its own random stream and no result depends on which thread ran it, on
//! the order of the values, or on which other runs exist. Inside a run, each component
//! derives its own stream the same way (`source/<index>`, `rng/<name>`).
//! A generator declared with an explicit `seed` ignores all of this and
//! starts from that seed in every run (common random numbers).
//!
//! Two more sources of a run's seed: a sweep point with a `seed` axis
//! derives from that value instead of the scenario's `seed`, and with
//! `replications N` replication `r` (2 to N) of a run derives
//! `replication/<r>` from the run's seed (`Scenario::replication_seed`;
//! replication 1 is the run itself).

/// One SplitMix64 step.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A child seed from a root seed and a label: FNV-1a over the label, mixed
/// into the root, then two SplitMix64 rounds.
pub fn derive_seed(root: u64, label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut s = root ^ h;
    splitmix64(&mut s);
    splitmix64(&mut s)
}
