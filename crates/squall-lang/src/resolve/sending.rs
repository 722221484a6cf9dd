//! Sending studies: a scenario's `provider` and `sender` blocks, with a
//! variant's changes, resolved into one [`SendSpec`] per sender.
//!
//! A block's settings are kept as written (a key and its parts); this file
//! knows the keys. A variant's `sender NAME { ... }` (or `provider`)
//! replaces every setting of the keys it names and keeps the others.
//!
//! | block      | key                | parts                                   | default     |
//! |------------|--------------------|-----------------------------------------|-------------|
//! | `provider` | `ceiling`          | a rate                                  | required    |
//! |            | `burst`            | tokens                                  | 1           |
//! |            | `success`          | a code                                  | `200`       |
//! |            | `throttle`         | a code, `weight X` (repeatable)         | required    |
//! |            | `retry_after`      | `none`, `seconds`, `date`               | `none`      |
//! |            | `bad`              | a share (`0.5%`), `as [codes]`          | no bad records |
//! |            | `unknown`          | a share, `as` a code                    | none        |
//! | `sender`   | `records`          | a count, `at` a rate (else all at once) | required    |
//! |            | `senders`          | attempts in flight at once              | 1           |
//! |            | `rate`             | attempts started, at most               | required    |
//! |            | `burst`            | tokens of the pool's bucket             | 1           |
//! |            | `latency`          | a duration                              | 0           |
//! |            | `window_attempts`  | a count, `per` a duration: pool-wide    | no cap      |
//! |            | `client`           | `naive` or `classified`                 | `classified`|
//! |            | `success`          | `[codes]`                               | the provider's success |
//! |            | `terminal`, `retryable` | `[codes]` (first match wins, in order) | none   |
//! |            | `throttles`        | `[codes]`: what the adaptive rate hears | the provider's throttles |
//! |            | `attempts`         | per record                              | required (classified) |
//! |            | `unknown_attempts` | per record, answers of unknown class    | required (classified) |
//! |            | `max_age`          | a duration: per record, in time         | none        |
//! |            | `jitter`           | a duration, `cap` a duration            | required (classified) |
//! |            | `retry_after`      | `honor` or `ignore`                     | `honor`     |
//! |            | `adaptive`         | `none`, `aws_adaptive`, `aimd { ... }`  | `none`      |
//! |            | `bin`              | a duration: the report's series bin     | 1 min       |
//!
//! `aimd { threshold 5%  decrease 0.5  step 0.5/s  every 1s  window 5s
//! min 1/s  max 1000/s }`: every key required. Sending needs a wall clock
//! (`clock ms` or `clock s`).

use crate::ast::{CodeItem, Ident, SendBlockAst, SendKind, SendPart, SendSetting, Value};
use crate::decl::{Overrides, Scenario};
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::model::sending::*;
use crate::model::Clock;
use crate::units;

const PROVIDER_KEYS: [&str; 7] = [
    "ceiling",
    "burst",
    "success",
    "throttle",
    "retry_after",
    "bad",
    "unknown",
];
const SENDER_KEYS: [&str; 18] = [
    "records",
    "senders",
    "rate",
    "burst",
    "latency",
    "window_attempts",
    "client",
    "success",
    "terminal",
    "retryable",
    "throttles",
    "attempts",
    "unknown_attempts",
    "max_age",
    "jitter",
    "retry_after",
    "adaptive",
    "bin",
];
const AIMD_KEYS: [&str; 7] = [
    "threshold",
    "decrease",
    "step",
    "every",
    "window",
    "min",
    "max",
];
/// Keys a block may repeat.
const REPEATABLE: [&str; 1] = ["throttle"];

/// Milliseconds in a minute: the default series bin, the document's query's.
const MINUTE_MS: f64 = 60_000.0;
/// Bins a sender's series may have (each is a row of its report table).
pub const MAX_BINS: u64 = 10_000;

impl Scenario {
    /// Every sender of the run `o`, resolved: `(sender name, study)`, in
    /// declaration order (empty when the file declares none).
    pub fn sending(&self, o: &Overrides) -> Result<Vec<(String, SendSpec)>, Vec<Diagnostic>> {
        let mut errs = Vec::new();
        let mut out = Vec::new();
        for b in &o.sending {
            let list = match b.kind {
                SendKind::Sender => &self.senders,
                SendKind::Provider => &self.providers,
            };
            if !list.iter().any(|d| d.name.name == b.name.name) {
                errs.push(unknown_block(b.kind, &b.name, list));
            }
        }
        if self.senders.is_empty() {
            return if errs.is_empty() { Ok(out) } else { Err(errs) };
        }
        if self.clock == Clock::Round {
            errs.push(
                Diagnostic::new(
                    "a sender needs a wall clock",
                    self.senders[0].name.span,
                )
                .label("under `clock round`")
                .help("write `clock ms` (or `clock s`): rates, latencies and Retry-After are in time"),
            );
            return Err(errs);
        }
        let (_, ticks) = self.run_span(o, &mut errs);
        for sender in &self.senders {
            let sender_settings = merged(sender, o);
            let Some(to) = &sender.to else { continue };
            let Some(provider) = self.providers.iter().find(|p| p.name.name == to.name) else {
                errs.push(unknown_block(SendKind::Provider, to, &self.providers));
                continue;
            };
            let provider_settings = merged(provider, o);
            let mut r = Reader {
                s: self,
                o,
                errs: &mut errs,
            };
            let Some(p) = r.provider(provider, &provider_settings) else {
                continue;
            };
            if let Some(spec) = r.sender(sender, &sender_settings, p, ticks) {
                out.push((sender.name.name.clone(), spec));
            }
        }
        if errs.is_empty() {
            Ok(out)
        } else {
            Err(errs)
        }
    }
}

fn unknown_block(kind: SendKind, id: &Ident, list: &[SendBlockAst]) -> Diagnostic {
    let kw = kind.keyword();
    Diagnostic::new(format!("unknown {kw} `{}`", id.name), id.span)
        .label(format!("no {kw} of this name"))
        .maybe_help(did_you_mean(
            &id.name,
            list.iter().map(|b| b.name.name.as_str()),
        ))
}

/// The block's settings with the run's changes: a change replaces every
/// setting of its key.
fn merged<'a>(b: &'a SendBlockAst, o: &'a Overrides) -> Vec<&'a SendSetting> {
    let changes: Vec<&SendSetting> = o
        .sending
        .iter()
        .filter(|c| c.kind == b.kind && c.name.name == b.name.name)
        .flat_map(|c| c.settings.iter())
        .collect();
    let mut out: Vec<&SendSetting> = b
        .settings
        .iter()
        .filter(|s| !changes.iter().any(|c| c.key.name == s.key.name))
        .collect();
    // Later changes of a key win over earlier ones.
    for (i, c) in changes.iter().enumerate() {
        if !changes[i + 1..].iter().any(|l| l.key.name == c.key.name)
            || REPEATABLE.contains(&c.key.name.as_str())
        {
            out.push(c);
        }
    }
    out
}

/// One setting's parts, read left to right.
struct Parts<'a> {
    set: &'a SendSetting,
    i: usize,
}

impl<'a> Parts<'a> {
    fn next(&mut self) -> Option<&'a SendPart> {
        let p = self.set.parts.get(self.i);
        self.i += 1;
        p
    }

    fn peek_word(&self, w: &str) -> bool {
        matches!(self.set.parts.get(self.i), Some(SendPart::Word(id)) if id.name == w)
    }

    fn missing(&self, what: &str) -> Diagnostic {
        Diagnostic::new(
            format!("`{}` takes {what}", self.set.key.name),
            self.set.span,
        )
        .label(format!("expected {what}"))
    }
}

fn part_span(p: &SendPart) -> crate::span::Span {
    match p {
        SendPart::Word(id) => id.span,
        SendPart::Value(v) => v.span,
        SendPart::Percent(_, s)
        | SendPart::Hex(_, s)
        | SendPart::Codes(_, s)
        | SendPart::Block(_, s) => *s,
    }
}

struct Reader<'a> {
    s: &'a Scenario,
    o: &'a Overrides,
    errs: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    fn keep<T>(&mut self, r: Result<T, Diagnostic>) -> Option<T> {
        r.map_err(|d| self.errs.push(d)).ok()
    }

    /// Checks keys (known, said once) and returns the settings by key.
    fn check_keys<'b>(
        &mut self,
        what: &str,
        settings: &[&'b SendSetting],
        keys: &[&str],
    ) -> Vec<&'b SendSetting> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for s in settings {
            let k = s.key.name.as_str();
            if !keys.contains(&k) {
                self.errs.push(
                    Diagnostic::new(format!("unknown setting `{k}` in {what}"), s.key.span)
                        .label("not a setting here")
                        .help(
                            did_you_mean(k, keys.iter().copied())
                                .unwrap_or_else(|| format!("{what} takes {}", keys.join(", "))),
                        ),
                );
                continue;
            }
            if seen.contains(&k) && !REPEATABLE.contains(&k) {
                self.errs.push(
                    Diagnostic::new(format!("`{k}` is set twice in {what}"), s.key.span)
                        .label("said again")
                        .help("keep one"),
                );
                continue;
            }
            seen.push(k);
            out.push(*s);
        }
        out
    }

    fn find<'b>(settings: &[&'b SendSetting], key: &str) -> Option<&'b SendSetting> {
        settings.iter().copied().find(|s| s.key.name == key)
    }

    fn required<'b>(
        &mut self,
        what: &str,
        at: &Ident,
        settings: &[&'b SendSetting],
        key: &str,
        example: &str,
    ) -> Option<&'b SendSetting> {
        let found = Self::find(settings, key);
        if found.is_none() {
            self.errs.push(
                Diagnostic::new(format!("{what} has no `{key}`"), at.span)
                    .label(format!("`{key}` missing"))
                    .help(format!("add e.g. `{example}`")),
            );
        }
        found
    }

    fn value<'p>(&mut self, parts: &mut Parts<'p>, what: &str) -> Option<&'p Value> {
        match parts.next() {
            Some(SendPart::Value(v)) => Some(v),
            Some(other) => {
                let d = Diagnostic::new(
                    format!("`{}` takes {what}", parts.set.key.name),
                    part_span(other),
                )
                .label(format!("expected {what}"));
                self.errs.push(d);
                None
            }
            None => {
                let d = parts.missing(what);
                self.errs.push(d);
                None
            }
        }
    }

    fn end(&mut self, parts: &mut Parts<'_>) {
        if let Some(p) = parts.next() {
            self.errs.push(
                Diagnostic::new(
                    format!("too much after `{}`", parts.set.key.name),
                    part_span(p),
                )
                .label("not expected here"),
            );
        }
    }

    /// A setting of one value, converted by `f`.
    fn single<T>(
        &mut self,
        s: &SendSetting,
        what: &str,
        f: impl FnOnce(&Value) -> Result<T, Diagnostic>,
    ) -> Option<T> {
        let mut parts = Parts { set: s, i: 0 };
        let v = self.value(&mut parts, what)?;
        self.end(&mut parts);
        let r = self.s.conv(v, self.o, f);
        self.keep(r)
    }

    fn rate(&mut self, s: &SendSetting) -> Option<f64> {
        let clock = self.s.clock;
        let what = format!("`{}`", s.key.name);
        self.single(s, "a rate such as `12/s`", |v| {
            units::per_tick(v, clock, &what).and_then(|r| positive(r, v, &what))
        })
    }

    fn duration(&mut self, s: &SendSetting) -> Option<f64> {
        let clock = self.s.clock;
        let what = format!("`{}`", s.key.name);
        self.single(s, "a duration such as `80ms`", |v| {
            units::fine_ticks(v, clock, &what)
        })
    }

    fn count(&mut self, s: &SendSetting) -> Option<u64> {
        let what = format!("`{}`", s.key.name);
        self.single(s, "a whole number", |v| units::count(v, &what))
    }

    fn real(&mut self, s: &SendSetting) -> Option<f64> {
        let what = format!("`{}`", s.key.name);
        self.single(s, "a number", |v| units::real(v, &what))
    }

    fn word<'p>(&mut self, s: &'p SendSetting, choices: &[&str]) -> Option<&'p str> {
        let mut parts = Parts { set: s, i: 0 };
        let got = match parts.next() {
            Some(SendPart::Word(id)) if choices.contains(&id.name.as_str()) => {
                Some(id.name.as_str())
            }
            Some(p) => {
                self.errs.push(
                    Diagnostic::new(
                        format!("`{}` takes {}", s.key.name, one_of(choices)),
                        part_span(p),
                    )
                    .label("not one of these"),
                );
                None
            }
            None => {
                let d = parts.missing(&one_of(choices));
                self.errs.push(d);
                None
            }
        };
        if got.is_some() {
            self.end(&mut parts);
        }
        got
    }

    /// A code standing alone: `429` or `0x58`.
    fn code(&mut self, parts: &mut Parts<'_>) -> Option<ProviderCode> {
        match parts.next() {
            Some(SendPart::Hex(c, _)) => Some(ProviderCode::Protocol(*c)),
            Some(SendPart::Value(v)) => {
                let r = self.s.conv(v, self.o, http_code);
                self.keep(r)
            }
            Some(p) => {
                self.errs.push(
                    Diagnostic::new(
                        format!(
                            "`{}` takes a code such as `429` or `0x58`",
                            parts.set.key.name
                        ),
                        part_span(p),
                    )
                    .label("not a code"),
                );
                None
            }
            None => {
                let d = parts.missing("a code such as `429` or `0x58`");
                self.errs.push(d);
                None
            }
        }
    }

    fn code_list(&mut self, s: &SendSetting) -> Option<Vec<CodeMatch>> {
        let mut parts = Parts { set: s, i: 0 };
        let list = self.codes_part(&mut parts)?;
        self.end(&mut parts);
        Some(list)
    }

    fn codes_part(&mut self, parts: &mut Parts<'_>) -> Option<Vec<CodeMatch>> {
        match parts.next() {
            Some(SendPart::Codes(items, _)) => items.iter().map(|i| self.code_item(i)).collect(),
            Some(p) => {
                self.errs.push(
                    Diagnostic::new(
                        format!(
                            "`{}` takes a list of codes such as `[400, 500..599, 0x58]`",
                            parts.set.key.name
                        ),
                        part_span(p),
                    )
                    .label("expected `[...]`"),
                );
                None
            }
            None => {
                let d = parts.missing("a list of codes such as `[400, 0x58]`");
                self.errs.push(d);
                None
            }
        }
    }

    fn code_item(&mut self, i: &CodeItem) -> Option<CodeMatch> {
        let lit = |c: &crate::ast::CodeLit| -> Result<ProviderCode, Diagnostic> {
            if c.hex {
                Ok(ProviderCode::Protocol(c.code))
            } else {
                u16::try_from(c.code)
                    .ok()
                    .filter(|s| (100..=999).contains(s))
                    .map(ProviderCode::Http)
                    .ok_or_else(|| not_http(c.code, c.span))
            }
        };
        let from = lit(&i.from);
        let from = self.keep(from)?;
        let Some(to) = &i.to else {
            return Some(CodeMatch::Exact(from));
        };
        let to_code = lit(to);
        let to_code = self.keep(to_code)?;
        match (from, to_code) {
            (ProviderCode::Http(a), ProviderCode::Http(b)) if a <= b => {
                Some(CodeMatch::HttpRange(a, b))
            }
            _ => {
                self.errs.push(
                    Diagnostic::new(
                        "a range of codes runs from a lower HTTP status to a higher one",
                        i.span,
                    )
                    .label("not an HTTP range")
                    .help("e.g. `500..599`; list protocol codes one by one"),
                );
                None
            }
        }
    }

    /// A share: `5%` or a number in [0, 1].
    fn share(&mut self, parts: &mut Parts<'_>) -> Option<f64> {
        let key = parts.set.key.name.clone();
        let (x, span) = match parts.next() {
            Some(SendPart::Percent(n, span)) => (n / 100.0, *span),
            Some(SendPart::Value(v)) => {
                let what = format!("`{key}`");
                let r = self.s.conv(v, self.o, |v| units::real(v, &what));
                (self.keep(r)?, v.span)
            }
            Some(p) => {
                self.errs.push(
                    Diagnostic::new(
                        format!("`{key}` takes a share such as `0.5%` or `0.005`"),
                        part_span(p),
                    )
                    .label("not a share"),
                );
                return None;
            }
            None => {
                let d = parts.missing("a share such as `0.5%`");
                self.errs.push(d);
                return None;
            }
        };
        if !(0.0..=1.0).contains(&x) {
            self.errs.push(
                Diagnostic::new(format!("`{key}` is a share from 0 to 100 %"), span)
                    .label("out of range"),
            );
            return None;
        }
        Some(x)
    }

    fn expect_word(&mut self, parts: &mut Parts<'_>, w: &str, example: &str) -> bool {
        if parts.peek_word(w) {
            parts.i += 1;
            true
        } else {
            let span = parts
                .set
                .parts
                .get(parts.i)
                .map_or(parts.set.span, part_span);
            self.errs.push(
                Diagnostic::new(format!("`{}` needs `{w}` here", parts.set.key.name), span)
                    .label(format!("expected `{w}`"))
                    .help(format!("e.g. `{example}`")),
            );
            false
        }
    }

    fn provider(&mut self, b: &SendBlockAst, settings: &[&SendSetting]) -> Option<ProviderSpec> {
        let what = format!("provider `{}`", b.name.name);
        let settings = self.check_keys(&what, settings, &PROVIDER_KEYS);
        let before = self.errs.len();
        let ceiling = self
            .required(&what, &b.name, &settings, "ceiling", "ceiling 12/s")
            .and_then(|s| self.rate(s));
        let burst = Self::find(&settings, "burst").map_or(Some(1.0), |s| self.real(s));
        let success = match Self::find(&settings, "success") {
            Some(s) => {
                let mut parts = Parts { set: s, i: 0 };
                let c = self.code(&mut parts);
                self.end(&mut parts);
                c
            }
            None => Some(ProviderCode::Http(200)),
        };
        let mut throttles = Vec::new();
        for s in settings.iter().filter(|s| s.key.name == "throttle") {
            let mut parts = Parts { set: s, i: 0 };
            let Some(code) = self.code(&mut parts) else {
                continue;
            };
            let mut weight = 1.0;
            if parts.peek_word("weight") {
                parts.i += 1;
                if let Some(v) = self.value(&mut parts, "a weight") {
                    let r = self.s.conv(v, self.o, |v| {
                        units::real(v, "a weight").and_then(|w| positive(w, v, "a weight"))
                    });
                    weight = self.keep(r).unwrap_or(1.0);
                }
            }
            self.end(&mut parts);
            throttles.push((code, weight));
        }
        if throttles.is_empty() {
            self.required(&what, &b.name, &settings, "throttle", "throttle 429");
        }
        let retry_after = match Self::find(&settings, "retry_after") {
            Some(s) => match self.word(s, &["none", "seconds", "date"]) {
                Some("seconds") => RetryAfterForm::Seconds,
                Some("date") => RetryAfterForm::Date,
                _ => RetryAfterForm::None,
            },
            None => RetryAfterForm::None,
        };
        if retry_after == RetryAfterForm::Date && self.s.epoch.is_none() {
            if let Some(s) = Self::find(&settings, "retry_after") {
                self.errs.push(
                    Diagnostic::new("a Retry-After date needs the scenario's `epoch`", s.span)
                        .label("a date, but no epoch")
                        .help("add `epoch \"2026-01-14T09:00:00Z\"` (the UTC time of tick 0)"),
                );
            }
        }
        let (mut bad_share, mut bad_codes) = (0.0, Vec::new());
        if let Some(s) = Self::find(&settings, "bad") {
            let mut parts = Parts { set: s, i: 0 };
            if let Some(x) = self.share(&mut parts) {
                bad_share = x;
            }
            if self.expect_word(&mut parts, "as", "bad 0.5% as [400, 404]") {
                if let Some(list) = self.codes_part(&mut parts) {
                    for m in list {
                        match m {
                            CodeMatch::Exact(c) => bad_codes.push(c),
                            CodeMatch::HttpRange(..) => self.errs.push(
                                Diagnostic::new("bad records answer codes, not ranges", s.span)
                                    .label("a range")
                                    .help("list the codes: `as [400, 404]`"),
                            ),
                        }
                    }
                }
            }
            self.end(&mut parts);
        }
        let (mut unknown_share, mut unknown_code) = (0.0, ProviderCode::Http(200));
        if let Some(s) = Self::find(&settings, "unknown") {
            let mut parts = Parts { set: s, i: 0 };
            if let Some(x) = self.share(&mut parts) {
                unknown_share = x;
            }
            if self.expect_word(&mut parts, "as", "unknown 1% as 418") {
                if let Some(c) = self.code(&mut parts) {
                    unknown_code = c;
                }
            }
            self.end(&mut parts);
        }
        if self.errs.len() > before {
            return None;
        }
        Some(ProviderSpec {
            ceiling: ceiling?,
            burst: burst?,
            success: success?,
            throttles,
            retry_after,
            bad_share,
            bad_codes,
            unknown_share,
            unknown_code,
        })
    }

    fn sender(
        &mut self,
        b: &SendBlockAst,
        settings: &[&SendSetting],
        provider: ProviderSpec,
        ticks: u64,
    ) -> Option<SendSpec> {
        let what = format!("sender `{}`", b.name.name);
        let settings = self.check_keys(&what, settings, &SENDER_KEYS);
        let before = self.errs.len();
        let clock = self.s.clock;
        let records = self
            .required(&what, &b.name, &settings, "records", "records 48000")
            .and_then(|s| {
                let mut parts = Parts { set: s, i: 0 };
                let v = self.value(&mut parts, "a count of records")?;
                let r = self.s.conv(v, self.o, |v| units::count(v, "`records`"));
                let count = self.keep(r)?;
                let mut rate = None;
                if parts.peek_word("at") {
                    parts.i += 1;
                    let v = self.value(&mut parts, "a rate such as `14/s`")?;
                    let r = self.s.conv(v, self.o, |v| {
                        units::per_tick(v, clock, "the records' rate")
                            .and_then(|r| positive(r, v, "the records' rate"))
                    });
                    rate = Some(self.keep(r)?);
                }
                self.end(&mut parts);
                Some(RecordsSpec { count, rate })
            });
        let senders = Self::find(&settings, "senders").map_or(Some(1), |s| self.count(s));
        if let (Some(0), Some(s)) = (senders, Self::find(&settings, "senders")) {
            self.errs.push(
                Diagnostic::new("a pool needs at least one sender", s.span).label("no senders"),
            );
        }
        let rate = self
            .required(&what, &b.name, &settings, "rate", "rate 18/s")
            .and_then(|s| self.rate(s));
        let burst = Self::find(&settings, "burst").map_or(Some(1.0), |s| self.real(s));
        let latency = Self::find(&settings, "latency").map_or(Some(0.0), |s| self.duration(s));
        let window_cap = match Self::find(&settings, "window_attempts") {
            None => Some(None),
            Some(s) => {
                let mut parts = Parts { set: s, i: 0 };
                let n = self.value(&mut parts, "a count of attempts").and_then(|v| {
                    let r = self.s.conv(v, self.o, |v| {
                        units::count(v, "`window_attempts`").and_then(|n| {
                            if n == 0 {
                                Err(
                                    Diagnostic::new("a window of 0 attempts never sends", v.span)
                                        .label("zero")
                                        .help("give at least 1"),
                                )
                            } else {
                                Ok(n)
                            }
                        })
                    });
                    self.keep(r)
                });
                let w = if self.expect_word(&mut parts, "per", "window_attempts 600 per 1min") {
                    self.value(&mut parts, "a duration such as `1min`")
                        .and_then(|v| {
                            let r = self.s.conv(v, self.o, |v| {
                                units::fine_ticks(v, clock, "the window")
                                    .and_then(|t| positive(t, v, "the window"))
                            });
                            self.keep(r)
                        })
                } else {
                    None
                };
                self.end(&mut parts);
                match (n, w) {
                    (Some(attempts), Some(window)) => Some(Some(WindowCap { attempts, window })),
                    _ => None,
                }
            }
        };
        let client_word = Self::find(&settings, "client").map_or(Some("classified"), |s| {
            self.word(s, &["naive", "classified"])
        });
        let success = match Self::find(&settings, "success") {
            Some(s) => self.code_list(s),
            None => Some(vec![CodeMatch::Exact(provider.success)]),
        };
        let tick_ms = clock.tick_millis().unwrap_or(1) as f64;
        let bin = match Self::find(&settings, "bin") {
            Some(s) => self.duration(s).and_then(|t| {
                if t >= 1.0 && t.fract() == 0.0 {
                    Some(t as u64)
                } else {
                    self.errs.push(
                        Diagnostic::new("the bin is a whole number of ticks, at least one", s.span)
                            .label("not whole ticks"),
                    );
                    None
                }
            }),
            None => Some(((MINUTE_MS / tick_ms).round() as u64).max(1)),
        };
        if let Some(width) = bin {
            let bins = ticks.div_ceil(width.max(1));
            if bins > MAX_BINS {
                let at = Self::find(&settings, "bin").map_or(b.name.span, |s| s.span);
                self.errs.push(
                    Diagnostic::new(
                        format!(
                            "the run has {bins} bins of the sender's series; at most {MAX_BINS}"
                        ),
                        at,
                    )
                    .label("too many bins")
                    .help("widen them: `bin 10min`"),
                );
            }
        }
        // The naive client ignores the classified client's settings, so a
        // variant can switch a sender to it with `client naive` alone.
        let client = match client_word {
            Some("naive") => success.clone().map(|success| ClientSpec::Naive { success }),
            Some(_) => self
                .classified(&what, b, &settings, &provider, success.clone())
                .map(ClientSpec::Classified),
            None => None,
        };
        let adaptive = match Self::find(&settings, "adaptive") {
            Some(s) if client_word != Some("naive") => self.adaptive(s),
            _ => Some(None),
        };
        if self.errs.len() > before {
            return None;
        }
        Some(SendSpec {
            clock,
            ticks,
            seed: self.o.seed.unwrap_or(self.s.seed),
            bin: bin?,
            records: records?,
            pool: PoolSpec {
                senders: u32::try_from(senders?).unwrap_or(u32::MAX),
                rate: rate?,
                burst: burst?,
                latency: latency?,
                window_cap: window_cap?,
            },
            provider,
            client: client?,
            adaptive: adaptive?,
        })
    }

    fn classified(
        &mut self,
        what: &str,
        b: &SendBlockAst,
        settings: &[&SendSetting],
        provider: &ProviderSpec,
        success: Option<Vec<CodeMatch>>,
    ) -> Option<ClassifiedSpec> {
        let mut rules: Vec<(CodeMatch, CodeClass)> = success?
            .into_iter()
            .map(|m| (m, CodeClass::Success))
            .collect();
        for s in settings {
            let class = match s.key.name.as_str() {
                "terminal" => CodeClass::Terminal,
                "retryable" => CodeClass::Retryable,
                _ => continue,
            };
            for m in self.code_list(s)? {
                rules.push((m, class));
            }
        }
        let throttles = match Self::find(settings, "throttles") {
            Some(s) => self.code_list(s)?,
            None => provider
                .throttles
                .iter()
                .map(|(c, _)| CodeMatch::Exact(*c))
                .collect(),
        };
        let max_attempts = self
            .required(what, &b.name, settings, "attempts", "attempts 8")
            .and_then(|s| self.count(s));
        let unknown_attempts = self
            .required(
                what,
                &b.name,
                settings,
                "unknown_attempts",
                "unknown_attempts 2",
            )
            .and_then(|s| self.count(s));
        let max_age = match Self::find(settings, "max_age") {
            Some(s) => Some(Some(self.duration(s)?)),
            None => Some(None),
        };
        let jitter = self
            .required(what, &b.name, settings, "jitter", "jitter 500ms cap 60s")
            .and_then(|s| {
                let clock = self.s.clock;
                let mut parts = Parts { set: s, i: 0 };
                let base = self.value(&mut parts, "a first window such as `500ms`")?;
                let base = self.s.conv(base, self.o, |v| {
                    units::fine_ticks(v, clock, "the jitter's first window")
                });
                let base = self.keep(base)?;
                if !self.expect_word(&mut parts, "cap", "jitter 500ms cap 60s") {
                    return None;
                }
                let cap = self.value(&mut parts, "a largest window such as `60s`")?;
                let cap = self.s.conv(cap, self.o, |v| {
                    units::fine_ticks(v, clock, "the jitter's cap")
                });
                let cap = self.keep(cap)?;
                self.end(&mut parts);
                Some((base, cap))
            });
        let honor = match Self::find(settings, "retry_after") {
            Some(s) => self.word(s, &["honor", "ignore"]).map(|w| w == "honor"),
            None => Some(true),
        };
        let (max_attempts, unknown_attempts) = (max_attempts?, unknown_attempts?);
        let (jitter_base, jitter_cap) = jitter?;
        Some(ClassifiedSpec {
            classifier: Classifier { rules },
            throttles,
            max_attempts: u32::try_from(max_attempts.max(1)).unwrap_or(u32::MAX),
            unknown_attempts: u32::try_from(unknown_attempts.max(1)).unwrap_or(u32::MAX),
            max_age: max_age?,
            jitter_base,
            jitter_cap,
            honor_retry_after: honor?,
        })
    }

    fn adaptive(&mut self, s: &SendSetting) -> Option<Option<AdaptiveSpec>> {
        let kinds = ["none", "aws_adaptive", "aimd"];
        let mut parts = Parts { set: s, i: 0 };
        let kind = match parts.next() {
            Some(SendPart::Word(id)) if kinds.contains(&id.name.as_str()) => id.name.as_str(),
            Some(p) => {
                self.errs.push(
                    Diagnostic::new(format!("`adaptive` takes {}", one_of(&kinds)), part_span(p))
                        .label("not an adaptive kind"),
                );
                return None;
            }
            None => {
                let d = parts.missing(&one_of(&kinds));
                self.errs.push(d);
                return None;
            }
        };
        match kind {
            "none" => {
                self.end(&mut parts);
                Some(None)
            }
            "aws_adaptive" => {
                self.end(&mut parts);
                Some(Some(AdaptiveSpec::AwsAdaptive))
            }
            _ => {
                let Some(SendPart::Block(inner, _)) = parts.next() else {
                    self.errs.push(
                        Diagnostic::new("`adaptive aimd` takes its settings in a block", s.span)
                            .label("expected `{ ... }`")
                            .help("e.g. `adaptive aimd { threshold 5%  decrease 0.5  step 0.5/s  every 1s  window 5s  min 1/s  max 100/s }`"),
                    );
                    return None;
                };
                self.end(&mut parts);
                let refs: Vec<&SendSetting> = inner.iter().collect();
                let at = &s.key;
                let settings = self.check_keys("`aimd`", &refs, &AIMD_KEYS);
                let clock = self.s.clock;
                let sec = clock.tick_millis().unwrap_or(1000) as f64 / 1000.0;
                let per_s = |r: f64| r / sec;
                let secs = |t: f64| t * sec;
                let threshold = self
                    .required("`aimd`", at, &settings, "threshold", "threshold 5%")
                    .and_then(|s| {
                        let mut p = Parts { set: s, i: 0 };
                        let x = self.share(&mut p);
                        self.end(&mut p);
                        x
                    });
                let decrease = self
                    .required("`aimd`", at, &settings, "decrease", "decrease 0.5")
                    .and_then(|s| self.real(s));
                let step = self
                    .required("`aimd`", at, &settings, "step", "step 0.5/s")
                    .and_then(|s| self.rate(s))
                    .map(per_s);
                let every = self
                    .required("`aimd`", at, &settings, "every", "every 1s")
                    .and_then(|s| self.duration(s))
                    .map(secs);
                let window = self
                    .required("`aimd`", at, &settings, "window", "window 5s")
                    .and_then(|s| self.duration(s))
                    .map(secs);
                let min = self
                    .required("`aimd`", at, &settings, "min", "min 1/s")
                    .and_then(|s| self.rate(s))
                    .map(per_s);
                let max = self
                    .required("`aimd`", at, &settings, "max", "max 100/s")
                    .and_then(|s| self.rate(s))
                    .map(per_s);
                if let (Some(d), Some(s)) = (decrease, Self::find(&settings, "decrease")) {
                    if !(d > 0.0 && d < 1.0) {
                        self.errs.push(
                            Diagnostic::new(
                                "`decrease` is a factor between 0 and 1 (0.5 halves)",
                                s.span,
                            )
                            .label("out of range"),
                        );
                        return None;
                    }
                }
                Some(Some(AdaptiveSpec::Aimd(AimdSpec {
                    threshold: threshold?,
                    decrease: decrease?,
                    step: step?,
                    every: every?,
                    window: window?,
                    min: min?,
                    max: max?,
                })))
            }
        }
    }
}

fn one_of(choices: &[&str]) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

fn positive(x: f64, v: &Value, what: &str) -> Result<f64, Diagnostic> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(Diagnostic::new(format!("{what} must be above zero"), v.span).label("zero"))
    }
}

fn not_http(code: u32, span: crate::span::Span) -> Diagnostic {
    Diagnostic::new(format!("`{code}` is not an HTTP status"), span)
        .label("not from 100 to 999")
        .help("an HTTP status such as `429`; a protocol's code is written in hex, such as `0x58`")
}

fn http_code(v: &Value) -> Result<ProviderCode, Diagnostic> {
    let n = units::count(v, "a code")?;
    u16::try_from(n)
        .ok()
        .filter(|s| (100..=999).contains(s))
        .map(ProviderCode::Http)
        .ok_or_else(|| not_http(u32::try_from(n).unwrap_or(u32::MAX), v.span))
}
