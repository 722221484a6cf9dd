//! pest's errors as diagnostics: a human name for every grammar rule, and
//! what was found where the error points.

use crate::diagnostic::Diagnostic;
use crate::span::Span;

use super::grammar::Rule;

/// What ends the text being parsed, as named in "found ..." messages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum End {
    /// A scenario file.
    File,
    /// A value on its own (`--set name=value`).
    Value,
    /// The hole of a `line` template, closed by `}`.
    Hole,
}

impl End {
    pub(super) fn name(self) -> &'static str {
        match self {
            End::File => "end of file",
            End::Value => "end of the value",
            End::Hole => "`}`",
        }
    }
}

/// Human names for grammar rules, used in "expected ..." messages.
pub(super) fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::ident => "a name",
        Rule::string | Rule::string_inner => "a quoted string",
        Rule::number => "a number",
        Rule::time_unit => "a time unit (`rounds`, `ms`, `s`, `min`, `h`)",
        Rule::rate_unit => "a unit",
        Rule::param_ref => "a `$param`",
        Rule::param_rate => "a rate such as `$n/s`",
        Rule::percent_value => "a percentage such as `10%`",
        Rule::rate => "a rate such as `4/round`",
        Rule::duration => "a duration such as `4 rounds` or `200ms`",
        Rule::value => "a value (a number, a rate such as `4/round`, a duration such as `200ms`, or a `$param`)",
        Rule::range | Rule::range_bound => "a range such as `101..160`",
        Rule::range_op => "`..` or `..<`",
        Rule::name_list => "a list of names such as `[a, b]`",
        Rule::scenario => "`scenario \"name\" { ... }`",
        Rule::clock_decl => "`clock`",
        Rule::run_decl => "`run`",
        Rule::seed_decl => "`seed`",
        Rule::draws_decl => "`draws`",
        Rule::work_budget_decl => "`work_budget`",
        Rule::param_decl => "`param`",
        Rule::source_decl => "`source`",
        Rule::chain_decl => "`chain`",
        Rule::service_decl => "`service`",
        Rule::fault_decl => "`fault`",
        Rule::window_decl => "`window`",
        Rule::link_decl => "`link`",
        Rule::link_answer => "`answer latency`",
        Rule::variant_decl => "`variant`",
        Rule::sweep_decl => "`sweep`",
        Rule::report_decl => "`report`",
        Rule::expect_decl => "`expect`",
        Rule::rate_prop => "`rate`",
        Rule::enters_prop => "`enters`",
        Rule::arrivals_prop => "`arrivals`",
        Rule::capacity_prop => "`capacity`",
        Rule::retry_block => "`retry { ... }`",
        Rule::attempts_prop => "`attempts`",
        Rule::backoff_prop => "`backoff`",
        Rule::backoff_fixed => "`fixed`",
        Rule::backoff_exponential => "`exponential`",
        Rule::cross => "`x`",
        Rule::on_prop => "`on`",
        Rule::during_prop => "`during`",
        Rule::set_item => "`set`",
        Rule::without_item => "`without`",
        Rule::source_override => "`source`",
        Rule::service_override => "`service NAME { ... }`",
        Rule::removal => "`retry none`, `breaker none`, `budget none`, `hedge none`, `limiter none` or `throttle none`",
        Rule::removable => "`retry`, `breaker`, `budget`, `hedge`, `limiter` or `throttle`",
        Rule::none_word => "`none`",
        Rule::sweep_axis => "`name in [values]`",
        Rule::sweep_base => "`variant`",
        Rule::replications_decl => "`replications`",
        Rule::measure_decl => "`measure`",
        Rule::table_decl => "`table`",
        Rule::line_decl => "`line`",
        Rule::diagnose_decl => "`diagnose`",
        Rule::rows_prop => "`rows`",
        Rule::axis | Rule::axis_variants | Rule::axis_windows | Rule::axis_sweep => {
            "`variants`, `windows` or `sweep NAME`"
        }
        Rule::at_prop => "`at`",
        Rule::label_prop => "`label`",
        Rule::column_decl => "`column`",
        Rule::format_spec => "a format such as `:.2`",
        Rule::compare => "a comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`)",
        Rule::expect_compare | Rule::expect_range | Rule::expect_near => {
            "a check (`> 6`, `in 6.0..6.5` or `== 6.25 within 1%`)"
        }
        Rule::bound | Rule::quantity => "a bound (a number, a rate, a duration or an expression)",
        Rule::bound_rate => "a rate such as `25/round`",
        Rule::tolerance | Rule::percent => "a tolerance such as `0.1` or `5%`",
        Rule::expr | Rule::call | Rule::path => "an expression",
        Rule::paren => "`(`",
        Rule::add | Rule::sub | Rule::mul | Rule::div | Rule::pow => "an operator",
        Rule::neg => "`-`",
        Rule::epoch_decl => "`epoch`",
        Rule::provider_decl => "`provider`",
        Rule::sender_decl => "`sender`",
        Rule::send_override => "`sender NAME { ... }` or `provider NAME { ... }`",
        Rule::send_kind => "`sender` or `provider`",
        Rule::send_to => "`to PROVIDER`",
        Rule::send_setting => "a setting (`KEY ...`)",
        Rule::send_word => "a word",
        Rule::send_block => "`{ ... }`",
        Rule::send_codes | Rule::send_code_item => "a list of codes such as `[400, 500..599, 0x58]`",
        Rule::send_code | Rule::send_hex => "a code such as `429` or `0x58`",
        Rule::rng_decl => "`rng`",
        Rule::backoff_decl => "`backoff`",
        Rule::policy_decl => "`policy`",
        Rule::endpoint_decl => "`endpoint`",
        Rule::at_times => "`at [times]`",
        Rule::at_time => "a send time",
        Rule::request_prop => "`request`",
        Rule::sequential_block => "`sequential { ... }`",
        Rule::op_decl => "`op`",
        Rule::key_flag => "`idempotency_key`",
        Rule::deadline_prop => "`deadline`",
        Rule::retry_after_prop => "`retry_after`",
        Rule::unknown_prop => "`unknown_attempts`",
        Rule::pushback_prop => "`pushback`",
        Rule::gate_prop => "`gate`",
        Rule::backoff_kind | Rule::backoff_full | Rule::backoff_equal | Rule::backoff_decorrelated => {
            "a backoff (`fixed`, `exponential`, `full_jitter`, `equal_jitter`, `decorrelated`)"
        }
        Rule::cap_part => "`cap`",
        Rule::rng_use => "`rng`",
        Rule::breaker_block => "`breaker { ... }`",
        Rule::breaker_after => "`after N failures`",
        Rule::breaker_cooldown => "`cooldown`",
                Rule::breaker_probes => "`probes`",
        Rule::breaker_scope => "`per path`",
        Rule::budget_block => "`budget KIND { ... }`",
        Rule::hedge_block => "`hedge KIND { ... }`",
        Rule::limiter_block => "`limiter KIND { ... }`",
        Rule::throttle_block => "`throttle KIND { ... }`",
        Rule::setting => "a setting (`NAME VALUE`)",
        Rule::breaker_lib => "`breaker KIND { ... }`",
        Rule::route_decl | Rule::route_default => "`route NAME METHOD /path { ... }` or `default { ... }`",
        Rule::http_method => "an HTTP method (`GET`, `POST`, ... or `*`)",
        Rule::url_path => "a path such as `/items`",
        Rule::script | Rule::step | Rule::response | Rule::status_response => {
            "a response (a status such as `503`, `network_error`, `timeout`, `body_error`)"
        }
        Rule::status_code => "a status code",
                Rule::fail_prop => "`fail`",
        Rule::size | Rule::byte_unit => "a size such as `180 B` or `2 MiB`",
        Rule::word => "a word",
        Rule::end_mark => "`end`",
        Rule::after_warmup => "`after warmup`",
        Rule::warmup_decl => "`warmup`",
        Rule::fanout => "a list of nodes such as `[a, b]`",
        Rule::response_block => "`response { ... }`",
        Rule::field_decl => "`field NAME from NODE core|optional SIZE [timeout D]`",
        Rule::field_timeout => "`timeout D`",
        Rule::field_class => "`core` or `optional`",
        Rule::marker_prop => "`marker`",
        Rule::degrade_prop => "`policy`",
        Rule::ledger_block => "`ledger { ... }`",
        Rule::ledger_entries => "`entries`",
        Rule::ledger_stale => "`stale_for`",
        Rule::every_prop => "`every`",
                Rule::per_field => "`step N per field`",
        Rule::per_field_tail => "`per field` (a phase step is per field)",
        Rule::isolation_decl => "`isolation`",
        Rule::isolation_variants => "`variants [..]`",
        Rule::isolation_window => "`window`",
        Rule::waits_decl => "`waits`",
        Rule::herd_decl => "`herd`",
        Rule::operations_decl => "`operations`",
        Rule::trace_decl => "`trace`",
        Rule::chart_decl => "`chart`",
        Rule::chart_at => "`at NODE`",
        Rule::at_target => "a node",
        Rule::policies_prop => "`policies`",
                Rule::value_only => "a value",
        Rule::series_decl => "`series`",
        Rule::latency_prop | Rule::fault_latency => "`latency`",
        Rule::load_prop => "`load`",
        Rule::workers_prop => "`workers`",
        Rule::queue_prop => "`queue`",
        Rule::discipline_prop => "`discipline`",
        Rule::optimistic_prop => "`optimistic`",
        Rule::kw_conflict => "`conflict`",
        Rule::kw_items => "`items`",
        Rule::replicas_prop => "`replicas`",
        Rule::balance_prop => "`balance`",
        Rule::on_target => "a node",
        Rule::replica_index => "a replica index `[N]`",
        Rule::limit_prop => "`limit`",
        Rule::timeout_prop => "`timeout`",
        Rule::source_deadline => "`deadline`",
        Rule::source_clients => "`clients`",
        Rule::source_priority => "`priority`",
        Rule::think_prop => "`think`",
        Rule::serial_prop => "`serial`",
        Rule::rate_ramp | Rule::kw_to => "`to`",
        Rule::fault_errors => "`errors`",
        Rule::fault_answer => "`answer latency + D`",
        Rule::kw_latency => "`latency`",
        Rule::fault_partition => "`partition`",
        Rule::link_to => "`-> NODE`",
        Rule::dist_word => "a distribution (`lognormal`, `exponential`, `uniform`, `normal`, `table`)",
        Rule::dist_param => "a parameter (`mean`, `sd`, `low`, `high`, `p50`, ...)",
        Rule::percent_sign => "`%`",
        Rule::kw_per => "`per`",
        Rule::kw_call => "`call`",
        Rule::kw_timeout => "`timeout`",
        Rule::kw_unbounded => "`unbounded`",
        Rule::kw_burst => "`burst`",
        Rule::kw_status => "`status`",
        Rule::kw_retry_after => "`retry_after`",
        Rule::kw_cancel => "`cancel`",
        Rule::kw_wait => "`wait`",
        Rule::kw_max => "`max`",
        Rule::kw_propagate => "`propagate`",
        Rule::kw_plus => "`+`",
        Rule::kw_jitter => "`jitter`",
        Rule::kw_as => "`as`",
        Rule::kw_every => "`every`",
        Rule::consumers_prop => "`consumers`",
        Rule::work_prop => "`work`",
        Rule::poison_prop => "`poison`",
        Rule::redeliver_prop => "`redeliver`",
        Rule::redeliver_kind => "a backoff kind (`fixed`, `exponential`, `full_jitter`, `equal_jitter`, `decorrelated`)",
        Rule::max_receives_prop => "`max_receives`",
        Rule::dead_letter_prop => "`dead_letter`",
        Rule::kw_immediately => "`immediately`",
        Rule::kw_cap => "`cap`",
        _ => "something else",
    }
}

/// Longest stretch of the input quoted in a "found ..." message.
pub(super) const MAX_FOUND_CHARS: usize = 40;

/// The offending token at byte `start`: up to the next whitespace, at least
/// one character, at most [`MAX_FOUND_CHARS`]. Returns its end.
pub(super) fn token_end(source: &str, start: usize) -> usize {
    let rest = source.get(start..).unwrap_or("");
    let mut end = start;
    for (n, (i, c)) in rest.char_indices().enumerate() {
        if n >= MAX_FOUND_CHARS || (n > 0 && c.is_whitespace()) {
            break;
        }
        end = start + i + c.len_utf8();
        if c.is_whitespace() {
            break;
        }
    }
    end
}

/// `text` for a message: invisible characters spelled out.
pub(super) fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// True when the `"` at `start` opens a string that the line never closes.
pub(super) fn unclosed_string_at(source: &str, start: usize) -> bool {
    let Some(rest) = source.get(start..).and_then(|r| r.strip_prefix('"')) else {
        return false;
    };
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return false,
            '\n' => return true,
            _ => {}
        }
    }
    true
}

/// The time units, spelled as the grammar reads them.
const TIME_UNITS: [&str; 6] = ["rounds", "round", "ms", "s", "min", "h"];

/// Spellings of the time units that other tools accept, and the unit each
/// means here.
const UNIT_SPELLINGS: [(&str, &str); 17] = [
    ("msec", "ms"),
    ("msecs", "ms"),
    ("millis", "ms"),
    ("millisecond", "ms"),
    ("milliseconds", "ms"),
    ("sec", "s"),
    ("secs", "s"),
    ("second", "s"),
    ("seconds", "s"),
    ("m", "min"),
    ("mins", "min"),
    ("minute", "min"),
    ("minutes", "min"),
    ("hr", "h"),
    ("hrs", "h"),
    ("hour", "h"),
    ("hours", "h"),
];

/// A word right after a number, where a time unit may stand, that reads as
/// a misspelt unit (`50 msec`, `5sec`, `240 seconds`): "did you mean `ms`?"
/// instead of every keyword the grammar would take there.
fn unit_typo(found: &str, span: Span) -> Option<Diagnostic> {
    let word: String = found
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    if word.is_empty() {
        return None;
    }
    let meant = UNIT_SPELLINGS
        .iter()
        .find(|(spelling, _)| spelling.eq_ignore_ascii_case(&word))
        .map(|(_, unit)| *unit)
        .or_else(|| {
            crate::diagnostic::suggest(&word, TIME_UNITS.iter().copied())
                .filter(|unit| *unit != word)
        })?;
    let span = Span::new(span.start, span.start + word.len());
    Some(
        Diagnostic::new(format!("unknown time unit `{word}`"), span)
            .label("not a time unit")
            .help(format!(
                "did you mean `{meant}`? the time units are `rounds`, `ms`, `s`, `min` and `h`"
            )),
    )
}

pub(super) fn from_pest(e: pest::error::Error<Rule>, source: &str, end: End) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
    let start = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((a, _)) => a,
    };
    let mut start = start.min(source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let stop = token_end(source, start);
    let found = source.get(start..stop).unwrap_or("");
    let span = Span::new(start, stop);
    let attempts = e.parse_attempts();
    match e.variant {
        ErrorVariant::ParsingError {
            positives,
            negatives,
        } => {
            if unclosed_string_at(source, start) {
                return Diagnostic::new(
                    "expected `\"` to close this string, found the end of the line",
                    Span::new(start, start + 1),
                )
                .label("the string starts here")
                .help("a string ends with `\"` on the line where it starts");
            }
            if positives.contains(&Rule::time_unit) {
                if let Some(d) = unit_typo(found, span) {
                    return d;
                }
            }
            let mut names: Vec<&str> = Vec::new();
            for r in &positives {
                let name = match r {
                    // `+ 1` after a range bound is optional: naming it in
                    // every error that follows a range would be noise.
                    Rule::bound_term | Rule::bound_sign => continue,
                    Rule::EOI => end.name(),
                    r => rule_name(*r),
                };
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            // A word was wanted where a keyword stands (`draws` followed by
            // the next item): the only thing tried was "not a keyword".
            if names.is_empty() && negatives.contains(&Rule::reserved) {
                names.push("a word");
            }
            // Closing brackets are literals, which pest lists only among the
            // tokens it tried, not among the rules.
            if let Some(attempts) = attempts {
                for token in attempts.expected_tokens() {
                    let name = match token.to_string().as_str() {
                        "}" => "`}`",
                        ")" => "`)`",
                        "]" => "`]`",
                        _ => continue,
                    };
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            let expected = match names.split_last() {
                None => "something else".to_string(),
                Some((last, [])) => (*last).to_string(),
                Some((last, rest)) => format!("{} or {}", rest.join(", "), last),
            };
            let found_text = if found.is_empty() {
                end.name().to_string()
            } else {
                format!("`{}`", visible(found))
            };
            let label = match (found.is_empty(), names.as_slice()) {
                (true, _) => format!("{} here", end.name()),
                (false, [one]) => format!("expected {one}"),
                (false, _) => "not expected here".to_string(),
            };
            // A misspelt keyword: name the closest expected one.
            let keywords: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            let word: String = found
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let hint = if word.is_empty() {
                None
            } else {
                crate::diagnostic::did_you_mean(&word, keywords)
            };
            // Text after the scenario's closing brace: most often an item
            // written after a `}` that closed the scenario too early.
            let hint = hint.or_else(|| {
                (end == End::File && names == [end.name()] && !found.is_empty()).then(|| {
                    "a file holds one `scenario \"NAME\" { ... }` and every item goes inside its braces: is there a `}` too many above this line?".to_string()
                })
            });
            Diagnostic::new(format!("expected {expected}, found {found_text}"), span)
                .label(label)
                .maybe_help(hint)
        }
        ErrorVariant::CustomError { message } => {
            if message.contains("call limit") || message.contains("stack limit") {
                Diagnostic::new("the input is too large or too deeply nested to read", span)
                    .label("gave up here")
                    .help("simplify the expression, or split the file")
            } else {
                Diagnostic::new(message, span)
            }
        }
    }
}
