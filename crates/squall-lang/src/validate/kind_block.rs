//! The checks of a block named by its kind (`budget KIND { ... }`,
//! `breaker KIND { ... }`): a known kind, known fields for it, none given
//! twice, the required ones present. Values are checked when resolved
//! (they may be params).

use crate::ast::{BreakerAst, KindBlockAst};
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::model::{
    BudgetSpec, HedgeSpec, LibraryBackoff, LibraryBreakerSpec, LimiterSpec, Pushback, ThrottleSpec,
};
use crate::needs::{Need, Needs};
use crate::twice::Twice;
use crate::unknown::Unknown;

use super::Validator;

impl Validator {
    pub(super) fn check_budget(&mut self, b: &KindBlockAst) {
        self.check_kind_block(b, "budget", BudgetSpec::KINDS);
        for req in BudgetSpec::required_of(&b.kind.name) {
            if !b.fields.iter().any(|(n, _)| n.name == *req) {
                let help = match b.kind.name.as_str() {
                    "grpc" => "gRPC's throttling has no defaults, e.g. `budget grpc { max_tokens 10  token_ratio 0.1 }`",
                    _ => "e.g. `budget token_bucket { size 5  per_call 0.1 }`",
                };
                self.needs_setting(b, "budget", req, help);
            }
        }
    }

    /// `backoff KIND { ... }`: a known library, known fields, gRPC's
    /// required ones present.
    pub(super) fn check_library_backoff(&mut self, b: &KindBlockAst) {
        self.check_kind_block(b, "backoff", LibraryBackoff::KINDS);
        for req in LibraryBackoff::required_of(&b.kind.name) {
            if !b.fields.iter().any(|(n, _)| n.name == *req) {
                self.needs_setting(b, "backoff", req, "gRFC A6 gives its backoff no defaults, e.g. `backoff grpc { initial 100ms  multiplier 2  max 1s }`");
            }
        }
    }

    /// `hedge KIND { ... }`: a known kind, known fields, `max_attempts`.
    pub(super) fn check_hedge(&mut self, b: &KindBlockAst) {
        self.check_kind_block(b, "hedge", HedgeSpec::KINDS);
        if HedgeSpec::KINDS.iter().any(|(k, _)| *k == b.kind.name)
            && !b.fields.iter().any(|(n, _)| n.name == "max_attempts")
        {
            self.needs_setting(
                b,
                "hedge",
                "max_attempts",
                "e.g. `hedge grpc { max_attempts 3  hedging_delay 50ms }`",
            );
        }
    }

    /// `limiter KIND { ... }`: a known kind, known fields, Envoy's two
    /// intervals.
    pub(super) fn check_limiter(&mut self, b: &KindBlockAst) {
        self.check_kind_block(b, "limiter", LimiterSpec::KINDS);
        for req in LimiterSpec::required_of(&b.kind.name) {
            if !b.fields.iter().any(|(n, _)| n.name == *req) {
                self.needs_setting(
                    b,
                    "limiter",
                    req,
                    "Envoy's proto requires both intervals, e.g. `limiter envoy { concurrency_update_interval 100ms  interval 60s }`",
                );
            }
        }
    }

    /// `throttle KIND { ... }`: a known kind, known fields (all have
    /// defaults, except `window` under `clock round`, read when resolved).
    pub(super) fn check_throttle(&mut self, b: &KindBlockAst) {
        self.check_kind_block(b, "throttle", ThrottleSpec::KINDS);
    }

    /// A library `block` `b` lacks its required setting `key`.
    fn needs_setting(&mut self, b: &KindBlockAst, block: &str, key: &str, help: &str) {
        let who = format!("a `{}` {block}", b.kind.name);
        self.err(Needs::new(&who, Need::Key(key)).help(help).at(b.span));
    }

    /// `pushback KIND { ... }`.
    pub(super) fn check_pushback(&mut self, b: &KindBlockAst) {
        self.check_kind_block(b, "pushback", Pushback::KINDS);
    }

    /// A consecutive breaker needs its threshold and its cool-down.
    pub(super) fn check_breaker(&mut self, b: &BreakerAst) {
        let example = "e.g. `breaker { after 3 failures  cooldown 5s }`";
        if b.after.is_none() {
            self.err(
                Needs::new("a `breaker`", Need::Key("after N failures"))
                    .label("no threshold")
                    .help(example)
                    .at(b.span),
            );
        }
        if b.cooldown.is_none() {
            self.err(
                Needs::new("a `breaker`", Need::AKey("cooldown"))
                    .help(example)
                    .at(b.span),
            );
        }
    }

    pub(super) fn check_library_breaker(&mut self, b: &KindBlockAst) {
        self.check_kind_block(b, "breaker", LibraryBreakerSpec::KINDS);
        let has = |f: &str| b.fields.iter().any(|(n, _)| n.name == f);
        if has("window") && has("window_calls") {
            self.err(
                Diagnostic::new(
                    "a resilience4j window counts calls or time, not both",
                    b.span,
                )
                .label("`window` and `window_calls`")
                .help("`window_calls 100` is COUNT_BASED, `window 10s` TIME_BASED"),
            );
        }
    }

    fn check_kind_block(
        &mut self,
        b: &KindBlockAst,
        block: &str,
        table: &'static [(&'static str, &'static [&'static str])],
    ) {
        let kinds = table.iter().map(|(k, _)| *k);
        let Some(fields) = table
            .iter()
            .find(|(k, _)| *k == b.kind.name)
            .map(|(_, f)| *f)
        else {
            let list: Vec<String> = kinds.clone().map(|k| format!("`{k}`")).collect();
            let kind = format!("{block} kind");
            self.err(
                Unknown::new(&kind, &b.kind.name)
                    .label(format!("not a {kind}"))
                    .otherwise(format!("{block} kinds: {}", list.join(", ")))
                    .at(b.kind.span, kinds),
            );
            return;
        };
        for (k, (name, _)) in b.fields.iter().enumerate() {
            if !fields.contains(&name.name.as_str()) {
                let list: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
                self.err(
                    Diagnostic::new(
                        format!("a `{}` {block} has no field `{}`", b.kind.name, name.name),
                        name.span,
                    )
                    .label("unknown field")
                    .help(
                        did_you_mean(&name.name, fields.iter().copied()).unwrap_or_else(|| {
                            if list.is_empty() {
                                format!("a `{}` {block} takes no settings", b.kind.name)
                            } else {
                                format!("its fields: {}", list.join(", "))
                            }
                        }),
                    ),
                );
            } else if b.fields[..k].iter().any(|(n, _)| n.name == name.name) {
                self.err(
                    Twice::InBlock {
                        setting: &name.name,
                        block,
                    }
                    .at(name.span),
                );
            }
        }
    }
}
