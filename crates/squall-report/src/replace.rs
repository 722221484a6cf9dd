//! Replacing a file whole or not at all: the new content is written to a
//! hidden temporary file in the target's folder (unique to this process, so
//! `squall test` skips it), which then replaces the target in one rename.
//! An interrupted or failed write leaves the old file as it was and no
//! temporary file behind. Every file squall writes goes through
//! [`replace_file`]: reports, series, charts, shard files, `fmt`, the event
//! log and the attempt log.

use std::path::{Path, PathBuf};

/// The hidden temporary file beside `path` that [`replace_file`] fills.
pub fn temporary_beside(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    dir.join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Replaces `path` with what `fill` writes into the temporary file it is
/// given (any stale one of this process removed first); `io` turns the
/// rename's error into the caller's. On any error the temporary file is
/// removed and `path` is untouched.
pub fn replace_file<E>(
    path: &Path,
    fill: impl FnOnce(&Path) -> Result<(), E>,
    io: impl FnOnce(std::io::Error) -> E,
) -> Result<(), E> {
    let tmp = temporary_beside(path);
    let _ = std::fs::remove_file(&tmp);
    let done = fill(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(io));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary() {
        let dir = std::env::temp_dir().join(format!("squall-replace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let target = dir.join("out.txt");
        std::fs::write(&target, "old").unwrap_or_else(|e| panic!("{e}"));
        let r: Result<(), String> = replace_file(
            &target,
            |tmp| {
                std::fs::write(tmp, "half").map_err(|e| e.to_string())?;
                Err("interrupted".into())
            },
            |e| e.to_string(),
        );
        assert_eq!(r, Err("interrupted".to_string()));
        assert_eq!(
            std::fs::read_to_string(&target).ok().as_deref(),
            Some("old")
        );
        assert!(!temporary_beside(&target).exists());
        let r: Result<(), String> = replace_file(
            &target,
            |tmp| std::fs::write(tmp, "new").map_err(|e| e.to_string()),
            |e| e.to_string(),
        );
        assert_eq!(r, Ok(()));
        assert_eq!(
            std::fs::read_to_string(&target).ok().as_deref(),
            Some("new")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
