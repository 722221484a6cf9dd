//! Composite responses: fields gathered from several nodes, and what to
//! serve when some are missing (the degradation policy and its ledger).

use serde::Serialize;

/// A response made of fields from several nodes, and what to do when some
/// are missing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompositeSpec {
    /// Fields in declaration order.
    pub fields: Vec<FieldSpec>,
    /// Bytes of the freshness marker every present field carries.
    pub marker: u64,
    /// The degradation policy.
    pub policy: Degradation,
    /// The last-known-value ledger.
    pub ledger: Option<LedgerSpec>,
}

/// One field of a composite response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldSpec {
    /// Name.
    pub name: String,
    /// The node it is fetched from.
    pub source: usize,
    /// A core field: without it the response is not worth sending.
    pub core: bool,
    /// Its size in bytes.
    pub bytes: u64,
    /// How long the response waits for it \[ticks, fractional\]; none:
    /// the node's own `timeout`, or no limit (calls that take time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}

/// What a composite response does when fields are not fresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Degradation {
    /// Drop the request unless every field is fresh.
    AllOrNothing,
    /// Drop the request only when a core field is missing; leave missing
    /// optional fields out.
    SkipOptional,
    /// As `SkipOptional`, but a field that is not fresh is served from the
    /// ledger when its last fresh value is recent enough.
    StaleFallback,
}

impl Degradation {
    /// The policy's name in the language.
    pub fn name(self) -> &'static str {
        match self {
            Degradation::AllOrNothing => "all_or_nothing",
            Degradation::SkipOptional => "skip_optional",
            Degradation::StaleFallback => "stale_fallback",
        }
    }

    /// Parses a policy name.
    pub fn parse(s: &str) -> Option<Degradation> {
        Some(match s {
            "all_or_nothing" => Degradation::AllOrNothing,
            "skip_optional" => Degradation::SkipOptional,
            "stale_fallback" => Degradation::StaleFallback,
            _ => return None,
        })
    }
}

/// The last-known-value ledger (yedek defteri).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerSpec {
    /// Entries it holds (for cost estimates).
    pub entries: u64,
    /// The oldest value it serves \[ticks\].
    pub stale_for: u64,
}
