//! `gate N%` in a retry policy (mbrooker's `retry_sim` retry gate): what it
//! resolves to, in a named policy, from a parameter and in a variant;
//! `squall fmt` keeping it; and its located errors (out of range, not a
//! plain number, on a policy that makes no retries, given twice).

use squall_lang::parse::parse_value;
use squall_lang::{RunKey, Setting};

use crate::common::{at, load_text_err, one_error};

const FILE: &str = r#"scenario "gates" {
  clock ms
  run 1s
  param share = 10
  policy gated { attempts 4  backoff fixed 1ms  gate 25% }
  source users { rate 10/s  enters api }
  chain api -> mid -> db
  service api { retry { attempts 4  backoff fixed 1ms  gate $share% } }
  service mid { retry gated }
  variant base "as declared" { }
  variant loose "api at 50 %" { service api { retry { attempts 4  backoff fixed 1ms  gate 50% } } }
  variant plain "api without a gate" { service api { retry { attempts 4  backoff fixed 1ms } } }
}
"#;

/// The gate of each node's retry policy, as a fraction.
fn gates(text: &str, variant: &str, set: &[(&str, &str)]) -> Vec<Option<f64>> {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let v = s.variants.iter().position(|v| v.name == variant).unwrap();
    let set: Vec<Setting> = set
        .iter()
        .map(|(name, value)| Setting {
            name: name.to_string(),
            value: parse_value(value).unwrap(),
            origin: Some(format!("--set {name}={value}")),
        })
        .collect();
    let m = s.model_for(RunKey::Variant(v), &set).unwrap();
    m.nodes
        .iter()
        .map(|n| n.retry.as_ref().and_then(|r| r.gate))
        .collect()
}

/// `gate 10%` is the fraction 0.1 (retry_sim's `max_rate` for 10 %: the
/// division 10 / 100 rounds to the same double as the literal 0.1); a
/// named policy carries its gate; a variant replaces the policy, gate and
/// all; a `--set` reaches the gate through its parameter.
#[test]
fn a_gate_resolves_to_a_fraction() {
    assert_eq!(gates(FILE, "base", &[]), [Some(0.1), Some(0.25), None]);
    assert_eq!(gates(FILE, "loose", &[]), [Some(0.5), Some(0.25), None]);
    assert_eq!(gates(FILE, "plain", &[]), [None, Some(0.25), None]);
    assert_eq!(
        gates(FILE, "base", &[("share", "0")]),
        [Some(0.0), Some(0.25), None]
    );
}

/// A policy without a gate writes no `gate` into the model's JSON, so the
/// models of every existing scenario stay as they were.
#[test]
fn no_gate_leaves_the_model_json_as_it_was() {
    let s = squall_lang::load("test.squall", FILE).unwrap();
    let plain = s.variants.iter().position(|v| v.name == "plain").unwrap();
    let m = s.model_for(RunKey::Variant(plain), &[]).unwrap();
    let api = serde_json::to_string(m.nodes[0].retry.as_ref().unwrap()).unwrap();
    assert!(!api.contains("gate"), "{api}");
    let mid = serde_json::to_string(m.nodes[1].retry.as_ref().unwrap()).unwrap();
    assert!(mid.contains("\"gate\":0.25"), "{mid}");
}

/// `squall fmt` writes the gate back with its sign, and the formatted
/// text resolves to the same gates.
#[test]
fn fmt_keeps_the_gate() {
    let pretty = squall_lang::format::format_source(FILE).expect("formats");
    assert!(pretty.contains("gate $share%"), "{pretty}");
    assert!(pretty.contains("gate 25%"), "{pretty}");
    for v in ["base", "loose", "plain"] {
        assert_eq!(gates(&pretty, v, &[]), gates(FILE, v, &[]), "{v}");
    }
    assert_eq!(
        squall_lang::format::format_source(&pretty).expect("formats"),
        pretty
    );
}

fn with_api(retry: &str) -> String {
    FILE.replace("attempts 4  backoff fixed 1ms  gate $share%", retry)
}

/// A share outside 0..100 % is refused where it is written; through a
/// parameter, at the parameter's value, naming the line that uses it (the
/// language's rule for a bad value from a `param`).
#[test]
fn a_gate_outside_0_to_100_percent_is_refused() {
    let text = with_api("attempts 4  backoff fixed 1ms  gate 101%");
    one_error(
        &text,
        "101%",
        "a retry gate is a percent in 0..100, found 101%",
    );
    let text = with_api("attempts 4  backoff fixed 1ms  gate -5%");
    let d = load_text_err(&text);
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
    let text = FILE.replace("param share = 10", "param share = 150");
    let d = load_text_err(&text);
    let plain = d.to_plain();
    assert!(plain.contains("found 150%"), "{plain}");
    assert_eq!(d.list[0].span.line_col(&d.source), at(&text, "150"));
    assert!(plain.contains("`$share` is used on line 8"), "{plain}");
}

/// A duration is not a share; a gate on a policy of one try is refused
/// (nothing to gate); a gate given twice is refused at the second.
#[test]
fn a_gate_is_a_plain_share_on_a_policy_that_retries() {
    let text = with_api("attempts 4  backoff fixed 1ms  gate 10ms%");
    one_error(
        &text,
        "10ms%",
        "a retry gate takes a plain number, found a duration",
    );
    let text = with_api("attempts 1  backoff fixed 1ms  gate 10%");
    one_error(
        &text,
        "10%",
        "a `gate` only refuses retries, and `attempts 1` makes none",
    );
    let text = with_api("attempts 4  backoff fixed 1ms  gate 10%  gate 20%");
    let d = load_text_err(&text);
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
    assert!(d.to_plain().contains("`gate`"), "{}", d.to_plain());
    assert_eq!(d.list[0].span.line_col(&d.source), at(&text, "gate 20%"));
}

/// `gate 10% window 10s` (squall's option beside the source's cumulative
/// counts): the window in ticks of the file's clock (10 s = 10 000 ms),
/// written back by `fmt`; a window that is not a duration, or of no time,
/// is refused at its value.
#[test]
fn a_gate_window_is_a_duration() {
    let text = with_api("attempts 4  backoff fixed 1ms  gate 10% window 10s");
    let s = squall_lang::load("test.squall", &text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    let api = m.nodes[0].retry.as_ref().unwrap();
    assert_eq!((api.gate, api.gate_window), (Some(0.1), Some(10_000)));
    assert_eq!(m.nodes[1].retry.as_ref().unwrap().gate_window, None);
    let pretty = squall_lang::format::format_source(&text).expect("formats");
    assert!(pretty.contains("gate 10% window 10s"), "{pretty}");
    let text = with_api("attempts 4  backoff fixed 1ms  gate 10% window 10");
    let d = load_text_err(&text);
    assert_eq!(d.list.len(), 1, "{}", d.to_plain());
    assert_eq!(d.list[0].span.line_col(&d.source), at(&text, "10 }"));
    assert!(d.to_plain().contains("a gate window"), "{}", d.to_plain());
    let text = with_api("attempts 4  backoff fixed 1ms  gate 10% window 0s");
    one_error(&text, "0s", "a gate window is at least one tick");
}
