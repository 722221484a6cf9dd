//! A `provider` block: the ceiling, the answers it gives (success,
//! throttles, bad records, unknown codes) and its Retry-After.

use crate::ast::{SendBlockAst, SendSetting};
use crate::diagnostic::Diagnostic;
use crate::model::sending::*;
use crate::needs::{Need, Needs};
use crate::units;

use super::reader::{positive, Parts, Reader};

const PROVIDER_KEYS: [&str; 7] = [
    "ceiling",
    "burst",
    "success",
    "throttle",
    "retry_after",
    "bad",
    "unknown",
];

impl Reader<'_> {
    pub(super) fn provider(
        &mut self,
        b: &SendBlockAst,
        settings: &[&SendSetting],
    ) -> Option<ProviderSpec> {
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
                    Needs::new("a Retry-After date", Need::Epoch { wall_clock: false }).at(s.span),
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
            name: b.name.name.clone(),
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
}
