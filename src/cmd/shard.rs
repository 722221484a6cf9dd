//! `--shard K/N`, and `--shard auto`: the slice a batch system's own index
//! names.
//!
//! | batch system | index | count |
//! |---|---|---|
//! | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX` (from 0) | `--shard auto/N`, or `JOB_COMPLETIONS` |
//! | Slurm job array | `SLURM_ARRAY_TASK_ID` (from `SLURM_ARRAY_TASK_MIN`, by `SLURM_ARRAY_TASK_STEP`) | `SLURM_ARRAY_TASK_COUNT` (or `--shard auto/N`) |
//!
//! Kubernetes gives a pod its index but not the Job's `completions`, so the
//! count comes from the flag or from an environment variable the Job sets
//! itself. Slurm numbers tasks as the `--array` range says (`1-3`, `0-2`,
//! `0-10:5`); the slice is the task's place in that range, from 1. Absent,
//! unreadable or inconsistent values are refused with what was read and
//! what to set; a value is never guessed.

use squall_lang::needs::{Need, Needs};
use squall_lang::not_a::NotA;
use squall_report::sweep::Shard;

use crate::util::FLAGS;

/// Reads `--shard`: `K/N`, `auto`, or `auto/N`; `env` looks up an
/// environment variable.
pub fn parse(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard, String> {
    let t = text.trim();
    let count = match t.strip_prefix("auto") {
        None => return Shard::parse(t).map_err(|e| e.words(&FLAGS)),
        Some("") => None,
        Some(rest) => match rest.strip_prefix('/').map(|n| n.trim().parse::<usize>()) {
            Some(Ok(n)) if n > 0 => Some(n),
            _ => {
                let who = format!("`--shard {text}`");
                return Err(Needs::new(
                    &who,
                    Need::Words("the form `auto` or `auto/N` with N >= 1"),
                )
                .help("e.g. `--shard auto/3`")
                .plain());
            }
        },
    };
    let kubernetes = env("JOB_COMPLETION_INDEX");
    let slurm = env("SLURM_ARRAY_TASK_ID");
    match (kubernetes, slurm) {
        (Some(_), Some(_)) => Err(
            "`--shard auto`: both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm) are set, \
             so which index to use is unclear; give `--shard K/N`"
                .into(),
        ),
        (Some(index), None) => kubernetes_shard(&index, count, env),
        (None, Some(id)) => slurm_shard(&id, count, env),
        (None, None) => Err(
            "`--shard auto` reads the batch system's index, and none is set: JOB_COMPLETION_INDEX \
             (a Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (a Slurm job array); outside a batch \
             job give `--shard K/N`"
                .into(),
        ),
    }
}

/// A whole number from an environment variable.
fn number(name: &str, value: &str) -> Result<usize, String> {
    value.trim().parse().map_err(|_| {
        let not = NotA::new(value, "a whole number from 0");
        format!("`--shard auto` reads {name}: {}", not.plain())
    })
}

/// `--shard auto` in a batch `job` that does not say how many shards there
/// are: `what` it needs, `why` it lacks it, and the `help` of what to give.
fn lacks_count(job: &str, what: &str, why: &str, help: &str) -> String {
    let who = format!("`--shard auto` in {job}");
    Needs::new(&who, Need::Words(what))
        .because(why)
        .help(help)
        .plain()
}

fn kubernetes_shard(
    index: &str,
    flag: Option<usize>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Shard, String> {
    let index = number("JOB_COMPLETION_INDEX", index)?;
    let from_env = env("JOB_COMPLETIONS")
        .map(|v| number("JOB_COMPLETIONS", &v))
        .transpose()?;
    let count =
        match (flag, from_env) {
            (Some(n), Some(m)) if n != m => {
                return Err(format!(
                "`--shard auto/{n}` but JOB_COMPLETIONS is {m}; give the Job's `completions` once"
            ))
            }
            (Some(n), _) | (None, Some(n)) => n,
            (None, None) => return Err(lacks_count(
                "a Kubernetes Indexed Job",
                "the number of completions",
                "Kubernetes does not tell the pod",
                "give `--shard auto/N`, or set JOB_COMPLETIONS to the Job's `completions` in the \
                 pod's `env`",
            )),
        };
    if count == 0 || index >= count {
        return Err(format!(
            "`--shard auto`: JOB_COMPLETION_INDEX is {index}, but there are {count} completions \
             (indexes 0 to {}); the Job's `completions` and the count squall was given differ",
            count.saturating_sub(1)
        ));
    }
    Ok(Shard {
        index: index + 1,
        count,
    })
}

fn slurm_shard(
    id: &str,
    flag: Option<usize>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Shard, String> {
    let id = number("SLURM_ARRAY_TASK_ID", id)?;
    let read = |name: &str| env(name).map(|v| number(name, &v)).transpose();
    let from_env = read("SLURM_ARRAY_TASK_COUNT")?;
    let count = match (flag, from_env) {
        (Some(n), Some(m)) if n != m => {
            return Err(format!(
                "`--shard auto/{n}` but SLURM_ARRAY_TASK_COUNT is {m}; drop the `/{n}`"
            ))
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => {
            return Err(lacks_count(
                "a Slurm job array",
                "SLURM_ARRAY_TASK_COUNT",
                "SLURM_ARRAY_TASK_ID is set, but not the count",
                "give `--shard auto/N`",
            ))
        }
    };
    // Without SLURM_ARRAY_TASK_MIN the array is taken to start at 1, as
    // `--array=1-N` does.
    let min = read("SLURM_ARRAY_TASK_MIN")?.unwrap_or(1);
    let step = read("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
    if id < min || (id - min) % step != 0 {
        return Err(format!(
            "`--shard auto`: SLURM_ARRAY_TASK_ID is {id}, not in the array from {min} by {step}; \
             submit a range such as `--array=1-{count}`, or give `--shard K/N`"
        ));
    }
    let index = (id - min) / step + 1;
    if count == 0 || index > count {
        return Err(format!(
            "`--shard auto`: SLURM_ARRAY_TASK_ID {id} is task {index} of an array from {min} by {step}, \
             but SLURM_ARRAY_TASK_COUNT is {count}; submit a range such as `--array=1-{count}` \
             (a list like `--array=1,5,9` has no place for each task), or give `--shard K/N`"
        ));
    }
    Ok(Shard { index, count })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_string())
        }
    }

    fn shard(index: usize, count: usize) -> Result<Shard, String> {
        Ok(Shard { index, count })
    }

    #[test]
    fn plain_shards_do_not_read_the_environment() {
        let env = with(&[("JOB_COMPLETION_INDEX", "x")]);
        assert_eq!(parse("2/3", &env), shard(2, 3));
        assert!(parse("auto/0", &env).is_err());
        assert!(parse("automatic", &env).is_err());
    }

    #[test]
    fn kubernetes_counts_from_the_flag_or_job_completions() {
        let env = with(&[("JOB_COMPLETION_INDEX", "0"), ("JOB_COMPLETIONS", "3")]);
        assert_eq!(parse("auto", &env), shard(1, 3));
        assert_eq!(parse("auto/3", &env), shard(1, 3));
        let e = parse("auto/4", &env).unwrap_err();
        assert!(e.contains("JOB_COMPLETIONS is 3"), "{e}");
        let flag_only = with(&[("JOB_COMPLETION_INDEX", "2")]);
        assert_eq!(parse("auto/3", &flag_only), shard(3, 3));
        let e = parse("auto", &flag_only).unwrap_err();
        assert!(e.contains("give `--shard auto/N`"), "{e}");
        let e = parse("auto/2", &flag_only).unwrap_err();
        assert!(
            e.contains("JOB_COMPLETION_INDEX is 2, but there are 2"),
            "{e}"
        );
        let bad = with(&[("JOB_COMPLETION_INDEX", "one")]);
        let e = parse("auto/3", &bad).unwrap_err();
        assert!(
            e.contains("reads JOB_COMPLETION_INDEX: `one` is not a whole number"),
            "{e}"
        );
    }

    #[test]
    fn slurm_arrays_count_from_their_start_by_their_step() {
        let one_based = with(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(parse("auto", &one_based), shard(3, 3));
        let zero_based = with(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(parse("auto", &zero_based), shard(1, 3));
        let stepped = with(&[
            ("SLURM_ARRAY_TASK_ID", "10"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(parse("auto", &stepped), shard(3, 3));
        let listed = with(&[
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        let e = parse("auto", &listed).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_COUNT is 3"), "{e}");
        let no_count = with(&[("SLURM_ARRAY_TASK_ID", "1")]);
        assert!(parse("auto", &no_count).is_err());
        assert_eq!(parse("auto/2", &no_count), shard(1, 2));
    }

    #[test]
    fn none_or_both_systems_are_refused() {
        let e = parse("auto", &with(&[])).unwrap_err();
        assert!(
            e.contains("none is set") && e.contains("--shard K/N"),
            "{e}"
        );
        let both = with(&[("JOB_COMPLETION_INDEX", "0"), ("SLURM_ARRAY_TASK_ID", "1")]);
        assert!(parse("auto/2", &both).unwrap_err().contains("both"));
    }
}
