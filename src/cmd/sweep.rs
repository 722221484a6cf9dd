//! stub
use std::path::{Path, PathBuf};
pub fn sweep(_a: &crate::SweepArgs, _c: bool) -> u8 {
    crate::util::usage("this command is not built yet")
}
pub fn merge(_f: &[PathBuf], _fo: crate::FormatArg, _o: Option<&Path>) -> u8 {
    crate::util::usage("this command is not built yet")
}
