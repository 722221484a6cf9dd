//! The book's charts are what the commands make now: each line of
//! `book/charts.txt` is a `squall` command a reader runs (`squall run FILE
//! --charts DIR`); run into a fresh folder, it writes exactly the files
//! committed in DIR, byte for byte. `just book-charts` rewrites them. Every
//! chart a chapter shows is one of them, and every folder is shown.
//!
//! In a debug build the default suite redraws a sample of the folders
//! ([`SAMPLE`]: a run, a sweep and a timed run's charts); all of them with
//! `SQUALL_LONG_TESTS=1` (`just fuzz`), or with the binary named by
//! `SQUALL_BOOK_CHARTS_BIN`, which is how `.ci/run` checks every folder with
//! the release build after the test step.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{long_tests, read, root, run_cmd, squall_at, squall_in};

/// The folders the default debug suite redraws.
const SAMPLE: [&str; 3] = [
    "book/src/charts/retry-storm",
    "book/src/charts/replications",
    "book/src/charts/hedging",
];

/// The commands of `book/charts.txt`, each with its `--charts` folder.
fn commands() -> Vec<(Vec<String>, String)> {
    read("book/charts.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let args: Vec<String> = l.split_whitespace().map(String::from).collect();
            let at = args
                .iter()
                .position(|a| a == "--charts")
                .unwrap_or_else(|| panic!("no --charts in `{l}`"));
            let dir = args.get(at + 1).cloned().unwrap_or_default();
            (args, dir)
        })
        .collect()
}

/// The files of a folder, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn the_committed_book_charts_are_what_the_commands_make_now() {
    let cmds = commands();
    assert!(cmds.len() >= 8, "{cmds:?}");
    for dir in SAMPLE {
        assert!(
            cmds.iter().any(|(_, d)| d == dir),
            "{dir} is not in book/charts.txt"
        );
    }
    let bin = std::env::var_os("SQUALL_BOOK_CHARTS_BIN").map(PathBuf::from);
    let every = bin.is_some() || long_tests();
    let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (args, dir) in cmds
        .iter()
        .filter(|(_, d)| every || SAMPLE.contains(&d.as_str()))
    {
        let fresh = scratch.path().join(dir.replace('/', "_"));
        let fresh_text = fresh.display().to_string();
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if a == dir {
                    fresh_text.as_str()
                } else {
                    a.as_str()
                }
            })
            .collect();
        let command = match &bin {
            Some(bin) => squall_at(&root().join(bin), &root()),
            None => squall_in(&root()),
        };
        let (code, _, err) = run_cmd(command, &args);
        assert_eq!(code, 0, "squall {}: {err}", args.join(" "));
        let (made, committed) = (files(&fresh), files(&root().join(dir)));
        assert!(made.keys().any(|n| n.ends_with(".svg")), "{dir}: no chart");
        let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            names(&committed),
            names(&made),
            "{dir} holds other files than `squall {}` writes: run `just book-charts`",
            args.join(" ")
        );
        for (name, bytes) in &made {
            assert!(
                committed.get(name) == Some(bytes),
                "{dir}/{name} is not what `squall {}` draws now: run `just book-charts` and commit",
                args.join(" ")
            );
        }
    }
}

#[test]
fn chapters_show_the_charts_and_every_folder_is_shown() {
    let cmds = commands();
    let mut shown: Vec<String> = Vec::new();
    for e in std::fs::read_dir(root().join("book/src"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for (i, _) in text.match_indices("](charts/") {
            let link = &text[i + 2..];
            let link = &link[..link.find(')').unwrap_or(link.len())];
            assert!(
                root().join("book/src").join(link).is_file(),
                "{}: no {link}",
                p.display()
            );
            shown.push(format!("book/src/{link}"));
        }
    }
    for (_, dir) in &cmds {
        assert!(
            shown.iter().any(|s| s.starts_with(&format!("{dir}/"))),
            "no chapter shows a chart of {dir}"
        );
    }
}
