//! A source's clients and ramps: `clients N` with a rate (an open loop
//! whose requests each belong to a client) or with `think ...` (a closed
//! loop, which sends when its clients do and so takes no `rate`, `at` or
//! `sequential`); a ramp `rate A to B` needs the `during` it spans.

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

    /// Checks `clients` and `think` on source `name`, which has `rate`
    /// lines (`rates`) or an `at` / `sequential` schedule (`other`).
    pub(super) fn check_clients(
        &mut self,
        name: &Ident,
        clients: Option<&Timed>,
        think: Option<&Timed>,
        rates: bool,
        other: bool,
    ) {
        if let (Some(t), None) = (think, clients) {
            let who = format!("source `{}`", name.name);
            self.err(
                Needs::new(&who, Need::Key("clients"))
                    .because("it thinks, and a closed loop needs its number of clients")
                    .help("add e.g. `clients 50`")
                    .at(t.span),
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
        } else if let (Some(c), true) = (clients, other) {
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
}
