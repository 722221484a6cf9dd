//! stub
pub fn diff(_p: &std::path::Path, _q: &std::path::Path, _f: crate::DiffFormat, _c: bool) -> u8 {
    crate::util::usage("this command is not built yet")
}
