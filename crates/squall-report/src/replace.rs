//! Writing an output whole or not at all, without harming what the path
//! names.
//!
//! A regular file (or a path where nothing is yet) is replaced: the new
//! content is written to a hidden temporary file in the target's folder
//! (unique to this process, so `squall test` skips it), which then replaces
//! the target in one rename. Anything else is written through: a device
//! (`/dev/null`, `/dev/stdout`), a FIFO, shell process substitution, or `-`
//! for standard output get the finished bytes, and stay what they are. A
//! link is followed: its target is written, the link stays.
//!
//! Every temporary file is registered while it exists, so an interrupted
//! command removes it ([`remove_temporaries`], which the command line's
//! Ctrl-C handler calls), with SQLite's `-journal` beside it. A failed
//! write removes them at once. Every file squall writes goes through
//! [`replace_file`]: reports, series, charts, shard files, `fmt`, the event
//! log and the attempt log.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The hidden temporary file beside `path` that [`replace_file`] fills.
pub fn temporary_beside(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    dir.join(format!(".{}.{}.tmp", file_name(path), std::process::id()))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned())
}

/// Where a write to a path goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A regular file, or nothing yet: replaced in one rename.
    Replace(PathBuf),
    /// A device, a FIFO, a socket: opened and written, never replaced.
    Through(PathBuf),
    /// `-`: standard output.
    Stdout,
}

/// The most links followed to find a target (as the kernel's own bound).
const MOST_LINKS: usize = 40;

/// Where a write to `path` goes: `-` is standard output; a link is followed
/// to its target (even one not made yet); a regular file or a missing one
/// is replaced; anything else but a folder is written through.
pub fn target_of(path: &Path) -> std::io::Result<Target> {
    use std::io::{Error, ErrorKind};
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(Error::other("it is a folder")),
        Ok(m) if m.is_file() => Ok(Target::Replace(follow_links(path)?)),
        Ok(_) => Ok(Target::Through(path.to_path_buf())),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(Target::Replace(follow_links(path)?)),
        Err(e) => Err(e),
    }
}

/// `path` with every link along it followed, when the last one names a
/// file not made yet too (a link to `report.md` that does not exist yet
/// writes `report.md`).
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..MOST_LINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(std::io::Error::other(format!(
        "more than {MOST_LINKS} links to follow"
    )))
}

/// The temporary files that exist now (this process's).
fn live() -> &'static Mutex<Vec<PathBuf>> {
    static LIVE: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    LIVE.get_or_init(|| Mutex::new(Vec::new()))
}

/// The files SQLite may make beside a database it writes.
const SQLITE_SIBLINGS: [&str; 3] = ["-journal", "-wal", "-shm"];

/// Removes `tmp` and what SQLite may have made beside it.
fn remove_with_siblings(tmp: &Path) {
    let _ = std::fs::remove_file(tmp);
    for s in SQLITE_SIBLINGS {
        let mut name = tmp.as_os_str().to_owned();
        name.push(s);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

/// Removes every temporary file this process has open (and SQLite's files
/// beside them): what an interrupt does before the command exits. Returns
/// how many there were.
pub fn remove_temporaries() -> usize {
    let mut list = live()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let n = list.len();
    for tmp in list.drain(..) {
        remove_with_siblings(&tmp);
    }
    n
}

/// A temporary file while it exists: registered for [`remove_temporaries`],
/// removed (with SQLite's files) when dropped unless it was renamed.
struct Temporary(PathBuf);

impl Temporary {
    fn new(path: PathBuf) -> Self {
        remove_with_siblings(&path);
        live()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(path.clone());
        Temporary(path)
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        remove_with_siblings(&self.0);
        let mut list = live()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        list.retain(|p| p != &self.0);
    }
}

/// A stage of a write at which a test may stop the command as Ctrl-C
/// would ([`set_stop_hook`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The temporary file is full; the rename is next.
    BeforeRename,
    /// An SQLite database has its first row, its transaction still open.
    InTransaction,
}

static STOP_HOOK: OnceLock<fn(Stage)> = OnceLock::new();

/// Sets what runs at each [`Stage`] of every write: the command line sets
/// it, for its tests, to its Ctrl-C handler's own routine, so an interrupt
/// mid-write is tested without a signal race. Set once; later calls do
/// nothing.
pub fn set_stop_hook(hook: fn(Stage)) {
    let _ = STOP_HOOK.set(hook);
}

/// Runs the stop hook, if one is set, at `stage`.
pub(crate) fn reached(stage: Stage) {
    if let Some(hook) = STOP_HOOK.get() {
        hook(stage);
    }
}

/// Writes `path` with what `fill` writes into the temporary file it is
/// given; `io` turns an I/O error into the caller's. A regular file (or a
/// missing one) is replaced in one rename, keeping its permissions; a
/// device, FIFO or `-` gets the finished bytes written through. On any
/// error the temporary file is removed and a regular `path` is untouched.
pub fn replace_file<E>(
    path: &Path,
    fill: impl FnOnce(&Path) -> Result<(), E>,
    io: impl Fn(std::io::Error) -> E,
) -> Result<(), E> {
    match target_of(path).map_err(&io)? {
        Target::Replace(target) => {
            let tmp = Temporary::new(temporary_beside(&target));
            fill(&tmp.0)?;
            // Keep the permissions of the file being replaced (a script
            // stays executable).
            if let Ok(m) = std::fs::metadata(&target) {
                std::fs::set_permissions(&tmp.0, m.permissions()).map_err(&io)?;
            }
            reached(Stage::BeforeRename);
            std::fs::rename(&tmp.0, &target).map_err(&io)
        }
        through => {
            // Not beside the target: `/dev` is no place for squall's files.
            let tmp = Temporary::new(std::env::temp_dir().join(format!(
                ".squall-{}.{}.tmp",
                file_name(path),
                std::process::id()
            )));
            fill(&tmp.0)?;
            reached(Stage::BeforeRename);
            let mut from = std::fs::File::open(&tmp.0).map_err(&io)?;
            let copied = match through {
                Target::Through(p) => std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .and_then(|mut to| std::io::copy(&mut from, &mut to)),
                _ => {
                    let mut out = std::io::stdout().lock();
                    std::io::copy(&mut from, &mut out)
                        .and_then(|n| std::io::Write::flush(&mut out).map(|()| n))
                }
            };
            copied.map(|_| ()).map_err(&io)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("squall-replace-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

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

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary() {
        let dir = temp("fail");
        let target = dir.join("out.txt");
        std::fs::write(&target, "old").unwrap_or_else(|e| panic!("{e}"));
        let r: Result<(), String> = replace_file(
            &target,
            |tmp| {
                std::fs::write(tmp, "half").map_err(|e| e.to_string())?;
                // SQLite's journal of a write that failed mid-transaction.
                let mut journal = tmp.as_os_str().to_owned();
                journal.push("-journal");
                std::fs::write(PathBuf::from(journal), "j").map_err(|e| e.to_string())?;
                Err("interrupted".into())
            },
            |e| e.to_string(),
        );
        assert_eq!(r, Err("interrupted".to_string()));
        assert_eq!(
            std::fs::read_to_string(&target).ok().as_deref(),
            Some("old")
        );
        // Only the target: neither the temporary file nor its journal.
        assert_eq!(names(&dir), vec!["out.txt".to_string()]);
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

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_even_to_a_file_not_made_yet() {
        let dir = temp("link");
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            target_of(&link).ok(),
            Some(Target::Replace(dir.join("real.txt")))
        );
        let r: Result<(), std::io::Error> =
            replace_file(&link, |tmp| std::fs::write(tmp, "x"), |e| e);
        assert!(r.is_ok(), "{r:?}");
        assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(
            std::fs::read_to_string(dir.join("real.txt"))
                .ok()
                .as_deref(),
            Some("x")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn dash_is_standard_output_and_a_folder_is_refused() {
        assert_eq!(target_of(Path::new("-")).ok(), Some(Target::Stdout));
        assert!(target_of(&std::env::temp_dir()).is_err());
    }
}
