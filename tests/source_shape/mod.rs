//! The shape of the workspace's source (issue 18): no import circle between
//! the files of a crate, no source file past about 600 lines but the
//! syntax tree, and the engine's `Runner` extended only in its own file
//! and the event loops.
//!
//! # The import graph
//!
//! Every `.rs` file under a crate's `src/` is a node. A file imports
//! another when one of its `use` declarations, or a path written in its
//! code, names an item through `crate::`, `super::` or `self::` that the
//! other file defines. A name is followed through re-exports (`pub use`)
//! to the file that defines it, so `use crate::StudyError` points at
//! `error.rs`, not at `lib.rs`. A `pub use` of an item of one's own
//! submodules is how a module shows its children, not a dependency, and
//! draws no edge; every other `use` does. A circle is a strongly connected
//! set of two or more files.
//!
//! The reading is lexical (comments and string literals are skipped, inline
//! `mod x { ... }` blocks scope `super::`), which is all this check needs:
//! the workspace declares its modules in files and writes no `#[path]`.

mod flags;
mod lex;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lex::{is_ident, strip, tokens};

/// The crates whose `src/` trees the checks read, by their root file.
const ROOTS: [&str; 4] = [
    "crates/squall-lang/src/lib.rs",
    "crates/squall-engine/src/lib.rs",
    "crates/squall-report/src/lib.rs",
    "src/main.rs",
];

/// Files allowed past [`MAX_LINES`]: the syntax tree, one type for the whole
/// grammar.
const LONG_FILES: [&str; 1] = ["crates/squall-lang/src/ast.rs"];

/// The most lines a source file should have (the house style: split past
/// about 600).
const MAX_LINES: usize = 600;

#[test]
fn no_import_circle_in_any_crate() {
    let mut circles = Vec::new();
    for root in ROOTS {
        let krate = Crate::read(Path::new(root));
        for circle in krate.circles() {
            circles.push(circle.join(" <-> "));
        }
    }
    assert!(
        circles.is_empty(),
        "import circles between files:\n{}",
        circles.join("\n")
    );
}

#[test]
fn no_source_file_past_the_line_limit() {
    let mut long = Vec::new();
    for root in ROOTS {
        let dir = Path::new(root).parent().unwrap_or(Path::new("."));
        for file in rust_files(dir) {
            let name = slash(&file);
            let lines = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .lines()
                .count();
            let allowed = LONG_FILES.contains(&name.as_str());
            if lines > MAX_LINES && !allowed {
                long.push(format!("{name}: {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files past {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The engine's run state, `Runner`, has methods only in its own file and
/// in the two event loops (issue 18: no god-struct extended from a dozen
/// files): the zero-time path's `call.rs` and the timed path's module
/// `timed/flow/` (the dispatch and the way down in `mod.rs`, the answer
/// back up in `back.rs`). Everything else a node does is a component's
/// method (`caller/`, `server/`, `policy/`, `Timed` and its parts).
const RUNNER_FILES: [&str; 4] = [
    "crates/squall-engine/src/simulation/runner.rs",
    "crates/squall-engine/src/simulation/call.rs",
    "crates/squall-engine/src/simulation/timed/flow/mod.rs",
    "crates/squall-engine/src/simulation/timed/flow/back.rs",
];

/// True when `code` (comments and strings already blanked) has an
/// `impl` block for `Runner` (`impl Runner`, `impl<'a> Runner<'a, ..>`).
fn implements_runner(code: &str) -> bool {
    let toks = tokens(code);
    toks.windows(2).enumerate().any(|(i, w)| {
        if w[0] != "impl" {
            return false;
        }
        // Skip the generics after `impl`, if any.
        let mut j = i + 1;
        if toks.get(j).map(String::as_str) == Some("<") {
            let mut depth = 0;
            while let Some(t) = toks.get(j) {
                match t.as_str() {
                    "<" => depth += 1,
                    ">" => {
                        depth -= 1;
                        if depth == 0 {
                            j += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        toks.get(j).map(String::as_str) == Some("Runner")
    })
}

#[test]
fn runner_has_methods_only_in_its_file_and_the_event_loops() {
    let dir = Path::new("crates/squall-engine/src");
    let mut found = Vec::new();
    for file in rust_files(dir) {
        let name = slash(&file);
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        if implements_runner(&strip(&text)) && !RUNNER_FILES.contains(&name.as_str()) {
            found.push(name);
        }
    }
    assert!(
        found.is_empty(),
        "`impl Runner` outside runner.rs and the event loops:\n{}",
        found.join("\n")
    );
    // The check sees what it should (hand-made lines).
    assert!(implements_runner(&strip(
        "impl Runner<'_, '_> { fn f() {} }"
    )));
    assert!(implements_runner(&strip("impl<'a, 'b> Runner<'a, 'b> {}")));
    assert!(!implements_runner(&strip("impl Timed { fn runner() {} }")));
    assert!(!implements_runner(&strip("// impl Runner\nimpl Timed {}")));
    assert!(!implements_runner(&strip(
        "impl<T: Into<u32>> Sum for T {}"
    )));
}

/// The checks see what they should: a circle of two files, a circle through
/// a re-export, a parent showing its child (no circle), and the line count.
#[test]
fn the_shape_checks_find_what_they_look_for() {
    let files = |list: &[(&str, &str)]| {
        let mut k = Crate::default();
        for (path, text) in list {
            k.add(PathBuf::from(path), text);
        }
        k.circles()
    };
    // Hand-made: a.rs uses b's item and b.rs uses a's: one circle.
    let two = files(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "use crate::b::B; pub struct A;"),
        ("b.rs", "pub struct B; fn f() -> crate::a::A { todo!() }"),
    ]);
    assert_eq!(two, [vec!["a.rs".to_string(), "b.rs".to_string()]]);
    // Through lib.rs's re-export, to the file that defines the item.
    let through = files(&[
        ("lib.rs", "mod a; mod b; pub use a::A; pub use b::B;"),
        ("a.rs", "use crate::B; pub struct A;"),
        ("b.rs", "use crate::{A}; pub struct B;"),
    ]);
    assert_eq!(through, [vec!["a.rs".to_string(), "b.rs".to_string()]]);
    // A parent that shows its child's item, and the child that uses the
    // parent's: no circle. Nor does a path in a comment or a string count.
    let tree = files(&[
        ("lib.rs", "mod p;"),
        ("p/mod.rs", "mod c; pub use c::C; pub struct P;"),
        (
            "p/c.rs",
            "use super::P; pub struct C; // use super::c\nconst S: &str = \"crate::p::P\";",
        ),
    ]);
    assert!(tree.is_empty(), "{tree:?}");
    // A private `use` of the child's item, while the child uses the
    // parent's: a circle.
    let private = files(&[
        ("lib.rs", "mod p;"),
        ("p/mod.rs", "mod c; use c::C; pub struct P;"),
        ("p/c.rs", "use super::P; pub struct C;"),
    ]);
    assert_eq!(
        private,
        [vec!["p/c.rs".to_string(), "p/mod.rs".to_string()]]
    );
    // `super::` inside an inline `mod inner` names the file's own module.
    let inline = files(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "pub struct A; mod inner { use super::A; }"),
        ("b.rs", "use crate::a::A;"),
    ]);
    assert!(inline.is_empty(), "{inline:?}");
    // A `#[cfg(test)]` module's imports are the tests', not the crate's.
    let tests = files(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "pub struct A; #[cfg(test)] mod tests { use crate::b::B; }",
        ),
        ("b.rs", "use crate::a::A; pub struct B;"),
    ]);
    assert!(tests.is_empty(), "{tests:?}");
    let not_tests = files(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "pub struct A; mod inner { use crate::b::B; }"),
        ("b.rs", "use crate::a::A; pub struct B;"),
    ]);
    assert_eq!(not_tests.len(), 1, "{not_tests:?}");
}

/// A crate's files: each one's module path, the items it defines, its
/// re-exports and the paths it names.
#[derive(Default)]
struct Crate {
    /// Module path (`["plan", "run"]`) -> file.
    modules: BTreeMap<Vec<String>, String>,
    files: BTreeMap<String, File>,
}

#[derive(Default)]
struct File {
    module: Vec<String>,
    /// Names defined at the file's top level.
    defines: BTreeSet<String>,
    /// `pub use` names: the name as shown -> the absolute path it shows.
    reexports: Vec<(String, Vec<String>)>,
    /// Absolute paths (from the crate root) named by a `use` or in code,
    /// except a `pub use` of the file's own submodules.
    names: Vec<Vec<String>>,
}

impl Crate {
    fn read(root: &Path) -> Crate {
        let dir = root.parent().unwrap_or(Path::new("."));
        let mut k = Crate::default();
        for file in rust_files(dir) {
            let rel = file
                .strip_prefix(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let mut entry = k.file(rel.to_path_buf(), &text);
            entry.0 = slash(&file);
            k.modules.insert(entry.1.module.clone(), entry.0.clone());
            k.files.insert(entry.0, entry.1);
        }
        k
    }

    /// Adds a file given by its path relative to `src/` (for the self-test).
    fn add(&mut self, rel: PathBuf, text: &str) {
        let (name, f) = self.file(rel, text);
        self.modules.insert(f.module.clone(), name.clone());
        self.files.insert(name, f);
    }

    fn file(&self, rel: PathBuf, text: &str) -> (String, File) {
        let mut module: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        let name = slash(&rel);
        let f = read_file(module, &strip(text));
        (name, f)
    }

    /// The file that defines the item `path` names, following re-exports;
    /// `None` outside the crate or for a name it cannot place.
    fn resolve(&self, path: &[String], depth: usize) -> Option<String> {
        // The longest prefix that is a module file.
        let (len, file) = (0..=path.len())
            .rev()
            .find_map(|n| self.modules.get(&path[..n]).map(|f| (n, f)))?;
        let Some(item) = path.get(len) else {
            return Some(file.clone());
        };
        let f = &self.files[file];
        if f.defines.contains(item) || depth > 16 {
            return Some(file.clone());
        }
        for (shown, target) in &f.reexports {
            if shown == item {
                let mut next = target.clone();
                next.extend(path[len + 1..].iter().cloned());
                return self.resolve(&next, depth + 1).or(Some(file.clone()));
            }
            if shown == "*" {
                let mut next = target.clone();
                next.extend(path[len..].iter().cloned());
                if let Some(found) = self.resolve(&next, depth + 1) {
                    if self.files[&found].defines.contains(item) {
                        return Some(found);
                    }
                }
            }
        }
        Some(file.clone())
    }

    /// Strongly connected sets of two or more files, each sorted, sorted.
    fn circles(&self) -> Vec<Vec<String>> {
        let mut edges: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for (name, f) in &self.files {
            let out = edges.entry(name.as_str()).or_default();
            for p in &f.names {
                if let Some(to) = self.resolve(p, 0) {
                    if &to != name {
                        out.insert(to);
                    }
                }
            }
        }
        // Two files are in one circle when each reaches the other.
        let reach = |from: &str| {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.to_string()];
            while let Some(n) = todo.pop() {
                for m in edges.get(n.as_str()).into_iter().flatten() {
                    if seen.insert(m.clone()) {
                        todo.push(m.clone());
                    }
                }
            }
            seen
        };
        let reaches: BTreeMap<&str, BTreeSet<String>> =
            edges.keys().map(|&n| (n, reach(n))).collect();
        let mut out: Vec<Vec<String>> = Vec::new();
        for (&n, r) in &reaches {
            let mut set: Vec<String> = r
                .iter()
                .filter(|m| m.as_str() != n && reaches[m.as_str()].contains(n))
                .cloned()
                .collect();
            if set.is_empty() {
                continue;
            }
            set.push(n.to_string());
            set.sort();
            if !out.contains(&set) {
                out.push(set);
            }
        }
        out.sort();
        out
    }
}

/// Reads one file's (comment- and string-free) text.
fn read_file(module: Vec<String>, text: &str) -> File {
    let mut f = File {
        module: module.clone(),
        ..File::default()
    };
    let tokens = tokens(text);
    // Inline modules: (name, brace depth at which it closes, whether it is
    // `#[cfg(test)]`).
    let mut scope: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let here = || {
            let mut m = module.clone();
            m.extend(scope.iter().map(|s| s.0.clone()));
            m
        };
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if scope.last().is_some_and(|s| s.1 == depth) {
                    scope.pop();
                }
            }
            "mod" if tokens.get(i + 2).map(String::as_str) == Some("{") => {
                let test = i >= 7 && tokens[i - 7..i].concat() == "#[cfg(test)]";
                scope.push((tokens[i + 1].clone(), depth, test));
                if depth == 0 {
                    f.defines.insert(tokens[i + 1].clone());
                }
                depth += 1;
                i += 3;
                continue;
            }
            "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union" | "mod"
                if depth == 0 && scope.is_empty() =>
            {
                if let Some(n) = tokens.get(i + 1).filter(|n| is_ident(n)) {
                    f.defines.insert(n.clone());
                }
            }
            "macro_rules" if depth == 0 => {
                if let Some(n) = tokens.get(i + 2) {
                    f.defines.insert(n.clone());
                }
            }
            // A test module's imports are not the crate's: skipped.
            "use" | "crate" | "super" | "self" if scope.iter().any(|s| s.2) => {}
            "use" => {
                let public = i > 0 && (tokens[i - 1] == "pub" || tokens[i - 1] == ")");
                let end = tokens[i..]
                    .iter()
                    .position(|t| t == ";")
                    .map_or(tokens.len(), |p| i + p);
                let mut paths = Vec::new();
                use_tree(&tokens[i + 1..end], &[], &mut paths);
                let at = here();
                for (path, shown) in paths {
                    let Some(abs) = absolute(&at, &path) else {
                        continue;
                    };
                    if public && scope.is_empty() && depth == 0 {
                        f.reexports.push((shown, abs.clone()));
                        // Showing one's own submodule's item draws no edge.
                        if abs.len() > module.len() && abs.starts_with(&module) {
                            continue;
                        }
                    }
                    f.names.push(abs);
                }
                i = end + 1;
                continue;
            }
            "crate" | "super" | "self" if tokens.get(i + 1).map(String::as_str) == Some("::") => {
                let mut path = vec![t.to_string()];
                let mut j = i + 1;
                while tokens.get(j).map(String::as_str) == Some("::")
                    && tokens.get(j + 1).is_some_and(|n| is_ident(n))
                {
                    path.push(tokens[j + 1].clone());
                    j += 2;
                }
                if let Some(abs) = absolute(&here(), &path) {
                    f.names.push(abs);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    f
}

/// The paths of a `use` tree (tokens after `use`, before `;`), each with
/// the name it shows (`*` for a glob).
fn use_tree(tokens: &[String], prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    let mut i = 0;
    let mut path = prefix.to_vec();
    while i < tokens.len() {
        let t = tokens[i].as_str();
        match t {
            "::" => {}
            "{" => {
                // The matching brace.
                let mut d = 0;
                let mut j = i;
                while j < tokens.len() {
                    match tokens[j].as_str() {
                        "{" => d += 1,
                        "}" => {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                // Split the inside on top-level commas.
                let inner = &tokens[i + 1..j.min(tokens.len())];
                let mut start = 0;
                let mut d = 0;
                for (k, t) in inner.iter().enumerate() {
                    match t.as_str() {
                        "{" => d += 1,
                        "}" => d -= 1,
                        "," if d == 0 => {
                            use_tree(&inner[start..k], &path, out);
                            start = k + 1;
                        }
                        _ => {}
                    }
                }
                if start < inner.len() {
                    use_tree(&inner[start..], &path, out);
                }
                return;
            }
            "*" => {
                out.push((path, "*".to_string()));
                return;
            }
            "as" => {
                let shown = tokens.get(i + 1).cloned().unwrap_or_default();
                out.push((path, shown));
                return;
            }
            _ => path.push(t.to_string()),
        }
        i += 1;
    }
    if let Some(last) = path.last().cloned() {
        if path.len() > prefix.len() {
            // `use a::b::{self}` shows `b`.
            if last == "self" {
                path.pop();
                let shown = path.last().cloned().unwrap_or_default();
                out.push((path, shown));
            } else {
                out.push((path, last));
            }
        }
    }
}

/// `path` from the crate root, as seen from module `at`; `None` for a path
/// outside the crate (another crate, `std`).
fn absolute(at: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self" | "super") => at.to_vec(),
        // A plain first segment: a child module of `at`, or another crate.
        _ => {
            let mut m = at.to_vec();
            m.extend(path.iter().cloned());
            return path.first().map(|_| m);
        }
    };
    let mut rest = &path[1..];
    if path[0] == "super" {
        base.pop()?;
    }
    while rest.first().map(String::as_str) == Some("super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for e in entries {
            let p = e.unwrap_or_else(|e| panic!("{e}")).path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A path with `/` separators.
fn slash(p: &Path) -> String {
    p.iter()
        .map(|c| c.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
