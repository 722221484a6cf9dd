//! `chart` items of the report: a metric at a node, a sender's series, or
//! a breaker's state over time.

use crate::ast::*;
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::model::*;
use crate::needs::{Need, Needs};
use crate::unknown::Unknown;

use super::Validator;
use crate::decl::Scenario;

impl Validator {
    /// A `chart` item: a known metric, at a known node when it is measured
    /// at one (and at none when it is the whole system's).
    pub(super) fn chart(
        &mut self,
        node_names: &[String],
        s: &Scenario,
        c: &ChartAst,
    ) -> Option<ChartSpec> {
        if let Some(at) = &c.at {
            if !node_names.contains(&at.name) {
                if let Some(sender) = s.senders.iter().position(|b| b.name.name == at.name) {
                    return self.send_chart(c, sender);
                }
            }
        }
        if let Some(&(_, series)) = ChartSeries::BREAKER
            .iter()
            .find(|(n, _)| *n == c.metric.name)
        {
            return self.breaker_chart(node_names, s, c, series);
        }
        // `latency`: the distribution of a node's latency over the run.
        let distribution = c.metric.name == "latency";
        let parsed = if distribution {
            Some(Metric::LatencyMean)
        } else {
            Metric::parse(&c.metric.name)
        };
        let Some(metric) = parsed else {
            self.err(
                Unknown::new("metric", &c.metric.name)
                    .label("not a metric")
                    .at(
                        c.metric.span,
                        Metric::ALL
                            .iter()
                            .map(|(n, _)| *n)
                            .chain(std::iter::once("latency"))
                            .chain(ChartSeries::BREAKER.iter().map(|(n, _)| *n)),
                    ),
            );
            return None;
        };
        if metric == Metric::Amplification {
            // Per bin, a retry in a later bin is a new id again.
            self.err(
                Diagnostic::new("`amplification` has no value per time bin", c.metric.span)
                    .label("a retry in a later bin would count as a new request")
                    .help("chart `call_rate` and `unique_rate` at the node instead"),
            );
            return None;
        }
        let node = match (&c.at, metric.needs_node()) {
            (Some(id), true) => Some(self.node(node_names, id)?),
            (None, true) => {
                let who = format!("`{}`", c.metric.name);
                let context = Need::Context {
                    part: "node",
                    context: "this chart",
                };
                self.err(
                    Needs::new(&who, context)
                        .help(format!(
                            "e.g. `chart {} at {}`",
                            c.metric.name,
                            node_names.last().map_or("db", String::as_str)
                        ))
                        .at(c.metric.span),
                );
                return None;
            }
            (Some(id), false) => {
                self.err(
                    Diagnostic::new(
                        format!("`{}` is the whole system's, not a node's", c.metric.name),
                        id.span,
                    )
                    .label("no node for this metric")
                    .help("leave out `at`"),
                );
                return None;
            }
            (None, false) => None,
        };
        Some(ChartSpec {
            title: c.title.clone(),
            metric,
            node,
            distribution,
            series: None,
        })
    }

    /// A `chart SERIES at SENDER` item: one of the sender's series per bin.
    fn send_chart(&mut self, c: &ChartAst, sender: usize) -> Option<ChartSpec> {
        let Some(series) = SendSeries::parse(&c.metric.name) else {
            self.err(
                Diagnostic::new(
                    format!("unknown series `{}` of a sender", c.metric.name),
                    c.metric.span,
                )
                .label("not a sender's series per bin")
                .maybe_help(did_you_mean(
                    &c.metric.name,
                    SendSeries::ALL.iter().map(|(n, _)| *n),
                )),
            );
            return None;
        };
        Some(ChartSpec {
            title: c.title.clone(),
            metric: Metric::Calls,
            node: None,
            distribution: false,
            series: Some(ChartSeries::Send { sender, series }),
        })
    }

    /// A `chart breaker_open at NODE` item: at a node with a breaker.
    fn breaker_chart(
        &mut self,
        node_names: &[String],
        s: &Scenario,
        c: &ChartAst,
        series: ChartSeries,
    ) -> Option<ChartSpec> {
        let Some(id) = &c.at else {
            self.err(
                Diagnostic::new(
                    format!("`{}` is a node's breaker state", c.metric.name),
                    c.metric.span,
                )
                .label("at which node?")
                .help(format!("e.g. `chart {} at api`", c.metric.name)),
            );
            return None;
        };
        let node = self.node(node_names, id)?;
        let n = &s.nodes[node];
        if n.breaker.is_none() && n.library_breaker.is_none() {
            self.err(
                Diagnostic::new(format!("`{}` has no breaker to chart", id.name), id.span)
                    .label("no `breaker` on this node"),
            );
            return None;
        }
        Some(ChartSpec {
            title: c.title.clone(),
            metric: Metric::Blocked,
            node: Some(node),
            distribution: false,
            series: Some(series),
        })
    }
}
