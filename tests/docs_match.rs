//! The docs match the tool: the README lists every scenario in
//! `scenarios/`, and the command-line reference (`book/src/reference/
//! cli.md`) names every flag `--help` prints, in the section of its
//! command. A flag added without its line in the reference fails here.

use crate::support::{read, root, run_in};

/// The flags every command takes (clap's `--help`, the global `--color`),
/// documented once at the top of the reference.
const GLOBAL: [&str; 3] = ["--help", "--color", "--version"];

/// The long flags in the options of a `--help` text: the first word of
/// each option line.
fn flags(help: &str) -> Vec<String> {
    help.lines()
        .map(str::trim_start)
        .filter_map(|l| {
            let l = l.strip_prefix("-h, ").unwrap_or(l);
            let l = l.strip_prefix("-V, ").unwrap_or(l);
            let word = l.strip_prefix("--")?.split([' ', '<', '=', ',']).next()?;
            (!word.is_empty()).then(|| format!("--{word}"))
        })
        .collect()
}

/// The commands `squall --help` lists (not `help`).
fn commands() -> Vec<String> {
    let (code, out, err) = run_in(&root(), &["--help"]);
    assert_eq!(code, 0, "{err}");
    let list = out
        .split("Commands:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no command list in:\n{out}"));
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The text of `## \`squall CMD\`` in the reference, up to the next `## `.
fn section<'a>(doc: &'a str, command: &str) -> &'a str {
    let heading = format!("\n## `squall {command}`\n");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("cli.md has no section {heading:?}"));
    let body = &doc[start + heading.len()..];
    &body[..body.find("\n## ").unwrap_or(body.len())]
}

#[test]
fn the_reference_names_every_flag_of_every_command() {
    let doc = read("book/src/reference/cli.md");
    let top = &doc[..doc.find("\n## ").unwrap_or(doc.len())];
    let commands = commands();
    // The commands the reference has had since its first version; a
    // parse of `--help` that finds fewer is broken, not a pass.
    for c in [
        "run", "check", "sweep", "merge", "test", "diff", "fmt", "new",
    ] {
        assert!(commands.iter().any(|x| x == c), "{commands:?}");
    }
    let mut missing = Vec::new();
    for c in &commands {
        let (code, help, err) = run_in(&root(), &[c, "--help"]);
        assert_eq!(code, 0, "{c}: {err}");
        let found = flags(&help);
        assert!(found.iter().any(|f| f == "--help"), "{c}: {found:?}");
        let text = section(&doc, c);
        for f in found {
            let documented = if GLOBAL.contains(&f.as_str()) {
                top.contains(&format!("`{f}"))
                    || top.contains(&format!("{f} "))
                    || top.contains(&format!("[{f}"))
            } else {
                text.contains(&format!("`{f}")) || text.contains(&format!("[{f}"))
            };
            if !documented {
                missing.push(format!("squall {c} {f}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags of `--help` missing from book/src/reference/cli.md: {missing:?}"
    );
}

#[test]
fn the_flag_reader_reads_options() {
    let help = "Options:\n      --variant <NAME>\n          Only these\n  -h, --help\n          Print help\n      --out <FILE|DIR/>\n";
    assert_eq!(flags(help), ["--variant", "--help", "--out"]);
}

#[test]
fn the_readme_lists_every_scenario() {
    let readme = read("README.md");
    let mut names: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".squall"))
        .collect();
    names.sort();
    // The studies of seed documents 000-004 and the timed ones since.
    assert!(names.len() >= 20, "{names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !readme.contains(&format!("| `scenarios/{n}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "scenarios missing from the README's table of studies: {missing:?}"
    );
}
