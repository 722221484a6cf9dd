//! Outputs that respect what they replace (issue 20): a FIFO or `-` is
//! written through, a link's target is written by every output, an
//! interrupted write leaves no temporary file or SQLite journal, two outputs
//! onto one file and an unwritable output are refused before anything runs,
//! and `squall new` refuses names that are folders or hold a newline.
//!
//! Interrupts are injected (`SQUALL_STOP_AT_WRITE` runs the Ctrl-C handler's
//! own routine at a stage of the write): no signal, no timer, no race.

use std::path::Path;

use crate::hostile::{read, temp, write, TINY};
use crate::support::{root as repo, run_in, split, squall_in};

/// The names in `dir`, sorted (hidden ones too: temporary files are hidden).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{e}"))
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

// ---------------------------------------------------- what a path names --

#[cfg(unix)]
#[test]
fn a_fifo_is_written_through_not_replaced() {
    use std::os::unix::fs::FileTypeExt as _;
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    let fifo = d.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap_or_else(|e| panic!("mkfifo: {e}"));
    assert!(made.success());
    // The reader blocks until squall opens the FIFO for writing; had squall
    // renamed a file over it, the reader would wait on the old FIFO and the
    // type check below fails first.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo))
    };
    let (code, _, err) = run_in(d, &["run", "tiny.squall", "--out", "pipe"]);
    assert_eq!(code, 0, "{err}");
    let kind = std::fs::symlink_metadata(&fifo).map(|m| m.file_type().is_fifo());
    assert!(matches!(kind, Ok(true)), "the FIFO was replaced: {kind:?}");
    let got = reader
        .join()
        .unwrap_or_else(|_| panic!("reader panicked"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(got.starts_with("tiny\n"), "{got}");
    assert_eq!(names(d), vec!["pipe", "tiny.squall"]);
}

#[test]
fn dash_is_standard_output() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    let (code, out, err) = run_in(d, &["run", "tiny.squall", "--out", "-"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("tiny\n"), "{out}");
    // The series to standard output, the report to a file.
    let (code, out, err) = run_in(
        d,
        &["run", "tiny.squall", "--out", "r.txt", "--series", "-"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("run,tick,"), "{out}");
    assert_eq!(names(d), vec!["r.txt", "tiny.squall"], "no file named `-`");
}

#[cfg(unix)]
#[test]
fn events_and_the_attempt_log_write_through_a_link() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    std::os::unix::fs::symlink("calls.jsonl", d.join("ev.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run_in(d, &["run", "tiny.squall", "--events", "ev.jsonl"]);
    assert_eq!(code, 0, "{err}");
    assert!(is_link(&d.join("ev.jsonl")), "the link was replaced");
    assert!(read(&d.join("calls.jsonl")).starts_with('{'));

    std::fs::copy(
        repo().join("scenarios/rate-limit.squall"),
        d.join("rl.squall"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("attempts.csv", d.join("log.csv")).unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run_in(d, &["run", "rl.squall", "--attempt-log", "log.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(is_link(&d.join("log.csv")), "the link was replaced");
    assert!(read(&d.join("attempts.csv")).starts_with("record_id,"));
}

// ------------------------------------------------------------ interrupts --

#[test]
fn an_interrupt_before_the_rename_leaves_the_old_file_and_nothing_else() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    write(&d.join("r.txt"), "old\n");
    let out = squall_in(d)
        .env("SQUALL_STOP_AT_WRITE", "before-rename")
        .args(["run", "tiny.squall", "--out", "r.txt"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = split(&out);
    // 130: 128 + SIGINT, what a shell reports for Ctrl-C.
    assert_eq!(code, 130, "{err}");
    assert!(err.contains("removed 1 unfinished file"), "{err}");
    assert_eq!(read(&d.join("r.txt")), "old\n");
    assert_eq!(names(d), vec!["r.txt", "tiny.squall"]);

    // A sweep's writes are cleaned up the same way (the starter has a
    // sweep).
    let (code, _, err) = run_in(d, &["new", "starter"]);
    assert_eq!(code, 0, "{err}");
    let out = squall_in(d)
        .env("SQUALL_STOP_AT_WRITE", "before-rename")
        .args(["sweep", "starter.squall", "--out", "s.txt"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = split(&out);
    assert_eq!(code, 130, "{err}");
    assert_eq!(names(d), vec!["r.txt", "starter.squall", "tiny.squall"]);
}

#[test]
fn an_interrupt_mid_transaction_leaves_no_journal() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    let out = squall_in(d)
        .env("SQUALL_STOP_AT_WRITE", "in-transaction")
        .args(["run", "tiny.squall", "--events", "calls.sqlite"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = split(&out);
    assert_eq!(code, 130, "{err}");
    // Neither `.calls.sqlite.PID.tmp` nor its `-journal`.
    assert_eq!(names(d), vec!["tiny.squall"]);

    std::fs::copy(
        repo().join("scenarios/rate-limit.squall"),
        d.join("rl.squall"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = squall_in(d)
        .env("SQUALL_STOP_AT_WRITE", "in-transaction")
        .args(["run", "rl.squall", "--attempt-log", "log.sqlite"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = split(&out);
    assert_eq!(code, 130, "{err}");
    assert_eq!(names(d), vec!["rl.squall", "tiny.squall"]);
}

// ------------------------------------------------- checked before running --

#[test]
fn two_outputs_onto_one_file_are_refused_before_the_run() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    let cases: [&[&str]; 4] = [
        &["--series", "f.csv", "--chart", "f.csv"],
        &["--out", "r.html", "--html", "r.html"],
        &["--out", "r.html", "--html", "./sub/../r.html"],
        // No `--out`: the report goes to standard output, as would the series.
        &["--series", "-"],
    ];
    std::fs::create_dir_all(d.join("sub")).unwrap_or_else(|e| panic!("{e}"));
    for extra in cases {
        let mut args = vec!["run", "tiny.squall"];
        args.extend_from_slice(extra);
        let (code, out, err) = run_in(d, &args);
        assert_eq!(code, 3, "{extra:?}: {err}");
        assert!(
            err.contains("name the same file") || err.contains("both write to standard output"),
            "{extra:?}: {err}"
        );
        assert!(out.is_empty(), "{extra:?} ran: {out}");
        assert_eq!(names(d), vec!["sub", "tiny.squall"], "{extra:?}");
    }
}

#[test]
fn an_unwritable_output_fails_before_any_other_is_written() {
    let dir = temp();
    let d = dir.path();
    write(&d.join("tiny.squall"), TINY);
    // A missing folder: unwritable even for root (permissions are not).
    let (code, _, err) = run_in(
        d,
        &[
            "run",
            "tiny.squall",
            "--series",
            "s.csv",
            "--events",
            "e.jsonl",
            "--html",
            "missing/r.html",
        ],
    );
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("`--html missing/r.html`: cannot write there"),
        "{err}"
    );
    assert_eq!(names(d), vec!["tiny.squall"]);

    std::fs::copy(
        repo().join("scenarios/rate-limit.squall"),
        d.join("rl.squall"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = run_in(
        d,
        &[
            "run",
            "rl.squall",
            "--events",
            "e.jsonl",
            "--attempt-log",
            "missing/log.sqlite",
        ],
    );
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("--attempt-log missing/log.sqlite"), "{err}");
    assert_eq!(names(d), vec!["rl.squall", "tiny.squall"]);

    // A sweep refuses its `--out` before its first point.
    let (code, out, err) = run_in(
        d,
        &[
            "sweep",
            "tiny.squall",
            "--vary",
            "seed=1,2",
            "--out",
            "missing/s.txt",
        ],
    );
    assert_eq!(code, 3, "{err}");
    assert!(
        out.is_empty() && err.contains("cannot write there"),
        "{err}"
    );
}

// -------------------------------------------------------------------- new --

#[test]
fn new_refuses_folders_and_control_characters() {
    let dir = temp();
    let sub = dir.path().join("sub");
    std::fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{e}"));
    for name in ["studies/", "..", ".", ".squall", "studies/.squall"] {
        let (code, _, err) = run_in(&sub, &["new", name]);
        assert_eq!(code, 3, "{name}: {err}");
        assert!(err.contains("names a folder"), "{name}: {err}");
    }
    let (code, _, err) = run_in(&sub, &["new", "check\nout"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("control character"), "{err}");
    // Nothing written, here or above (`new ..` wrote `../...squall`).
    assert_eq!(names(&sub), Vec::<String>::new());
    assert_eq!(names(dir.path()), vec!["sub"]);
}
