//! Joining the shards of one study back into the whole sweep.
//!
//! [`merge`] first checks that every part comes from the same study (same
//! scenario text, seed, sweep, base variant, settings, points, shard count
//! and tables), then puts each row at its place, refusing a row given twice
//! and naming the shards that would supply missing rows.

use std::collections::BTreeMap;

use super::{MergeError, RowEntry, SweepRows, TableRows};

/// Joins the shards of one study (named, for messages) into the whole sweep.
pub fn merge(parts: Vec<(String, SweepRows)>) -> Result<SweepRows, MergeError> {
    let mut parts = parts;
    parts.sort_by_key(|(_, p)| p.shard.map_or(0, |s| s.index));
    let Some((first_name, first)) = parts.first().cloned() else {
        return Err(MergeError::Empty);
    };
    let differ = |file: &str, what: &str| MergeError::OtherStudy {
        first: first_name.clone(),
        file: file.to_string(),
        what: what.to_string(),
    };
    for (name, p) in &parts[1..] {
        let (a, b) = (&first.study, &p.study);
        let what = if a.source_hash != b.source_hash {
            Some("the scenario text")
        } else if a.seed != b.seed {
            Some("the seed")
        } else if a.sweep != b.sweep {
            Some("the sweep")
        } else if a.base != b.base {
            Some("the base variant")
        } else if a.settings != b.settings {
            Some("the settings")
        } else if a.points != b.points {
            Some("the list of points")
        } else if a != b {
            Some("the scenario")
        } else if first.params != p.params {
            Some("the varied params")
        } else if first.shard.map(|s| s.count) != p.shard.map(|s| s.count) {
            Some("the number of shards")
        } else if first.tables.len() != p.tables.len()
            || first.tables.iter().zip(&p.tables).any(|(x, y)| {
                (&x.title, &x.columns, x.label_columns, x.point_label)
                    != (&y.title, &y.columns, y.label_columns, y.point_label)
            })
        {
            Some("the report's tables")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(differ(name, what));
        }
    }
    let mut tables = Vec::new();
    for (t, table) in first.tables.iter().enumerate() {
        let mut rows: BTreeMap<usize, (&str, &RowEntry)> = BTreeMap::new();
        for (name, p) in &parts {
            for r in &p.tables[t].rows {
                if let Some((other, _)) = rows.get(&r.row) {
                    return Err(MergeError::Duplicate {
                        table: table.title.clone(),
                        row: r.row,
                        a: (*other).to_string(),
                        b: name.clone(),
                    });
                }
                rows.insert(r.row, (name, r));
            }
        }
        if rows.len() != table.row_count {
            let missing: Vec<usize> = (0..table.row_count)
                .filter(|r| !rows.contains_key(r))
                .collect();
            let have: Vec<usize> = parts
                .iter()
                .filter_map(|(_, p)| p.shard.map(|s| s.index))
                .collect();
            let shards = first.shard.map(|s| {
                let lacking = (1..=s.count).filter(|k| !have.contains(k)).collect();
                (lacking, s.count)
            });
            let which: Vec<String> = missing.iter().take(5).map(|r| format!("row {r}")).collect();
            return Err(MergeError::Incomplete {
                missing: missing.len(),
                total: table.row_count,
                which: if missing.len() > 5 {
                    format!("{}, ...", which.join(", "))
                } else {
                    which.join(", ")
                },
                shards,
            });
        }
        tables.push(TableRows {
            rows: rows.into_values().map(|(_, r)| r.clone()).collect(),
            ..table.clone()
        });
    }
    let mut points_run: Vec<usize> = parts
        .iter()
        .flat_map(|(_, p)| p.points_run.iter().copied())
        .collect();
    points_run.sort_unstable();
    Ok(SweepRows {
        shard: None,
        // Every row is here: no point failed.
        failed: Vec::new(),
        points_run,
        tables,
        ..first
    })
}
