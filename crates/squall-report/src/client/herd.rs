//! `herd`: a number of clients fail at once and each waits out its backoff
//! before retry `attempt`; the table buckets their wake-up times and the
//! line after it says how much of the herd the busiest bucket holds; the
//! same buckets draw the herd's histogram chart.
//! Decorrelated jitter depends on a client's earlier waits, so each client
//! draws its whole sequence up to the retry.

use std::collections::BTreeMap;

use squall_lang::{Backoff, HerdSpec, LibraryBackoff};

use squall_engine::sample_wait;

use super::generator;
use crate::chart::from_study::axis_unit;
use crate::chart::Histogram;
use crate::document::{Block, Cell, Table};
use crate::number::to_fixed;
use crate::study::Study;

impl Study<'_> {
    /// `herd`: the wake-up times of clients failing at once, bucketed.
    pub fn herd(&self, h: &HerdSpec) -> Vec<Block> {
        let Some((name, buckets)) = self.herd_buckets(h) else {
            return Vec::new();
        };
        let unit = self.scenario.clock.unit_name();
        let rows = buckets
            .iter()
            .map(|(&start, &count)| {
                vec![
                    Cell::Text(format!("{start} {unit}")),
                    Cell::Number(count as f64, 0),
                    Cell::Text("#".repeat(count as usize)),
                ]
            })
            .collect();
        let peak = buckets.values().max().copied().unwrap_or(0);
        vec![
            Block::Table(Table {
                title: h.title.clone(),
                columns: vec!["wakes at".into(), "clients".into(), "histogram".into()],
                rows,
            }),
            Block::text(format!(
                "{}: {} clients, retry {}, busiest {} {unit} bucket holds {} ({}% of the herd)",
                name.replace('_', " "),
                h.clients,
                h.attempt,
                h.bucket,
                peak,
                to_fixed(100.0 * peak as f64 / f64::from(h.clients.max(1)), 1)
            )),
        ]
    }

    /// `herd` as a chart: the wake-up times' histogram.
    pub fn herd_histogram(&self, h: &HerdSpec) -> Option<Histogram> {
        let (_, buckets) = self.herd_buckets(h)?;
        Some(Histogram {
            title: h.title.clone(),
            value_label: format!("wakes at ({})", axis_unit(self.scenario.clock)),
            count_label: "clients".into(),
            bucket_width: h.bucket as f64,
            buckets: buckets
                .into_iter()
                .map(|(start, count)| (start as f64, count))
                .collect(),
        })
    }

    /// The herd's policy name and its clients per wake-up bucket, by the
    /// bucket's start \[ticks\]; `None` without a default run or policy.
    fn herd_buckets(&self, h: &HerdSpec) -> Option<(&str, BTreeMap<u64, u64>)> {
        let model = self.default_model()?;
        let (name, b) = model.backoffs.get(h.policy)?;
        let mut g = generator(model, h.rng.or_else(|| b.rng()));
        let mut buckets = BTreeMap::new();
        for _ in 0..h.clients {
            let wait = if matches!(
                b,
                Backoff::Decorrelated { .. } | Backoff::Library(LibraryBackoff::Polly { .. })
            ) {
                // Its wait depends on the client's earlier ones.
                let mut prev = None;
                let mut w = 0;
                for n in 1..=h.attempt {
                    w = sample_wait(b, n, &mut g, &mut prev);
                }
                w
            } else {
                sample_wait(b, h.attempt, &mut g, &mut None)
            };
            *buckets.entry(wait / h.bucket * h.bucket).or_insert(0) += 1;
        }
        Some((name.as_str(), buckets))
    }
}
