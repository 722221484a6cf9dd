//! Helpers shared by the tests that run scenarios written as text or
//! models built in code. Each test binary compiles this file and uses a
//! part of it.
#![allow(dead_code)]

use squall_engine::outcome::{Answer, FailKind};
use squall_engine::{Observations, Simulation};
use squall_lang::{Model, RunKey};

/// Loads `text` (failing with its diagnostics), runs its first variant,
/// and checks that it takes time and that every request and every call is
/// accounted for.
pub fn run_text(text: &str) -> Observations {
    let obs = run_text_any(text);
    assert!(obs.timed.is_some(), "a run that takes time");
    obs
}

/// Loads `text` (failing with its diagnostics), runs its first variant,
/// and checks that every request is accounted for, and every call too when
/// it takes time.
pub fn run_text_any(text: &str) -> Observations {
    let s = squall_lang::load("test.squall", text).unwrap_or_else(|d| panic!("{}", d.to_plain()));
    let m = s.model_for(RunKey::Variant(0), &[]).unwrap();
    run_model(&m, None)
}

/// Runs `m` (keeping a log of at most `log` answered calls, if given) and
/// checks that every request is accounted for, and every call too when it
/// takes time.
pub fn run_model(m: &Model, log: Option<usize>) -> Observations {
    let mut b = Simulation::builder(m);
    if let Some(n) = log {
        b = b.call_log(n);
    }
    let obs = b
        .build()
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(obs.accounting.balances(), "{:?}", obs.accounting);
    if let Some(timed) = obs.timed.as_ref() {
        assert!(timed.calls.balances(), "{:?}", timed.calls);
    }
    obs
}

/// `(request, answer time [ms], latency [ms], queue timeout?)` per answered
/// call of a run with a call log, in the order answered (a call its
/// queue's discipline shed answers as a queue timeout too).
pub fn queue_answers(obs: &Observations) -> Vec<(u64, f64, f64, bool)> {
    let log = obs.call_log.as_ref().expect("a call log");
    let ms = log.units_per_tick as f64;
    log.rows
        .iter()
        .map(|r| {
            let timed_out =
                matches!(r.outcome, Answer::Fail(f) if f.kind == FailKind::QueueTimeout);
            (
                r.request,
                r.time as f64 / ms,
                r.latency as f64 / ms,
                timed_out,
            )
        })
        .collect()
}
