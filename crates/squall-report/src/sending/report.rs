//! The blocks `squall run` prints for a study's senders, after the file's
//! own report items: every run side by side (with the two alarm signals,
//! the throttle ratio and the oldest waiting record), then per run the
//! attempts by provider code and internal status (the document's first
//! query) and the series per bin (its second: throttled against attempts,
//! minute by minute, with the send rate and the oldest waiting record).

use super::attempt_log::RunLog;
use super::send_run::SendRun;
use super::tables::{codes_table, per_bin_table, side_by_side};
use super::utc::utc_text;
use crate::document::Block;
use crate::study::Study;
use squall_lang::RunKey;

impl Study<'_> {
    /// A run's label: the variant's, and the sender's name when the file
    /// has several senders.
    pub fn send_label(&self, run: &SendRun) -> String {
        let v = self.run_label(run.key);
        if self.scenario.senders.len() > 1 {
            format!("{v}: {}", run.sender)
        } else {
            v
        }
    }

    /// Every selected sender's run as the attempt log holds it: `variant` is the
    /// variant's name (with `.SENDER` when the file has several senders),
    /// times in UTC from the scenario's `epoch` (1970-01-01 without one).
    pub fn attempt_logs(&self) -> Vec<(String, &SendRun)> {
        self.selected_sending()
            .into_iter()
            .map(|r| {
                let RunKey::Variant(v) = r.key else {
                    return (self.run_label(r.key), r);
                };
                let name = &self.scenario.variants[v].name;
                if self.scenario.senders.len() > 1 {
                    (format!("{name}.{}", r.sender), r)
                } else {
                    (name.clone(), r)
                }
            })
            .collect()
    }

    /// The log rows of [`Study::attempt_logs`], ready to write.
    pub fn run_logs<'a>(&self, named: &'a [(String, &'a SendRun)]) -> Vec<RunLog<'a>> {
        let epoch_ms = self.scenario.epoch.unwrap_or(0);
        named
            .iter()
            .map(|(variant, r)| RunLog {
                variant,
                obs: &r.obs,
                epoch_ms,
                tick_ms: r.spec.clock.tick_millis().unwrap_or(1) as f64,
                ticks: r.spec.ticks,
            })
            .collect()
    }

    /// The runs of the selected variants (`--variant`), in order (a sweep
    /// point's senders are read by the lines and tables that name them,
    /// not printed).
    pub fn selected_sending(&self) -> Vec<&SendRun> {
        self.sending
            .iter()
            .filter(|r| match r.key {
                RunKey::Variant(v) => self.includes_variant(v),
                _ => false,
            })
            .collect()
    }

    /// The sending blocks (none without senders).
    pub fn sending_blocks(&self) -> Vec<Block> {
        let shown = self.selected_sending();
        if shown.is_empty() {
            return Vec::new();
        }
        let labels: Vec<String> = shown.iter().map(|r| self.send_label(r)).collect();
        let runs: Vec<(&str, &_)> = labels
            .iter()
            .zip(&shown)
            .map(|(l, r)| (l.as_str(), &r.obs))
            .collect();
        let mut blocks = vec![Block::Table(side_by_side(&runs))];
        let epoch = self.scenario.epoch.unwrap_or(0);
        for (label, run) in labels.iter().zip(&shown) {
            blocks.push(Block::Table(codes_table(label, &run.obs)));
            let tick_ms = run.spec.clock.tick_millis().unwrap_or(1) as f64;
            let bin_ms = run.spec.bin as f64 * tick_ms;
            let bin_label = |i: usize| {
                let text = utc_text(epoch + (i as f64 * bin_ms).round() as i64);
                // `HH:MM`, what the document's query groups by; finer
                // bins keep the seconds.
                if bin_ms % 60_000.0 == 0.0 {
                    text[11..16].to_string()
                } else {
                    text[11..19].to_string()
                }
            };
            let mut table = per_bin_table(label, &run.obs, &bin_label);
            if bin_ms == 60_000.0 {
                table.title = format!("per minute: {label}");
            }
            blocks.push(Block::Table(table));
        }
        blocks
    }
}
