//! `squall fmt`: the canonical layout.

use std::path::PathBuf;

use squall_lang::Diagnostics;

use crate::util::{self, EXIT_FAILED, EXIT_INVALID, EXIT_OK};

/// Formats each file in place, or with `check` only reports (with a diff)
/// the files that are not formatted.
pub fn fmt(files: &[PathBuf], check: bool, color: bool) -> u8 {
    let mut worst = EXIT_OK;
    for path in files {
        let text = match util::read(path) {
            Ok(t) => t,
            Err(code) => {
                worst = worst.max(code);
                continue;
            }
        };
        let name = path.display().to_string();
        let formatted = match squall_lang::format::format_source(&text) {
            Ok(f) => f,
            Err(d) => {
                util::print_diagnostics(&Diagnostics::new(name, text, vec![d]), color);
                worst = worst.max(EXIT_INVALID);
                continue;
            }
        };
        if formatted == text {
            continue;
        }
        if check {
            eprintln!("`{name}` is not formatted; `squall fmt {name}` would change it:");
            let diff = util::unified_diff(
                &text,
                &formatted,
                &format!("{name} (as written)"),
                &format!("{name} (formatted)"),
                color,
            );
            worst = worst.max(EXIT_FAILED);
            if !util::print_out(&diff) {
                return worst;
            }
        } else if let Err(e) = util::write_file(path, formatted.as_bytes()) {
            worst = worst.max(util::usage(&format!("cannot write `{name}`: {e}")));
        } else {
            eprintln!("formatted `{name}`");
        }
    }
    worst
}
