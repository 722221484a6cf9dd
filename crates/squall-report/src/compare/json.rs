//! Reading a report back from `--format json`, so reports saved in two
//! commits can be compared without running anything.

use crate::document::{Block, Cell, Report, Table};

impl Report {
    /// Reads a report written with `--format json`.
    pub fn from_json(text: &str) -> Result<Report, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let title = v
            .get("title")
            .and_then(|t| t.as_str())
            .ok_or("it has no `title`; is it a squall JSON report?")?
            .to_string();
        let meta = match v.get("meta") {
            Some(serde_json::Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    (k.clone(), v)
                })
                .collect(),
            _ => Vec::new(),
        };
        let blocks = v
            .get("blocks")
            .and_then(|b| b.as_array())
            .ok_or("it has no `blocks`; is it a squall JSON report?")?;
        let mut out = Vec::new();
        for b in blocks {
            match b.get("kind").and_then(|k| k.as_str()) {
                // The text, and the values a `line` item put into it (so a
                // diff can judge each, paired when the reports pair).
                Some("line") => out.push(Block::Line {
                    text: b
                        .get("text")
                        .and_then(|t| t.as_str())
                        .unwrap_or_default()
                        .to_string(),
                    values: b
                        .get("values")
                        .and_then(|v| v.as_array())
                        .map(|a| a.iter().map(json_cell).collect())
                        .unwrap_or_default(),
                }),
                Some("table") => {
                    let strings = |key: &str| -> Vec<String> {
                        b.get(key)
                            .and_then(|c| c.as_array())
                            .map(|a| {
                                a.iter()
                                    .map(|x| x.as_str().unwrap_or_default().to_string())
                                    .collect()
                            })
                            .unwrap_or_default()
                    };
                    let rows = b
                        .get("rows")
                        .and_then(|r| r.as_array())
                        .map(|rows| {
                            rows.iter()
                                .map(|r| {
                                    r.as_array()
                                        .map(|cells| cells.iter().map(json_cell).collect())
                                        .unwrap_or_default()
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    out.push(Block::Table(Table {
                        title: b
                            .get("title")
                            .and_then(|t| t.as_str())
                            .unwrap_or_default()
                            .to_string(),
                        columns: strings("columns"),
                        rows,
                    }));
                }
                other => {
                    return Err(format!(
                        "a block of kind {} is not a table or a line",
                        other.unwrap_or("(none)")
                    ))
                }
            }
        }
        Ok(Report {
            title,
            meta,
            blocks: out,
            pairing: v.get("pairing").and_then(super::Pairing::from_json),
        })
    }
}

fn json_cell(v: &serde_json::Value) -> Cell {
    match v {
        serde_json::Value::Null => Cell::Missing,
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let text = n.to_string();
            let digits = text.split_once('.').map_or(0, |(_, f)| f.len());
            Cell::Number(x, digits)
        }
        serde_json::Value::String(s) => Cell::Text(s.clone()),
        serde_json::Value::Object(m) if m.contains_key("mean") => json_interval(m),
        other => Cell::Text(other.to_string()),
    }
}

/// An interval cell (`{"mean", "half_width", "n", "replications"}`,
/// `"never"` when some replications never reached the value, `"values"`
/// per replication when the report wrote them), its digits
/// read from how the mean and the half-width were printed.
fn json_interval(m: &serde_json::Map<String, serde_json::Value>) -> Cell {
    let count = |k: &str| m.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
    let (n, never) = (count("n"), count("never"));
    let (mean, digits) = match m.get("mean").map(json_cell) {
        Some(Cell::Number(mean, digits)) => (mean, digits),
        // No replication had a value, and some never reached it.
        _ if n == 0 && never > 0 => (0.0, 0),
        _ => return Cell::Missing,
    };
    // JSON drops trailing zeros; the half-width may keep a digit the mean
    // lost (`13.0` beside `1.99` was printed `13.00 ± 1.99`).
    let digits = match m.get("half_width").map(json_cell) {
        Some(Cell::Number(_, d)) => digits.max(d),
        _ => digits,
    };
    Cell::Interval(
        crate::interval::Interval {
            mean,
            half_width: m.get("half_width").and_then(serde_json::Value::as_f64),
            n,
            replications: count("replications").max(n + never),
            never,
            values: m
                .get("values")
                .and_then(serde_json::Value::as_array)
                .map(|a| a.iter().map(serde_json::Value::as_f64).collect())
                .unwrap_or_default(),
        },
        digits,
    )
}
