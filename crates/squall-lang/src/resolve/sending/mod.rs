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

mod adaptive;
mod provider;
mod reader;
mod sender;

use crate::ast::{Ident, SendBlockAst, SendKind, SendSetting};
use crate::decl::{Overrides, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::sending::*;
use crate::model::{Clock, SourceSpec};
use crate::needs::{Need, Needs};
use crate::unknown::Unknown;

use reader::{Reader, REPEATABLE};

use super::Cx;

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
                Needs::new("a sender", Need::WallClock)
                    .because("rates, latencies and Retry-After are in time")
                    .at(self.senders[0].name.span),
            );
            return Err(errs);
        }
        let (start, ticks) = self.run_span(o, &mut errs);
        // The sources that feed senders, read like any source (numbered
        // after the model's sources, as a variant's changes name them).
        let mut fed: Vec<(&str, &str, Option<SourceSpec>)> = Vec::new();
        for (k, f) in self.feeds.iter().enumerate() {
            if let Some(twin) = fed.iter().find(|(s, _, _)| *s == f.sender.name) {
                errs.push(
                    Diagnostic::new(
                        format!(
                            "sender `{}` is fed by source `{}` already",
                            f.sender.name, twin.1
                        ),
                        f.sender.span,
                    )
                    .label("a second source")
                    .help("a sender has one source; give it one with several rates (`rate 5/s during 10s..20s`)"),
                );
                continue;
            }
            let mut cx = Cx {
                o,
                errs: &mut errs,
                start,
                ticks,
                warmup: 0,
            };
            let spec = self.source(self.sources.len() + k, &f.source, &mut cx, &[]);
            fed.push((&f.sender.name, &f.source.name, Some(spec)));
        }
        let mut records = 0u64;
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
            let feed = fed
                .iter_mut()
                .find(|(s, _, _)| *s == sender.name.name)
                .and_then(|(_, source, spec)| Some((*source, spec.take()?)));
            if let Some(spec) = r.sender(sender, &sender_settings, p, ticks, feed) {
                let before = records;
                records = records.saturating_add(spec.records.count);
                if records > MAX_RECORDS && before <= MAX_RECORDS {
                    errs.push(too_many_records(
                        sender,
                        &sender_settings,
                        records,
                        out.is_empty(),
                    ));
                }
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

/// The run's senders hold more records than a run does: located at the
/// `records` of the sender that passes the limit.
fn too_many_records(
    sender: &SendBlockAst,
    settings: &[&SendSetting],
    records: u64,
    alone: bool,
) -> Diagnostic {
    let at = settings
        .iter()
        .find(|s| s.key.name == "records")
        .map_or(sender.name.span, |s| s.span);
    let what = if alone {
        format!("{records} records")
    } else {
        format!("the senders' records add up to {records}")
    };
    Diagnostic::new(format!("{what}; a run holds at most {MAX_RECORDS}"), at)
        .label("too many records")
        .help("scale the study down: fewer records (a shorter run needs fewer)")
}

fn unknown_block(kind: SendKind, id: &Ident, list: &[SendBlockAst]) -> Diagnostic {
    Unknown::new(kind.keyword(), &id.name).at(id.span, list.iter().map(|b| b.name.name.as_str()))
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
