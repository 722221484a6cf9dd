//! `--format csv --out DIR/`: one CSV file per table of a report.

use std::path::Path;

use squall_report::data::{csv_files, DataTable};

use crate::util;

/// True when `--out` names a folder for `--format csv`: a path that ends in
/// `/` (created if missing) or an existing folder.
pub fn is_dir(out: &Path) -> bool {
    let text = out.as_os_str().to_string_lossy();
    text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) || out.is_dir()
}

/// Writes each table into `dir` (created if missing) as `TITLE.csv`
/// ([`csv_files`]), each file whole or not at all.
pub fn write(dir: &Path, tables: &[DataTable]) -> Result<(), u8> {
    std::fs::create_dir_all(dir)
        .map_err(|e| util::usage(&format!("cannot create `{}`: {e}", dir.display())))?;
    for (name, text) in csv_files(tables) {
        util::write_output(Some(&dir.join(name)), &text)?;
    }
    Ok(())
}
