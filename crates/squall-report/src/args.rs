//! What a caller asks of a study, read from text: `--set NAME=VALUE`
//! settings, variants by name, `--vary NAME=V1,V2,...` axes. Shared by the
//! command line and the Python package, so both accept and refuse the same
//! things with the same words. Errors are messages (lowercase, names in
//! backticks); the caller decides how to show them.

use squall_lang::ast::Value;
use squall_lang::resolve::sweep::SweepError;
use squall_lang::{Scenario, Setting};

/// `; did you mean `x`? (KIND: a, b)` for an unknown name, for messages.
pub fn unknown_hint<'a>(
    name: &str,
    kind: &str,
    known: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    let hint = squall_lang::diagnostic::did_you_mean(name, known.clone())
        .map(|h| format!("; {h}"))
        .unwrap_or_default();
    let list: Vec<&str> = known.into_iter().collect();
    let list = if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    };
    format!("{hint} ({kind}: {list})")
}

/// `--set NAME=VALUE` settings, checked against the scenario's params.
pub fn parse_sets(scenario: &Scenario, sets: &[String]) -> Result<Vec<Setting>, String> {
    let mut out = Vec::new();
    for s in sets {
        let Some((name, value)) = s.split_once('=') else {
            return Err(format!(
                "`--set {s}` needs the form NAME=VALUE, e.g. `--set attempts=2`"
            ));
        };
        let name = name.trim();
        if !scenario.params.contains_key(name) {
            return Err(format!(
                "`--set {s}`: the scenario has no param `{name}`{}",
                unknown_hint(name, "params", scenario.params.keys().map(String::as_str))
            ));
        }
        let value = squall_lang::parse::parse_value(value.trim())
            .map_err(|d| format!("`--set {s}`: {}", d.message))?;
        out.push(Setting {
            name: name.to_string(),
            value,
            origin: Some(format!("--set {s}")),
        });
    }
    Ok(out)
}

/// A variant by name or label.
pub fn find_variant(scenario: &Scenario, v: &str) -> Result<usize, String> {
    scenario
        .variants
        .iter()
        .position(|x| x.name == *v || x.label == *v)
        .ok_or_else(|| {
            format!(
                "no variant `{v}`{}",
                unknown_hint(
                    v,
                    "variants",
                    scenario.variants.iter().map(|x| x.name.as_str())
                )
            )
        })
}

/// Reads `--vary NAME=V1,V2,...`.
pub fn parse_vary(text: &str) -> Result<(String, Vec<Value>), String> {
    let Some((name, values)) = text.split_once('=') else {
        return Err(format!(
            "`--vary {text}` needs the form NAME=V1,V2,..., e.g. `--vary attempts=1,2,3`"
        ));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`--vary {text}` names no param"));
    }
    let mut out = Vec::new();
    for v in values.split(',') {
        let v = v.trim();
        if v.is_empty() {
            continue;
        }
        let value = squall_lang::parse::parse_value(v)
            .map_err(|d| format!("`--vary {text}`: `{v}`: {}", d.message))?;
        out.push(value);
    }
    Ok((name.to_string(), out))
}

/// Why `--vary` axes do not make a sweep, in words.
pub fn vary_error_text(e: &SweepError) -> String {
    match e {
        SweepError::NoAxes => "a sweep needs at least one `--vary NAME=V1,V2,...`".into(),
        SweepError::UnknownParam {
            param,
            suggestion,
            known,
        } => {
            let hint = suggestion
                .as_ref()
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            format!(
                "the scenario has no param `{param}` to vary{hint} (params: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        }
        SweepError::VariedTwice { param } => {
            format!("`{param}` is varied twice; give all its values in one `--vary {param}=...`")
        }
        SweepError::NoValues { param } => {
            format!("`--vary {param}=` gives no values; list them, e.g. `--vary {param}=1,2,3`")
        }
        SweepError::NotASeed { value } => format!(
            "`--vary seed=` takes seeds, whole numbers from 0 to 10^15; `{value}` is not one"
        ),
        SweepError::NoVariant { index } => format!("no variant number {index}"),
        SweepError::TooManyPoints { count, max } => format!(
            "the sweep has {count} points, more than the {max} squall runs at once; \
             vary fewer values, or split the study into several sweeps"
        ),
        SweepError::Invalid(d) => d.to_plain(),
    }
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
}
