//! Sweeps given on the command line: `squall sweep FILE --vary NAME=V1,V2`.
//!
//! [`Scenario::with_sweep`] returns a copy of a scenario whose sweep has the
//! given axes: the file's sweep of that name keeps its label and base
//! variant and gets new points, or a new sweep is added. Every point is
//! resolved before anything runs, so a value that does not fit (`attempts=0`)
//! is reported at once, pointing at the `$param` use it reaches.

use super::RunKey;
use crate::ast::Value;
use crate::decl::{seed_value, Scenario, SweepDecl, SEED_AXIS};
use crate::diagnostic::{suggest, Diagnostics};

/// The most points one sweep may have: the same limit as a sweep in a file.
pub const MAX_POINTS: usize = crate::decl::MAX_SWEEP_POINTS;

/// Why an ad-hoc sweep cannot be built: plain data, worded by the caller,
/// which knows the flags it was given through (the CLI's `--vary`).
#[derive(Debug, Clone, thiserror::Error)]
pub enum SweepError {
    /// No axis was given.
    #[error("a sweep needs at least one axis")]
    NoAxes,
    /// An axis names a param the scenario does not declare.
    #[error("the scenario has no param `{param}` to vary")]
    UnknownParam {
        /// The name given.
        param: String,
        /// A declared param close enough to be the one meant.
        suggestion: Option<String>,
        /// Every declared param, in file order.
        known: Vec<String>,
    },
    /// The same param is the name of two axes.
    #[error("`{param}` is varied twice")]
    VariedTwice {
        /// The param.
        param: String,
    },
    /// An axis lists no values.
    #[error("`{param}` is given no values")]
    NoValues {
        /// The param.
        param: String,
    },
    /// A value of the `seed` axis is not a seed.
    #[error("`{value}` is not a seed: a swept seed is a whole number from 0 to 10^15")]
    NotASeed {
        /// The value, as given.
        value: String,
    },
    /// The base variant does not exist.
    #[error("no variant number {index}")]
    NoVariant {
        /// The index given.
        index: usize,
    },
    /// The sweep has more points than one sweep may have.
    #[error("the sweep has {count} points, more than the {max} squall runs at once")]
    TooManyPoints {
        /// Its points.
        count: usize,
        /// The most allowed ([`MAX_POINTS`]).
        max: usize,
    },
    /// A point does not resolve; the diagnostics point into the file.
    #[error("a point of the sweep is invalid")]
    Invalid(Diagnostics),
}

impl Scenario {
    /// A copy of the scenario whose sweep `name` has `axes` (first axis
    /// outermost) and starts from variant `base` (`None`: the file sweep's
    /// own base, or the first variant). `flag` names where the values came
    /// from (the CLI's `--vary`), for diagnostics about a value that does
    /// not fit.
    pub fn with_sweep(
        &self,
        name: &str,
        axes: Vec<(String, Vec<Value>)>,
        base: Option<usize>,
        flag: &str,
    ) -> Result<Scenario, SweepError> {
        if axes.is_empty() {
            return Err(SweepError::NoAxes);
        }
        let mut seen: Vec<&str> = Vec::new();
        for (param, values) in &axes {
            if param == SEED_AXIS {
                if let Some(v) = values.iter().find(|v| seed_value(v).is_none()) {
                    return Err(SweepError::NotASeed {
                        value: crate::format::value_text(v),
                    });
                }
            } else if !self.params.contains_key(param) {
                return Err(SweepError::UnknownParam {
                    param: param.clone(),
                    suggestion: suggest(param, self.params.keys().map(String::as_str))
                        .map(str::to_string),
                    known: self.params.keys().cloned().collect(),
                });
            }
            if seen.contains(&param.as_str()) {
                return Err(SweepError::VariedTwice {
                    param: param.clone(),
                });
            }
            seen.push(param);
            if values.is_empty() {
                return Err(SweepError::NoValues {
                    param: param.clone(),
                });
            }
        }
        if let Some(b) = base {
            if b >= self.variants.len() {
                return Err(SweepError::NoVariant { index: b });
            }
        }
        let mut out = self.clone();
        let spec = match out.sweeps.iter().position(|s| s.name == name) {
            Some(i) => {
                let s = &mut out.sweeps[i];
                s.axes = axes;
                s.from_cli = true;
                s.flag = Some(flag.to_string());
                if let Some(b) = base {
                    s.base = b;
                }
                i
            }
            None => {
                out.sweeps.push(SweepDecl {
                    name: name.to_string(),
                    label: name.to_string(),
                    base: base.unwrap_or(0),
                    axes,
                    from_cli: true,
                    flag: Some(flag.to_string()),
                });
                out.sweeps.len() - 1
            }
        };
        let count = out.sweeps[spec].point_count();
        if count > MAX_POINTS {
            return Err(SweepError::TooManyPoints {
                count,
                max: MAX_POINTS,
            });
        }
        let mut problems = Vec::new();
        for p in 0..count {
            if let Err(d) = out.model_for(RunKey::Point(spec, p), &[]) {
                problems.extend(d.list);
            }
            if problems.len() > 20 {
                break;
            }
        }
        if !problems.is_empty() {
            let mut seen = std::collections::HashSet::new();
            problems.retain(|d| seen.insert((d.span.start, d.message.clone(), d.label.clone())));
            return Err(SweepError::Invalid(out.diagnostics(problems)));
        }
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;
    use crate::parse::parse_value;

    const TEXT: &str = r#"scenario "t" {
  run 20 rounds
  param attempts = 3
  param spacing = 2 rounds
  source users { rate 2/round enters api }
  chain api -> db
  service api { retry { attempts $attempts backoff fixed $spacing } }
  service db { capacity 1/round }
}"#;

    fn values(list: &[&str]) -> Vec<Value> {
        list.iter().filter_map(|v| parse_value(v).ok()).collect()
    }

    #[test]
    fn points_are_indexed_like_the_cross_product() {
        let s = crate::load("t.squall", TEXT).expect("valid");
        let s = s
            .with_sweep(
                "grid",
                vec![
                    ("attempts".into(), values(&["1", "2", "3"])),
                    ("spacing".into(), values(&["1 round", "4 rounds"])),
                ],
                None,
                "--vary",
            )
            .expect("valid sweep");
        let sweep = &s.sweeps[0];
        let all = sweep.points();
        assert_eq!(all.len(), 6);
        assert_eq!(sweep.point_count(), 6);
        for (p, point) in all.iter().enumerate() {
            assert_eq!(sweep.point(p).as_ref(), Some(point));
        }
        assert_eq!(sweep.point(6), None);
    }

    #[test]
    fn bad_requests_are_explained() {
        let s = crate::load("t.squall", TEXT).expect("valid");
        let err = |axes| s.with_sweep("x", axes, None, "--vary").err();
        assert!(matches!(
            err(vec![("atempts".into(), values(&["1"]))]),
            Some(SweepError::UnknownParam { suggestion: Some(ref m), .. }) if m == "attempts"
        ));
        assert!(matches!(
            err(vec![("attempts".into(), vec![])]),
            Some(SweepError::NoValues { ref param }) if param == "attempts"
        ));
        let twice = err(vec![
            ("attempts".into(), values(&["1"])),
            ("attempts".into(), values(&["2"])),
        ]);
        assert!(
            matches!(twice, Some(SweepError::VariedTwice { ref param }) if param == "attempts"),
            "{twice:?}"
        );
        let zero = match err(vec![("attempts".into(), values(&["0"]))]) {
            Some(SweepError::Invalid(d)) => d.to_plain(),
            other => format!("{other:?}"),
        };
        assert!(zero.contains("at least 1"), "{zero}");
        assert!(zero.contains("--vary attempts=0"), "{zero}");
    }
}
