//! Report tables: row axes (variants, windows, nodes) and columns.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::span::Span;

use super::{Context, Names, Validator};

impl Validator {
    pub(super) fn table(&mut self, names: &Names<'_>, t: &TableAst) -> Option<TableSpec> {
        let mut rows = Vec::new();
        let (mut has_variant, mut has_window) = (names.variants.len() == 1, false);
        let mut default_label = Vec::new();
        for axis in &t.rows {
            if let AxisAst::Variants(Some(l), span) | AxisAst::Windows(Some(l), span) = axis {
                if l.is_empty() {
                    self.err(
                        Diagnostic::new("an empty list selects no rows", *span)
                            .label("no names in `[]`")
                            .help("name the rows, or leave the list out to take them all"),
                    );
                }
            }
            match axis {
                AxisAst::Variants(list, _) => {
                    has_variant = true;
                    default_label.push("case");
                    let ids = match list {
                        None => (0..names.variants.len()).collect(),
                        Some(l) => l
                            .iter()
                            .filter_map(|id| self.variant(names.variants, id))
                            .collect(),
                    };
                    rows.push(AxisSpec::Variants(ids));
                }
                AxisAst::Windows(list, _) => {
                    has_window = true;
                    default_label.push("window");
                    let ids = match list {
                        None => (0..names.windows.len()).collect(),
                        Some(l) => l
                            .iter()
                            .filter_map(|id| self.window(names.windows, id))
                            .collect(),
                    };
                    rows.push(AxisSpec::Windows(ids));
                }
                AxisAst::Sweep(id) => {
                    has_variant = true;
                    default_label.push("point");
                    match names.sweeps_position(id) {
                        Some(i) => rows.push(AxisSpec::Sweep(i)),
                        None => self.err(
                            Diagnostic::new(format!("unknown sweep `{}`", id.name), id.span)
                                .label("no sweep of this name"),
                        ),
                    }
                }
            }
        }
        if rows.is_empty() {
            self.err(
                Diagnostic::new(format!("table \"{}\" has no `rows`", t.title), t.span)
                    .label("no rows")
                    .help("add e.g. `rows variants x windows` or `rows sweep allowance`"),
            );
            return None;
        }
        if t.labels.len() > 1 && t.labels.len() != rows.len() {
            let pos = self
                .source
                .get(t.span.start..t.span.end)
                .and_then(|s| s.find("label"))
                .map(|p| t.span.start + p);
            let span = pos.map_or(t.span, |p| Span::new(p, p + "label".len()));
            self.err(
                Diagnostic::new(
                    format!(
                        "{} headings for a table with {} row axes",
                        t.labels.len(),
                        rows.len()
                    ),
                    span,
                )
                .label("one heading, or one per axis")
                .help("give one `label` for all the label columns, or one per row axis"),
            );
        }
        if rows.len() == 2 && std::mem::discriminant(&rows[0]) == std::mem::discriminant(&rows[1]) {
            self.err(
                Diagnostic::new("a table's two row axes must differ", t.span)
                    .label("same axis twice"),
            );
        }
        let at = match &t.at {
            None => None,
            Some(id) => {
                let names_vec: Vec<String> = names.nodes.iter().map(|n| n.name.clone()).collect();
                self.node(&names_vec, id)
            }
        };
        if t.columns.is_empty() {
            self.err(
                Diagnostic::new(format!("table \"{}\" has no columns", t.title), t.span)
                    .label("no columns")
                    .help("add e.g. `column \"calls/round\" = call_rate`"),
            );
        }
        let ctx = Context {
            variant: has_variant,
            window: has_window,
            node: at.is_some() || t.at.is_some(),
            what: "this table",
        };
        let mut columns = Vec::new();
        for c in &t.columns {
            if let Some((expr, needs)) = self.expr(names, &c.expr) {
                self.check_context(needs, ctx, c.expr.span);
                columns.push(ColumnSpec {
                    title: c.title.clone(),
                    expr,
                    digits: c.digits.unwrap_or(2),
                });
            }
        }
        Some(TableSpec {
            title: t.title.clone(),
            labels: if t.labels.is_empty() {
                vec![default_label.join(": ")]
            } else {
                t.labels.clone()
            },
            rows,
            at,
            columns,
        })
    }
}
