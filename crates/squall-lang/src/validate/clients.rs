//! A source's clients and ramps: `clients N` with a rate (an open loop
//! whose requests each belong to a client) or with `think ...` (a closed
//! loop, which sends when its clients do and so takes no `rate`, `at` or
//! `sequential`), or with `serial every ...` (serial clients, likewise
//! without a schedule); a ramp `rate A to B` needs the `during` it spans.

use crate::ast::{Ident, RateAst, Timed};
use crate::diagnostic::Diagnostic;
use crate::needs::{Need, Needs};

use super::Validator;

impl Validator {
    /// A ramp (`rate A to B`) needs its `during`; false when it has none.
    pub(super) fn check_ramp(&mut self, r: &RateAst) -> bool {
        let (Some(to), None) = (&r.to, &r.during) else {
            return true;
        };
        self.err(
            Needs::new("a ramp", Need::Words("the time it spans"))
                .label("`to` without `during`")
                .help("write e.g. `rate 100/s to 300/s during 60s..120s`")
                .at(to.span),
        );
        false
    }

    /// Checks `clients`, `think` and `serial` on source `name`, which has
    /// `rate` lines (`rates`) or an `at` / `sequential` schedule (`other`).
    pub(super) fn check_clients(
        &mut self,
        name: &Ident,
        clients: Option<&Timed>,
        think: Option<&Timed>,
        serial: Option<&Timed>,
        rates: bool,
        other: bool,
    ) {
        let who = format!("source `{}`", name.name);
        if let (Some(t), None) = (think, clients) {
            self.err(
                Needs::new(&who, Need::Key("clients"))
                    .because("it thinks, and a closed loop needs its number of clients")
                    .help("add e.g. `clients 50`")
                    .at(t.span),
            );
        }
        if let (Some(t), None) = (serial, clients) {
            self.err(
                Needs::new(&who, Need::Key("clients"))
                    .because("its clients are serial, and it needs their number")
                    .help("add e.g. `clients 50`")
                    .at(t.span),
            );
        }
        if let (Some(s), Some(_)) = (serial, think) {
            self.err(
                Diagnostic::new(
                    format!("source `{}` has both `serial` and `think`", name.name),
                    s.span,
                )
                .label("a serial client counts its gap from its last start; a thinking one waits after the end")
                .help("keep `serial every ...` for serial clients, or `think ...` for a closed loop"),
            );
        } else if let (Some(s), true) = (serial, rates || other) {
            self.err(
                Diagnostic::new(
                    format!(
                        "source `{}` has serial clients (`serial`) and also a schedule",
                        name.name
                    ),
                    s.span,
                )
                .label("serial clients send when their gaps and answers allow, not at a rate")
                .help("remove its `rate`, `at` or `sequential`, or remove `serial` for an open loop of clients"),
            );
        }
        if let Some(t) = think {
            if rates || other {
                self.err(
                    Diagnostic::new(
                        format!(
                            "source `{}` is a closed loop (`think`) and also has a schedule",
                            name.name
                        ),
                        t.span,
                    )
                    .label("a closed loop sends when its clients do")
                    .help("remove its `rate`, `at` or `sequential`, or remove `think` for an open loop of clients"),
                );
            }
        } else if let (Some(c), true, None) = (clients, other, serial) {
            self.err(
                Diagnostic::new(
                    format!(
                        "source `{}` has `clients` with an `at` or `sequential` schedule",
                        name.name
                    ),
                    c.span,
                )
                .label("clients go with a `rate` or a `think` time")
                .help("give the source a `rate`, or `think ...` for a closed loop"),
            );
        }
    }

    /// A source `name` that sends at a rate (no clients that think or are
    /// serial, no `at` or `sequential`) needs a `rate` without `during`.
    pub(super) fn check_base_rate(&mut self, name: &Ident, rates: &[RateAst]) {
        if rates.iter().any(|r| r.during.is_none()) {
            return;
        }
        self.err(
            Diagnostic::new(format!("source `{}` has no base rate", name.name), name.span)
                .label("no `rate` without `during`")
                .help("add e.g. `rate 4/round`, or send at given times with `at [0ms, 200ms]`, or run operations with `sequential { op ... }`"),
        );
    }
}
