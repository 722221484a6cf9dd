//! `--shard auto` as a batch system runs it: each child process gets only
//! its index in the environment (Kubernetes' `JOB_COMPLETION_INDEX`, a
//! Slurm array's `SLURM_ARRAY_TASK_*`), and the merged shards equal the
//! unsharded run byte for byte.

use std::path::Path;

use crate::support::{root, split, squall_in};

/// The variables `--shard auto` reads, cleared in every child so the
/// machine's own environment cannot leak in.
const BATCH_VARS: [&str; 6] = [
    "JOB_COMPLETION_INDEX",
    "JOB_COMPLETIONS",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_STEP",
];

const STUDY: [&str; 6] = [
    "sweep",
    "scenarios/retry-storm.squall",
    "--vary",
    "attempts=1,2,3,4",
    "--vary",
    "spacing=1,2,4",
];

/// Runs squall with only `vars` of the batch variables set.
fn squall_with(vars: &[(&str, String)], args: &[&str]) -> (i32, String, String) {
    squall_at(&root(), vars, args)
}

/// The same, in folder `dir`.
fn squall_at(dir: &Path, vars: &[(&str, String)], args: &[&str]) -> (i32, String, String) {
    let mut cmd = squall_in(dir);
    for v in BATCH_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start squall: {e}"));
    split(&out)
}

/// Runs the study as `n` shards, child `k` (from 0) with `vars(k)` and
/// `shard_flag`, then merges them; checks the merge against one run in
/// every format.
fn shards_merge_into_the_single_run(
    dir: &Path,
    n: usize,
    shard_flag: &str,
    vars: &dyn Fn(usize) -> Vec<(&'static str, String)>,
) {
    let mut parts = Vec::new();
    for k in 0..n {
        let out = dir.join(format!("part-{k}.json")).display().to_string();
        let mut args = STUDY.to_vec();
        args.extend(["--shard", shard_flag, "--out", &out]);
        let (code, _, err) = squall_with(&vars(k), &args);
        assert_eq!(code, 0, "child {k}: {err}");
        let file = std::fs::read_to_string(&out).unwrap_or_default();
        let json: serde_json::Value = serde_json::from_str(&file).unwrap_or_default();
        assert_eq!(json["shard"]["index"], k + 1, "child {k}");
        assert_eq!(json["shard"]["count"], n, "child {k}");
        parts.push(out);
    }
    for format in ["text", "markdown", "json", "csv"] {
        let mut single = STUDY.to_vec();
        single.extend(["--format", format]);
        let (code, whole, err) = squall_with(&[], &single);
        assert_eq!(code, 0, "{err}");
        let mut merge = vec!["merge"];
        merge.extend(parts.iter().rev().map(String::as_str));
        merge.extend(["--format", format]);
        let (code, merged, err) = squall_with(&[], &merge);
        assert_eq!(code, 0, "{err}");
        assert_eq!(merged, whole, "format {format}");
    }
}

#[test]
fn a_kubernetes_indexed_job_of_three_pods_merges_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    shards_merge_into_the_single_run(dir.path(), 3, "auto", &|k| {
        vec![
            ("JOB_COMPLETION_INDEX", k.to_string()),
            ("JOB_COMPLETIONS", "3".to_string()),
        ]
    });
    // The count from the flag instead.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    shards_merge_into_the_single_run(dir.path(), 4, "auto/4", &|k| {
        vec![("JOB_COMPLETION_INDEX", k.to_string())]
    });
}

#[test]
fn a_slurm_array_merges_into_the_single_run_from_any_start() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // `--array=1-3`: Slurm sets the id, the count, the range's start.
    shards_merge_into_the_single_run(dir.path(), 3, "auto", &|k| {
        vec![
            ("SLURM_ARRAY_TASK_ID", (k + 1).to_string()),
            ("SLURM_ARRAY_TASK_COUNT", "3".to_string()),
            ("SLURM_ARRAY_TASK_MIN", "1".to_string()),
        ]
    });
    // `--array=0-10:5`.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    shards_merge_into_the_single_run(dir.path(), 3, "auto", &|k| {
        vec![
            ("SLURM_ARRAY_TASK_ID", (5 * k).to_string()),
            ("SLURM_ARRAY_TASK_COUNT", "3".to_string()),
            ("SLURM_ARRAY_TASK_MIN", "0".to_string()),
            ("SLURM_ARRAY_TASK_STEP", "5".to_string()),
        ]
    });
}

#[test]
fn missing_or_inconsistent_indexes_are_usage_errors_that_say_what_to_set() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("p.json").display().to_string();
    let mut args = STUDY.to_vec();
    args.extend(["--shard", "auto", "--out", &out]);
    let cases: [(Vec<(&str, String)>, &str); 4] = [
        (vec![], "none is set"),
        (
            vec![("JOB_COMPLETION_INDEX", "0".into())],
            "set JOB_COMPLETIONS",
        ),
        (
            vec![
                ("JOB_COMPLETION_INDEX", "3".into()),
                ("JOB_COMPLETIONS", "3".into()),
            ],
            "JOB_COMPLETION_INDEX is 3, but there are 3 completions",
        ),
        (
            vec![
                ("SLURM_ARRAY_TASK_ID", "7".into()),
                ("SLURM_ARRAY_TASK_COUNT", "3".into()),
            ],
            "submit a range such as `--array=1-3`",
        ),
    ];
    for (vars, want) in cases {
        let (code, stdout, err) = squall_with(&vars, &args);
        assert_eq!(code, 3, "{vars:?}: {err}");
        assert!(stdout.is_empty());
        assert!(err.contains(want), "{vars:?}: {err}");
        assert!(!Path::new(&out).exists(), "nothing is run or written");
    }
}

/// A fenced block of `book/src/what-if.md` that follows `heading` and
/// opens with `fence` (```` ```yaml ````).
fn book_block(heading: &str, fence: &str) -> String {
    let book = crate::support::read("book/src/what-if.md");
    let at = book
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in what-if.md"));
    let rest = &book[at..];
    let start = rest
        .find(fence)
        .unwrap_or_else(|| panic!("no {fence} block after {heading:?}"))
        + fence.len();
    let end = rest[start..].find("```").map_or(rest.len(), |e| start + e);
    rest[start..end].to_string()
}

/// Runs a shell command line from the book in `dir`, `squall` being the
/// built binary.
fn run_book_line(line: &str, dir: &Path, vars: &[(&str, String)]) {
    let exe = env!("CARGO_BIN_EXE_squall");
    let line = line.replacen("squall ", &format!("{exe} --color never "), 1);
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(&line).current_dir(dir);
    for v in BATCH_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let (code, _, err) = split(&cmd.output().unwrap_or_else(|e| panic!("no sh: {e}")));
    assert_eq!(code, 0, "{line}: {err}");
}

/// A folder holding `results/` and the retry storm at `scenario`.
fn workspace(scenario: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let to = dir.path().join(scenario);
    let folder = to.parent().map(Path::to_path_buf).unwrap_or_default();
    for d in [dir.path().join("results"), folder] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::copy(root().join("scenarios/retry-storm.squall"), &to)
        .unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// Merges `dir/results/part-*.json` and compares, in `dir`, with one run
/// of the book's study on `scenario`.
fn merged_equals(dir: &Path, scenario: &str) {
    let mut parts: Vec<String> = std::fs::read_dir(dir.join("results"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().display().to_string())
        .collect();
    parts.sort();
    assert!(parts.len() > 1, "{parts:?}");
    let mut merge = vec!["merge"];
    merge.extend(parts.iter().map(String::as_str));
    let (code, merged, err) = squall_at(dir, &[], &merge);
    assert_eq!(code, 0, "{err}");
    let study = [
        "sweep",
        scenario,
        "--vary",
        "attempts=1,2,3,4",
        "--vary",
        "spacing=1,2,4,8",
    ];
    let (code, whole, err) = squall_at(dir, &[], &study);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole);
}

/// The Indexed Job of the book, as its pods run it: the container's
/// command line with `JOB_COMPLETION_INDEX` per pod and the Job's `env`.
#[test]
fn the_books_indexed_job_runs_as_written() {
    let yaml = book_block("### As a Kubernetes Indexed Job", "```yaml");
    let completions: usize = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions:"))
        .and_then(|v| v.split('#').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no completions in {yaml}"));
    assert!(yaml.contains(&format!(
        "{{ name: JOB_COMPLETIONS, value: \"{completions}\" }}"
    )));
    assert!(yaml.contains("built from the Containerfile"));
    // The folded `args` scalar, as one line.
    let folded: Vec<&str> = yaml
        .lines()
        .skip_while(|l| !l.trim().starts_with("- >-"))
        .skip(1)
        .take_while(|l| !l.trim().ends_with(':'))
        .map(str::trim)
        .collect();
    let line = folded.join(" ");
    assert!(line.contains("--shard auto"), "{line}");
    // The two volumes, as folders side by side.
    let dir = workspace("study/retry-storm.squall");
    let line = line
        .replace("/study/", "study/")
        .replace("/results/", "results/");
    for k in 0..completions {
        run_book_line(
            &line,
            dir.path(),
            &[
                ("JOB_COMPLETION_INDEX", k.to_string()),
                ("JOB_COMPLETIONS", completions.to_string()),
            ],
        );
    }
    merged_equals(dir.path(), "study/retry-storm.squall");
}

/// The Slurm array of the book, as its tasks run it.
#[test]
fn the_books_slurm_array_runs_as_written() {
    let script = book_block("### As a Slurm job array", "```bash");
    let (first, last) = script
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array="))
        .and_then(|r| r.split_once('-'))
        .and_then(|(a, b)| {
            Some((
                a.trim().parse::<usize>().ok()?,
                b.trim().parse::<usize>().ok()?,
            ))
        })
        .unwrap_or_else(|| panic!("no --array=A-B in {script}"));
    let body: String = script
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(body.contains("--shard auto"), "{body}");
    let dir = workspace("retry-storm.squall");
    let count = last - first + 1;
    for id in first..=last {
        run_book_line(
            &body,
            dir.path(),
            &[
                ("SLURM_ARRAY_TASK_ID", id.to_string()),
                ("SLURM_ARRAY_TASK_COUNT", count.to_string()),
                ("SLURM_ARRAY_TASK_MIN", first.to_string()),
                ("SLURM_CPUS_PER_TASK", "1".to_string()),
            ],
        );
    }
    merged_equals(dir.path(), "retry-storm.squall");
}
