//! Writing a report's charts (`--charts DIR`) and linking them from its
//! markdown: shared by `squall run`, `squall sweep` and `squall merge`.

use std::path::{Component, Path, PathBuf};

use squall_report::chart::ChartFile;

use crate::util;

/// Writes each chart into `dir` (created if missing): its SVG, and its
/// data as CSV beside it under the same name.
pub fn write(dir: &Path, charts: &[ChartFile]) -> Result<(), u8> {
    std::fs::create_dir_all(dir)
        .map_err(|e| util::usage(&format!("cannot create `{}`: {e}", dir.display())))?;
    for c in charts {
        let svg = dir.join(&c.file);
        for (path, text) in [(svg.with_extension("csv"), &c.csv), (svg, &c.svg)] {
            util::write_output(Some(&path), text)?;
        }
    }
    Ok(())
}

/// The markdown section that shows the charts written into `dir`, each
/// linked relative to the file the markdown goes to (`out`), or by `dir`
/// as given for standard output.
pub fn markdown(dir: &Path, out: Option<&Path>, charts: &[ChartFile]) -> String {
    let folder = match out {
        Some(out) => relative(
            out.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
            dir,
        ),
        None => dir.to_path_buf(),
    };
    squall_report::chart::markdown::section(charts, &|c| {
        let path = folder.join(&c.file);
        path.to_string_lossy().replace('\\', "/")
    })
}

/// `to` as seen from folder `from`: `../charts` from `book/` to `charts/`.
/// Paths that cannot be resolved are returned as given.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let (Ok(from), Ok(to_abs)) = (std::fs::canonicalize(from), std::fs::canonicalize(to)) else {
        return to.to_path_buf();
    };
    let a: Vec<Component<'_>> = from.components().collect();
    let b: Vec<Component<'_>> = to_abs.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}
