//! [`ChartFile`]: one finished chart of a report, and the charts a report
//! draws ([`Study::charts`]).
//!
//! A report draws, in the file's order, one line chart per `chart` item,
//! one histogram per variant for a `chart latency at NODE` item (on a run
//! that takes time), one line chart per breaker-state or sender item
//! (`chart breaker_open at NODE`, `chart send_rate at SENDER`) and one
//! histogram per `herd` item. A report without `chart` items draws the
//! calls per tick at the scenario's dependency (the bottom of its first
//! chain) first, as `squall run --chart` does.

use squall_lang::{ChartSeries, ChartSpec, Metric, ReportItemSpec, Scenario};

use super::from_study::{metric_name, MAX_BINS};
use crate::study::Study;

/// One chart: a file name, a title, the SVG document.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartFile {
    /// The file's name, without a directory: `01-call-rate-db.svg`.
    pub file: String,
    /// The chart's title.
    pub title: String,
    /// The SVG document.
    pub svg: String,
    /// What it draws, as CSV (written beside the SVG, same name, `.csv`).
    pub csv: String,
}

/// The node a chart draws when none is named: the bottom of the first
/// chain (the dependency).
pub fn default_node(scenario: &Scenario) -> usize {
    let mut i = 0;
    let mut steps = 0;
    while let Some(d) = scenario.nodes.get(i).and_then(|n| n.downstream) {
        i = d;
        steps += 1;
        if steps > scenario.nodes.len() {
            break;
        }
    }
    i
}

/// A file name made of `words`: lowercase letters and digits joined by
/// `-`, after a two-digit position (`01-call-rate-db.svg`).
pub fn file_name(position: usize, words: &str) -> String {
    let mut slug = String::new();
    for c in words.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= 48 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    format!(
        "{position:02}-{}.svg",
        if slug.is_empty() { "chart" } else { slug }
    )
}

impl Study<'_> {
    /// Every chart of the report, in order, named for `--charts DIR`.
    pub fn charts(&self) -> Vec<ChartFile> {
        let mut out = Vec::new();
        let items = &self.scenario.report.items;
        let has_runs = !self.variant_runs().is_empty();
        let asked = items.iter().any(|i| matches!(i, ReportItemSpec::Chart(_)));
        if !asked && has_runs && !self.scenario.nodes.is_empty() {
            let node = default_node(self.scenario);
            out.push(self.line_chart(None, Metric::CallRate, Some(node), 1));
        }
        for item in items {
            match item {
                ReportItemSpec::Chart(c) if c.series.is_some() => {
                    if let Some(chart) = self.series_chart(c, out.len() + 1) {
                        out.push(chart);
                    }
                }
                ReportItemSpec::Chart(c) if has_runs && c.distribution => {
                    for key in self.variant_runs() {
                        if let Some(hist) = self.latency_histogram(key, c.node, c.title.as_deref())
                        {
                            out.push(ChartFile {
                                file: file_name(out.len() + 1, &hist.title),
                                title: hist.title.clone(),
                                svg: hist.to_svg(),
                                csv: hist.to_csv(),
                            });
                        }
                    }
                }
                ReportItemSpec::Chart(c) if has_runs => {
                    out.push(self.line_chart(c.title.as_deref(), c.metric, c.node, out.len() + 1));
                }
                ReportItemSpec::Herd(h) => {
                    if let Some(hist) = self.herd_histogram(h) {
                        out.push(ChartFile {
                            file: file_name(out.len() + 1, &h.title),
                            title: hist.title.clone(),
                            svg: hist.to_svg(),
                            csv: hist.to_csv(),
                        });
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// A line chart of a `chart` item's [`ChartSeries`] (a breaker's state,
    /// a sender's series), titled by the item or by what it draws; none
    /// without runs to draw.
    fn series_chart(&self, c: &ChartSpec, position: usize) -> Option<ChartFile> {
        let (mut series, words) = match c.series? {
            ChartSeries::Send { sender, series } => {
                self.selected_sending().first()?;
                let name = self
                    .scenario
                    .senders
                    .get(sender)
                    .map_or("", |b| b.name.name.as_str());
                (
                    self.send_binned(sender, series),
                    format!("{} {name}", series.name()),
                )
            }
            breaker => {
                self.variant_runs().first()?;
                let node = c.node?;
                let word = match breaker {
                    ChartSeries::BreakerOpen => "breaker-open",
                    ChartSeries::BreakerHalfOpen => "breaker-half-open",
                    _ => "breaker-state",
                };
                (
                    self.breaker_binned(breaker, node),
                    format!("{word} {}", self.node_name(node)),
                )
            }
        };
        if let Some(t) = &c.title {
            series.title = t.clone();
        }
        Some(ChartFile {
            file: file_name(position, c.title.as_deref().unwrap_or(&words)),
            title: series.title.clone(),
            svg: series.to_svg(),
            csv: series.to_csv(),
        })
    }

    /// A line chart of `metric` (at `node`), titled `title` or by what it
    /// draws.
    fn line_chart(
        &self,
        title: Option<&str>,
        metric: Metric,
        node: Option<usize>,
        position: usize,
    ) -> ChartFile {
        let mut series = self.binned(metric, node.unwrap_or(0), MAX_BINS);
        if let Some(t) = title {
            series.title = t.to_string();
        }
        let name = node
            .and_then(|n| self.scenario.nodes.get(n))
            .map_or("", |n| n.name.as_str());
        let words = match title {
            Some(t) => t.to_string(),
            None => format!("{} {name}", metric_name(metric)),
        };
        ChartFile {
            file: file_name(position, &words),
            title: series.title.clone(),
            svg: series.to_svg(),
            csv: series.to_csv(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_plain() {
        assert_eq!(file_name(1, "call_rate db"), "01-call-rate-db.svg");
        assert_eq!(
            file_name(12, "no jitter: 100 clients, fourth try"),
            "12-no-jitter-100-clients-fourth-try.svg"
        );
        assert_eq!(file_name(3, "../../etc/passwd"), "03-etc-passwd.svg");
        assert_eq!(file_name(4, "ü"), "04-chart.svg");
    }
}
