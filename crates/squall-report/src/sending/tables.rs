//! The sending report's tables: runs side by side, attempts by provider
//! code and internal status (the document's first query), and the series
//! per bin (its second: throttled against attempts, minute by minute).

use indexmap::IndexMap;
use squall_engine::sending::SendObservations;

use super::attempt_log::{code_text, state_text};
use crate::document::{Cell, Table};

fn int(n: u64) -> Cell {
    Cell::Number(n as f64, 0)
}

/// Throttled attempts / attempts over the run (0 with no attempts).
pub fn throttle_ratio(o: &SendObservations) -> f64 {
    let throttled = o.attempts.iter().filter(|a| a.throttled).count();
    if o.attempts.is_empty() {
        0.0
    } else {
        throttled as f64 / o.attempts.len() as f64
    }
}

/// One column per run, one row per count: the document's before/after
/// table, with the states it says to show apart (in flight, pending,
/// done) and the two alarm signals.
pub fn side_by_side(runs: &[(&str, &SendObservations)]) -> Table {
    let mut columns = vec!["".to_string()];
    columns.extend(runs.iter().map(|(name, _)| name.to_string()));
    let row = |label: &str, f: &dyn Fn(&SendObservations) -> Cell| {
        let mut cells = vec![Cell::Text(label.into())];
        cells.extend(runs.iter().map(|(_, o)| f(o)));
        cells
    };
    let rows = vec![
        row("records", &|o| int(o.states.created)),
        row("attempts", &|o| int(o.attempts.len() as u64)),
        row("throttles", &|o| {
            int(o.attempts.iter().filter(|a| a.throttled).count() as u64)
        }),
        row("permanent failures", &|o| {
            int(o.states.failed + o.states.rejected)
        }),
        row("delivered", &|o| int(o.states.submitted)),
        row("deferred", &|o| int(o.states.deferred)),
        row("pending", &|o| int(o.states.pending)),
        row("queued", &|o| int(o.states.queued)),
        row("in flight", &|o| int(o.states.in_flight)),
        row("throttle ratio", &|o| Cell::Number(throttle_ratio(o), 4)),
        row("oldest waiting [s]", &|o| Cell::Number(o.oldest_waiting, 1)),
    ];
    Table {
        title: "runs side by side".into(),
        columns,
        rows,
    }
}

/// `(provider_code, internal_status, n)` ordered by `n` descending, then
/// code and status as text: the document's first query over the run.
pub fn codes_by_status(o: &SendObservations) -> Vec<(String, &'static str, u64)> {
    let mut counts: IndexMap<(String, &'static str), u64> = IndexMap::new();
    for a in &o.attempts {
        *counts
            .entry((code_text(a.code), state_text(a.status)))
            .or_default() += 1;
    }
    let mut rows: Vec<_> = counts.into_iter().map(|((c, s), n)| (c, s, n)).collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| (&a.0, a.1).cmp(&(&b.0, b.1))));
    rows
}

/// [`codes_by_status`] as a table.
pub fn codes_table(variant: &str, o: &SendObservations) -> Table {
    Table {
        title: format!("attempts by provider code and internal status: {variant}"),
        columns: vec!["provider_code".into(), "internal_status".into(), "n".into()],
        rows: codes_by_status(o)
            .into_iter()
            .map(|(c, s, n)| vec![Cell::Text(c), Cell::Text(s.into()), int(n)])
            .collect(),
    }
}

/// One row per bin: attempts, throttled, delivered, the throttle ratio,
/// the send rate and the oldest waiting record (the two alarm signals:
/// are we at the right speed, is anything stuck). A flat plateau of throttled attempts is a
/// ceiling; a spike is an incident.
pub fn per_bin_table(
    variant: &str,
    o: &SendObservations,
    bin_label: &dyn Fn(usize) -> String,
) -> Table {
    Table {
        title: format!("per bin: {variant}"),
        columns: vec![
            "bin".into(),
            "attempts".into(),
            "throttled".into(),
            "delivered".into(),
            "throttle ratio".into(),
            "rate [/s]".into(),
            "oldest waiting [s]".into(),
        ],
        rows: o
            .bins
            .iter()
            .enumerate()
            .map(|(i, b)| {
                vec![
                    Cell::Text(bin_label(i)),
                    int(b.attempts),
                    int(b.throttled),
                    int(b.delivered),
                    if b.attempts == 0 {
                        Cell::Missing
                    } else {
                        Cell::Number(b.throttled as f64 / b.attempts as f64, 4)
                    },
                    Cell::Number(b.rate, 2),
                    Cell::Number(b.oldest_waiting, 1),
                ]
            })
            .collect(),
    }
}
