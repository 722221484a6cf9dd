//! A sender's `adaptive` rate: `none`, `aws_adaptive`, or `aimd { ... }`.

use crate::ast::{SendPart, SendSetting};
use crate::diagnostic::Diagnostic;
use crate::model::sending::*;

use super::reader::{one_of, part_span, Parts, Reader};

const AIMD_KEYS: [&str; 7] = [
    "threshold",
    "decrease",
    "step",
    "every",
    "window",
    "min",
    "max",
];

impl Reader<'_> {
    pub(super) fn adaptive(&mut self, s: &SendSetting) -> Option<Option<AdaptiveSpec>> {
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
