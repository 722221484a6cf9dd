//! `line` report items: a sentence with values in it, evaluated in one run
//! (the line's own variant, or the report's default run). A line about a
//! variant the user left out with `--variant` is left out of the report.
//! With `replications N`, each value reads `mean ± half-width`.

use squall_lang::{LinePart, RunKey};

use crate::eval::Ctx;
use crate::study::Study;

impl Study<'_> {
    pub(crate) fn line(&self, parts: &[LinePart], variant: Option<usize>) -> Option<String> {
        if let Some(v) = variant {
            if !self.runs.contains_key(&RunKey::Variant(v)) {
                return None;
            }
        }
        let ctx = Ctx {
            run: variant.map_or(self.default_key(), RunKey::Variant),
            window: None,
            node: None,
        };
        let mut out = String::new();
        for p in parts {
            match p {
                LinePart::Text(t) => out.push_str(t),
                LinePart::Value(e, digits) => {
                    // A line about a variant the user left out is skipped.
                    if !self.variants_available(e) {
                        return None;
                    }
                    // A number, or with replications a mean and its interval.
                    out.push_str(&self.value_cell(e, ctx, *digits).display());
                }
            }
        }
        Some(out)
    }

    fn variants_available(&self, e: &squall_lang::RExpr) -> bool {
        use squall_lang::RExpr;
        match e {
            RExpr::Metric {
                variant: Some(v), ..
            }
            | RExpr::Measure {
                variant: Some(v), ..
            } => self.runs.contains_key(&RunKey::Variant(*v)),
            RExpr::Call(_, args) => args.iter().all(|a| self.variants_available(a)),
            RExpr::Neg(x) => self.variants_available(x),
            RExpr::Binary(_, a, b) => self.variants_available(a) && self.variants_available(b),
            _ => true,
        }
    }
}
