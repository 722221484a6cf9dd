//! Reading a sending block's settings: its keys, and each setting's parts
//! (values, words, codes, shares) left to right, with a located diagnostic
//! for each part that does not fit.

use crate::ast::{CodeItem, Ident, SendPart, SendSetting, Value};
use crate::decl::{Overrides, Scenario};
use crate::diagnostic::Diagnostic;
use crate::model::sending::*;
use crate::needs::{Need, Needs};
use crate::not_a::{NotA, Takes};
use crate::units;
use crate::unknown::Unknown;

/// Keys a block may repeat.
pub(super) const REPEATABLE: [&str; 1] = ["throttle"];

/// One setting's parts, read left to right.
pub(super) struct Parts<'a> {
    pub(super) set: &'a SendSetting,
    pub(super) i: usize,
}

impl<'a> Parts<'a> {
    pub(super) fn next(&mut self) -> Option<&'a SendPart> {
        let p = self.set.parts.get(self.i);
        self.i += 1;
        p
    }

    pub(super) fn peek_word(&self, w: &str) -> bool {
        matches!(self.set.parts.get(self.i), Some(SendPart::Word(id)) if id.name == w)
    }

    pub(super) fn missing(&self, what: &str) -> Diagnostic {
        self.takes(what).at(self.set.span)
    }

    /// The setting takes `what` (`` a share such as `0.5%` ``).
    pub(super) fn takes<'w>(&self, what: &'w str) -> Takes<'w> {
        Takes::new(format!("`{}`", self.set.key.name), what)
    }
}

pub(super) fn part_span(p: &SendPart) -> crate::span::Span {
    match p {
        SendPart::Word(id) => id.span,
        SendPart::Value(v) => v.span,
        SendPart::Percent(_, s)
        | SendPart::Hex(_, s)
        | SendPart::Codes(_, s)
        | SendPart::Block(_, s) => *s,
    }
}

pub(super) struct Reader<'a> {
    pub(super) s: &'a Scenario,
    pub(super) o: &'a Overrides,
    pub(super) errs: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    pub(super) fn keep<T>(&mut self, r: Result<T, Diagnostic>) -> Option<T> {
        r.map_err(|d| self.errs.push(d)).ok()
    }

    /// Checks keys (known, said once) and returns the settings by key.
    pub(super) fn check_keys<'b>(
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
                    Unknown::new("setting", k)
                        .within(format!("in {what}"))
                        .label("not a setting here")
                        .otherwise(format!("{what} takes {}", keys.join(", ")))
                        .at(s.key.span, keys.iter().copied()),
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

    pub(super) fn find<'b>(settings: &[&'b SendSetting], key: &str) -> Option<&'b SendSetting> {
        settings.iter().copied().find(|s| s.key.name == key)
    }

    pub(super) fn required<'b>(
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
                Needs::new(what, Need::Key(key))
                    .help(format!("add e.g. `{example}`"))
                    .at(at.span),
            );
        }
        found
    }

    pub(super) fn value<'p>(&mut self, parts: &mut Parts<'p>, what: &str) -> Option<&'p Value> {
        match parts.next() {
            Some(SendPart::Value(v)) => Some(v),
            Some(other) => {
                let d = parts.takes(what).at(part_span(other));
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

    pub(super) fn end(&mut self, parts: &mut Parts<'_>) {
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
    pub(super) fn single<T>(
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

    pub(super) fn rate(&mut self, s: &SendSetting) -> Option<f64> {
        let clock = self.s.clock;
        let what = format!("`{}`", s.key.name);
        self.single(s, "a rate such as `12/s`", |v| {
            units::per_tick(v, clock, &what).and_then(|r| positive(r, v, &what))
        })
    }

    pub(super) fn duration(&mut self, s: &SendSetting) -> Option<f64> {
        let clock = self.s.clock;
        let what = format!("`{}`", s.key.name);
        self.single(s, "a duration such as `80ms`", |v| {
            units::fine_ticks(v, clock, &what)
        })
    }

    pub(super) fn count(&mut self, s: &SendSetting) -> Option<u64> {
        let what = format!("`{}`", s.key.name);
        self.single(s, "a whole number", |v| units::count(v, &what))
    }

    pub(super) fn real(&mut self, s: &SendSetting) -> Option<f64> {
        let what = format!("`{}`", s.key.name);
        self.single(s, "a number", |v| units::real(v, &what))
    }

    pub(super) fn word<'p>(&mut self, s: &'p SendSetting, choices: &[&str]) -> Option<&'p str> {
        let mut parts = Parts { set: s, i: 0 };
        let got = match parts.next() {
            Some(SendPart::Word(id)) if choices.contains(&id.name.as_str()) => {
                Some(id.name.as_str())
            }
            Some(p) => {
                let choices = one_of(choices);
                self.errs.push(parts.takes(&choices).at(part_span(p)));
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
    pub(super) fn code(&mut self, parts: &mut Parts<'_>) -> Option<ProviderCode> {
        match parts.next() {
            Some(SendPart::Hex(c, _)) => Some(ProviderCode::Protocol(*c)),
            Some(SendPart::Value(v)) => {
                let r = self.s.conv(v, self.o, http_code);
                self.keep(r)
            }
            Some(p) => {
                let code = parts.takes("a code").such_as("`429` or `0x58`");
                self.errs.push(code.at(part_span(p)));
                None
            }
            None => {
                let d = parts.missing("a code such as `429` or `0x58`");
                self.errs.push(d);
                None
            }
        }
    }

    pub(super) fn code_list(&mut self, s: &SendSetting) -> Option<Vec<CodeMatch>> {
        let mut parts = Parts { set: s, i: 0 };
        let list = self.codes_part(&mut parts)?;
        self.end(&mut parts);
        Some(list)
    }

    pub(super) fn codes_part(&mut self, parts: &mut Parts<'_>) -> Option<Vec<CodeMatch>> {
        match parts.next() {
            Some(SendPart::Codes(items, _)) => items.iter().map(|i| self.code_item(i)).collect(),
            Some(p) => {
                let list = parts.takes("a list of codes");
                let list = list.such_as("`[400, 500..599, 0x58]`");
                self.errs.push(list.at(part_span(p)));
                None
            }
            None => {
                let d = parts.missing("a list of codes such as `[400, 0x58]`");
                self.errs.push(d);
                None
            }
        }
    }

    pub(super) fn code_item(&mut self, i: &CodeItem) -> Option<CodeMatch> {
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
    pub(super) fn share(&mut self, parts: &mut Parts<'_>) -> Option<f64> {
        let key = parts.set.key.name.clone();
        let (x, span) = match parts.next() {
            Some(SendPart::Percent(n, span)) => (n / 100.0, *span),
            Some(SendPart::Value(v)) => {
                let what = format!("`{key}`");
                let r = self.s.conv(v, self.o, |v| units::real(v, &what));
                (self.keep(r)?, v.span)
            }
            Some(p) => {
                let share = parts.takes("a share").such_as("`0.5%` or `0.005`");
                self.errs.push(share.at(part_span(p)));
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

    pub(super) fn expect_word(&mut self, parts: &mut Parts<'_>, w: &str, example: &str) -> bool {
        if parts.peek_word(w) {
            parts.i += 1;
            true
        } else {
            let span = parts
                .set
                .parts
                .get(parts.i)
                .map_or(parts.set.span, part_span);
            let who = format!("`{}`", parts.set.key.name);
            self.errs.push(
                Needs::new(&who, Need::Key(w))
                    .label(format!("expected `{w}` here"))
                    .help(format!("e.g. `{example}`"))
                    .at(span),
            );
            false
        }
    }
}

pub(super) fn one_of(choices: &[&str]) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

pub(super) fn positive(x: f64, v: &Value, what: &str) -> Result<f64, Diagnostic> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(Diagnostic::new(format!("{what} must be above zero"), v.span).label("zero"))
    }
}

pub(super) fn not_http(code: u32, span: crate::span::Span) -> Diagnostic {
    NotA::new(&code.to_string(), "an HTTP status")
        .label("not from 100 to 999")
        .help("an HTTP status such as `429`; a protocol's code is written in hex, such as `0x58`")
        .at(span)
}

pub(super) fn http_code(v: &Value) -> Result<ProviderCode, Diagnostic> {
    let n = units::count(v, "a code")?;
    u16::try_from(n)
        .ok()
        .filter(|s| (100..=999).contains(s))
        .map(ProviderCode::Http)
        .ok_or_else(|| not_http(u32::try_from(n).unwrap_or(u32::MAX), v.span))
}
