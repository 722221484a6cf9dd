//! `squall new NAME`: a commented starter scenario.

use std::path::PathBuf;

use squall_lang::needs::{Need, Needs};

use crate::util::{self, EXIT_OK};

/// The starter scenario; `{{name}}` is replaced with the scenario's name.
pub const STARTER: &str = include_str!("starter.squall");

/// The starter text for a scenario called `name`.
pub fn starter(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c == '"' || c == '\\' { '-' } else { c })
        .collect();
    STARTER.replace("{{name}}", &clean)
}

/// Why `squall new` refuses a (trimmed) name: a control character (a
/// newline would end the starter's comment and string), or a last part
/// that names a folder (`dir/`, `..`, `/` would write a hidden `.squall`,
/// or `...squall`).
fn refusal(name: &str) -> Option<String> {
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Some(format!(
            "`squall new`: the name holds the control character {c:?}; a scenario's name is one line of text"
        ));
    }
    let last = name
        .rsplit(['/', std::path::MAIN_SEPARATOR])
        .next()
        .unwrap_or_default();
    let stem = last.strip_suffix(".squall").unwrap_or(last);
    if stem.is_empty() || stem == "." || stem == ".." {
        let dir = if name.ends_with(['/', std::path::MAIN_SEPARATOR]) {
            name.to_string()
        } else {
            format!("{name}/")
        };
        return Some(format!(
            "`squall new {name}` names a folder, not a scenario; add the scenario's name, e.g. `squall new {dir}checkout`"
        ));
    }
    None
}

/// Writes `NAME.squall`, refusing to overwrite a file.
pub fn new(name: &str) -> u8 {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return util::usage(
            &Needs::new("`squall new`", Need::Words("a name"))
                .help("e.g. `squall new checkout`")
                .plain(),
        );
    }
    if let Some(m) = refusal(trimmed) {
        return util::usage(&m);
    }
    // `NAME.squall`: appended, not an extension swapped in, so `v1.2`
    // writes `v1.2.squall` (not `v1.squall`).
    let path = if trimmed.ends_with(".squall") {
        PathBuf::from(trimmed)
    } else {
        PathBuf::from(format!("{trimmed}.squall"))
    };
    let stem = path
        .file_name()
        .map(|s| {
            let s = s.to_string_lossy();
            s.strip_suffix(".squall").unwrap_or(&s).to_string()
        })
        .unwrap_or_else(|| trimmed.to_string());
    // `squall new studies/payments` makes `studies/` when it is missing.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return util::usage(&format!(
                "cannot create the folder `{}`: {e}",
                dir.display()
            ));
        }
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path);
    let mut file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return util::usage(&format!(
                "`{}` already exists; squall never overwrites a scenario (pick another name)",
                path.display()
            ))
        }
        Err(e) => return util::usage(&format!("cannot create `{}`: {e}", path.display())),
    };
    if let Err(e) = std::io::Write::write_all(&mut file, starter(&stem).as_bytes()) {
        return util::usage(&format!("cannot write `{}`: {e}", path.display()));
    }
    let _ = util::print_out(&format!(
        "wrote `{}`; try `squall run {}`\n",
        path.display(),
        path.display()
    ));
    EXIT_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_folders_and_lines_are_refused() {
        // `/` is checked here, not by running `squall new /` (which, before
        // the fix, wrote `/.squall`).
        for name in ["/", "dir/", "..", "a/..", ".", ".squall", "a\nb", "a\tb"] {
            assert!(refusal(name).is_some(), "{name:?} accepted");
        }
        for name in [
            "checkout",
            "v1.2",
            "studies/payments",
            "x.squall",
            ".hidden",
        ] {
            assert_eq!(refusal(name), None, "{name:?} refused");
        }
    }

    #[test]
    fn every_accepted_name_gives_a_starter_that_loads() {
        // Quotes and backslashes are replaced in the starter; the rest of
        // the printable text stays as given.
        for name in [
            "checkout",
            "a \"quoted\" name",
            "back\\slash",
            "ünïcode",
            "#hash",
        ] {
            assert_eq!(refusal(name), None);
            let text = starter(name);
            assert!(squall_lang::load(name, &text).is_ok(), "{name:?}:\n{text}");
        }
    }
}
