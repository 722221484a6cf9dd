//! What a caller asks of a study, read from text: settings (`NAME=VALUE`),
//! variants by name, axes to vary (`NAME=V1,V2,...`), a shard (`K/N`).
//! Shared by the command line and the Python package, so both accept and
//! refuse the same things with the same words. A refusal is an [`ArgError`]:
//! a kind with its data, which names no command-line flag; the caller words
//! it with its own [`Spelling`] of the inputs (`--set` on the command line,
//! `set` in Python), so the flag is the CLI's to name.

use squall_lang::ast::Value;
use squall_lang::model::MAX_REPLICATIONS;
use squall_lang::needs::{Need, Needs};
use squall_lang::not_a::NotA;
use squall_lang::resolve::sweep::SweepError;
use squall_lang::unknown::Unknown;
use squall_lang::{Scenario, Setting};

/// Which of a caller's inputs a refusal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A setting, `NAME=VALUE` (`squall run --set`).
    Set,
    /// An axis to vary, `NAME=V1,V2,...` (`squall sweep --vary`).
    Vary,
    /// A slice of a sweep's points, `K/N` (`squall sweep --shard`).
    Shard,
}

impl Input {
    /// The form its text takes, and an example of it.
    fn form(self) -> (&'static str, &'static str) {
        match self {
            Input::Set => ("the form NAME=VALUE", "attempts=2"),
            Input::Vary => ("the form NAME=V1,V2,...", "attempts=1,2,3"),
            Input::Shard => ("the form K/N with 1 <= K <= N", "2/3"),
        }
    }
}

/// How a caller spells each [`Input`] in its messages: the command line by
/// its flags, the Python package by its keywords ([`Spelling::PLAIN`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spelling {
    /// How a setting is given.
    pub set: &'static str,
    /// How an axis is given.
    pub vary: &'static str,
    /// How a shard is given.
    pub shard: &'static str,
    /// How a count of replications is given.
    pub replications: &'static str,
}

impl Spelling {
    /// The inputs by their plain words, as the Python package's keywords
    /// name them; what an [`ArgError`] displays.
    pub const PLAIN: Spelling = Spelling {
        set: "set",
        vary: "vary",
        shard: "shard",
        replications: "replications",
    };

    /// How `input` is spelled.
    pub fn of(&self, input: Input) -> &'static str {
        match input {
            Input::Set => self.set,
            Input::Vary => self.vary,
            Input::Shard => self.shard,
        }
    }
}

/// Why what a caller asks cannot be read: a kind and its data. Worded by
/// [`ArgError::words`] in the caller's [`Spelling`]; `Display` words it
/// with [`Spelling::PLAIN`], so it names no flag.
#[derive(Debug, Clone)]
pub enum ArgError {
    /// The text is not of its input's form (`attempts` for a setting):
    /// "needs the form".
    Form {
        /// The input.
        input: Input,
        /// The text as given.
        text: String,
    },
    /// An axis with no param before its `=`.
    NoName {
        /// The text as given.
        text: String,
    },
    /// A setting names a param the scenario does not declare.
    UnknownParam {
        /// The setting as given.
        text: String,
        /// The name.
        name: String,
        /// The scenario's params.
        known: Vec<String>,
    },
    /// A value that does not read as one.
    Value {
        /// The input.
        input: Input,
        /// The text as given.
        text: String,
        /// The value, when the text lists several.
        value: Option<String>,
        /// Why it does not read.
        why: String,
    },
    /// A variant the scenario does not declare.
    UnknownVariant {
        /// The name as given.
        name: String,
        /// The scenario's variants.
        known: Vec<String>,
    },
    /// Axes that do not make a sweep.
    Sweep(SweepError),
    /// A count of replications out of 2 ..= [`MAX_REPLICATIONS`].
    Replications {
        /// The count as given.
        n: u64,
    },
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words(&Spelling::PLAIN))
    }
}

impl std::error::Error for ArgError {}

impl ArgError {
    /// The refusal in words, each input spelled as `spelling` says. The
    /// families' builders word it: [`Needs`] a text without its form,
    /// [`Unknown`] a name that names nothing (with "did you mean").
    pub fn words(&self, spelling: &Spelling) -> String {
        match self {
            ArgError::Form { input, text } => {
                let flag = spelling.of(*input);
                let (form, example) = input.form();
                let who = format!("`{flag} {text}`");
                Needs::new(&who, Need::Words(form))
                    .help(format!("e.g. `{flag} {example}`"))
                    .plain()
            }
            ArgError::NoName { text } => {
                let who = format!("`{} {text}`", spelling.vary);
                Needs::new(&who, Need::Words("a param before its `=`")).plain()
            }
            ArgError::UnknownParam { text, name, known } => format!(
                "`{} {text}`: {}",
                spelling.set,
                Unknown::new("param", name).plain(&names(known))
            ),
            ArgError::Value {
                input,
                text,
                value,
                why,
            } => match value {
                Some(v) => format!("`{} {text}`: `{v}`: {why}", spelling.of(*input)),
                None => format!("`{} {text}`: {why}", spelling.of(*input)),
            },
            ArgError::UnknownVariant { name, known } => {
                Unknown::new("variant", name).plain(&names(known))
            }
            ArgError::Sweep(e) => sweep_words(e, spelling.vary),
            ArgError::Replications { n } => {
                format!(
                    "`{} {n}`: give 2 to {MAX_REPLICATIONS} replications; one has no interval, \
                     and each repeats every run (10 to 30 give a usable interval)",
                    spelling.replications
                )
            }
        }
    }
}

/// The names, borrowed, for [`Unknown::plain`].
fn names(known: &[String]) -> Vec<&str> {
    known.iter().map(String::as_str).collect()
}

/// Why axes do not make a sweep, in words; `vary` is how the caller spells
/// an axis.
fn sweep_words(e: &SweepError, vary: &str) -> String {
    match e {
        SweepError::NoAxes => Needs::new("a sweep", Need::Words("at least one axis"))
            .help(format!("give one as `{vary} NAME=V1,V2,...`"))
            .plain(),
        SweepError::UnknownParam {
            param,
            suggestion: _,
            known,
        } => Unknown::new("param", param)
            .within("to vary")
            .plain(&names(known)),
        SweepError::VariedTwice { param } => {
            format!("`{param}` is varied twice; give all its values in one `{vary} {param}=...`")
        }
        SweepError::NoValues { param } => {
            let who = format!("`{vary} {param}=`");
            Needs::new(&who, Need::Words("at least one value"))
                .help(format!("list them, e.g. `{vary} {param}=1,2,3`"))
                .plain()
        }
        SweepError::NotASeed { value } => NotA::new(value, "a seed")
            .help(format!(
                "`{vary} seed=` takes whole numbers from 0 to 10^15"
            ))
            .plain(),
        SweepError::NoVariant { index } => format!("no variant number {index}"),
        SweepError::TooManyPoints { count, max } => format!(
            "the sweep has {count} points, more than the {max} squall runs at once; \
             vary fewer values, or split the study into several sweeps"
        ),
        SweepError::Invalid(d) => d.to_plain(),
    }
}

/// Settings (`NAME=VALUE`), checked against the scenario's params; each
/// keeps how it was given (`spelling`'s word for a setting, then the text)
/// as its origin, for the diagnostics of a value that does not fit.
pub fn parse_sets(
    scenario: &Scenario,
    sets: &[String],
    spelling: &Spelling,
) -> Result<Vec<Setting>, ArgError> {
    let mut out = Vec::new();
    for s in sets {
        let Some((name, value)) = s.split_once('=') else {
            return Err(ArgError::Form {
                input: Input::Set,
                text: s.clone(),
            });
        };
        let name = name.trim();
        if !scenario.params.contains_key(name) {
            return Err(ArgError::UnknownParam {
                text: s.clone(),
                name: name.to_string(),
                known: scenario.params.keys().cloned().collect(),
            });
        }
        let value = squall_lang::parse::parse_value(value.trim()).map_err(|d| ArgError::Value {
            input: Input::Set,
            text: s.clone(),
            value: None,
            why: d.message,
        })?;
        out.push(Setting {
            name: name.to_string(),
            value,
            origin: Some(format!("{} {s}", spelling.set)),
        });
    }
    Ok(out)
}

/// Replaces the report's `replications` with `n` (`--replications N`):
/// the same bounds as the line in the file, at least 2 (one replication
/// has no interval) and at most [`MAX_REPLICATIONS`]. A report that then
/// makes `n` replications reads exactly as one whose file says
/// `replications n`, since the planner reads only the count.
pub fn set_replications(scenario: &mut Scenario, n: u64) -> Result<(), ArgError> {
    match u32::try_from(n) {
        Ok(count @ 2..=MAX_REPLICATIONS) => {
            scenario.report.replications = Some(count);
            Ok(())
        }
        _ => Err(ArgError::Replications { n }),
    }
}

/// A variant by name or label.
pub fn find_variant(scenario: &Scenario, v: &str) -> Result<usize, ArgError> {
    scenario
        .variants
        .iter()
        .position(|x| x.name == *v || x.label == *v)
        .ok_or_else(|| ArgError::UnknownVariant {
            name: v.to_string(),
            known: scenario.variants.iter().map(|x| x.name.clone()).collect(),
        })
}

/// Reads an axis, `NAME=V1,V2,...`.
pub fn parse_vary(text: &str) -> Result<(String, Vec<Value>), ArgError> {
    let Some((name, values)) = text.split_once('=') else {
        return Err(ArgError::Form {
            input: Input::Vary,
            text: text.to_string(),
        });
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(ArgError::NoName {
            text: text.to_string(),
        });
    }
    let mut out = Vec::new();
    for v in values.split(',') {
        let v = v.trim();
        if v.is_empty() {
            continue;
        }
        let value = squall_lang::parse::parse_value(v).map_err(|d| ArgError::Value {
            input: Input::Vary,
            text: text.to_string(),
            value: Some(v.to_string()),
            why: d.message,
        })?;
        out.push(value);
    }
    Ok((name.to_string(), out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vary_reads_a_name_and_its_values() {
        let (name, values) = parse_vary("attempts=1, 2,3").unwrap_or_default();
        assert_eq!(name, "attempts");
        assert_eq!(values.len(), 3);
        assert!(parse_vary("attempts").is_err());
        assert!(parse_vary("=1,2").is_err());
    }

    /// A spelling as a command line might give (the report crate has none
    /// of its own).
    const DASHED: Spelling = Spelling {
        set: "--set",
        vary: "--vary",
        shard: "--shard",
        replications: "--replications",
    };

    /// One of each kind (every sweep refusal but `Invalid`, which carries
    /// the language's own located diagnostics).
    fn one_of_each() -> Vec<ArgError> {
        let text = |t: &str| t.to_string();
        let mut all = vec![
            ArgError::Form {
                input: Input::Set,
                text: text("attempts"),
            },
            ArgError::Form {
                input: Input::Vary,
                text: text("attempts"),
            },
            ArgError::Form {
                input: Input::Shard,
                text: text("4/3"),
            },
            ArgError::NoName { text: text("=1,2") },
            ArgError::UnknownParam {
                text: text("atempts=2"),
                name: text("atempts"),
                known: vec![text("attempts"), text("spacing")],
            },
            ArgError::Value {
                input: Input::Vary,
                text: text("attempts=1,%"),
                value: Some(text("%")),
                why: text("expected a value"),
            },
            ArgError::UnknownVariant {
                name: text("strom"),
                known: vec![text("storm")],
            },
        ];
        let param = text("attempts");
        for e in [
            SweepError::NoAxes,
            SweepError::UnknownParam {
                param: text("atempts"),
                suggestion: Some(param.clone()),
                known: vec![param.clone()],
            },
            SweepError::VariedTwice {
                param: param.clone(),
            },
            SweepError::NoValues { param },
            SweepError::NotASeed { value: text("-1") },
            SweepError::NoVariant { index: 7 },
            SweepError::TooManyPoints { count: 9, max: 8 },
        ] {
            all.push(ArgError::Sweep(e));
        }
        all.push(ArgError::Replications { n: 1 });
        all
    }

    /// The report crate's words name no flag; the caller's spelling is the
    /// only source of one, and every message that names an input names it
    /// as spelled.
    #[test]
    fn only_the_callers_spelling_names_a_flag() {
        for e in one_of_each() {
            let plain = e.to_string();
            assert!(!plain.contains("--"), "{plain}");
            let dashed = e.words(&DASHED);
            let names_input = !matches!(
                e,
                ArgError::UnknownVariant { .. }
                    | ArgError::Sweep(
                        SweepError::UnknownParam { .. }
                            | SweepError::NoVariant { .. }
                            | SweepError::TooManyPoints { .. }
                    )
            );
            assert_eq!(dashed.contains("--"), names_input, "{dashed}");
        }
    }

    /// The wording of the kinds the CLI tests and the book quote
    /// (hand-worded: today's sentences, through the families' builders).
    #[test]
    fn each_kind_words_its_refusal() {
        let words: Vec<String> = one_of_each().iter().map(|e| e.words(&DASHED)).collect();
        assert_eq!(
            words[0],
            "`--set attempts` needs the form NAME=VALUE; e.g. `--set attempts=2`"
        );
        assert_eq!(
            words[2],
            "`--shard 4/3` needs the form K/N with 1 <= K <= N; e.g. `--shard 2/3`"
        );
        assert_eq!(
            words[4],
            "`--set atempts=2`: unknown param `atempts`; did you mean `attempts`? \
             (params: attempts, spacing)"
        );
        assert_eq!(
            words[6],
            "unknown variant `strom`; did you mean `storm`? (variants: storm)"
        );
        assert_eq!(
            words[8],
            "unknown param `atempts` to vary; did you mean `attempts`? (params: attempts)"
        );
        assert_eq!(
            words[11],
            "`-1` is not a seed; `--vary seed=` takes whole numbers from 0 to 10^15"
        );
        assert_eq!(
            words[14],
            "`--replications 1`: give 2 to 1000 replications; one has no interval, \
             and each repeats every run (10 to 30 give a usable interval)"
        );
    }

    /// `--replications N` takes the file's own bounds (`validate/report.rs`:
    /// at least 2, at most `MAX_REPLICATIONS`) and sets the count the
    /// planner reads, so the two ends are accepted and their neighbours not.
    #[test]
    fn replications_take_the_files_bounds() {
        let text =
            "scenario \"r\" { run 2 rounds  source u { rate 1/round  enters a }  chain a -> b }";
        let mut s = squall_lang::load("r.squall", text).unwrap_or_else(|e| panic!("{e}"));
        for bad in [0, 1, u64::from(MAX_REPLICATIONS) + 1, u64::MAX] {
            assert!(set_replications(&mut s, bad).is_err(), "{bad}");
            assert_eq!(s.report.replications, None, "{bad} left the count alone");
        }
        for good in [2, MAX_REPLICATIONS] {
            assert!(set_replications(&mut s, u64::from(good)).is_ok());
            assert_eq!(s.report.replications, Some(good));
        }
    }
}
