//! `squall new NAME`: a commented starter scenario.

use std::path::PathBuf;

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

/// Writes `NAME.squall`, refusing to overwrite a file.
pub fn new(name: &str) -> u8 {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return util::usage("`squall new` needs a name, e.g. `squall new checkout`");
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
