//! Why shard files cannot be merged: errors as data, each naming the files
//! and rows at fault; the CLI prints them. `Display` names no command-line
//! flag: the shards to run are named `K/N`; [`MergeError::words`] names
//! them as the caller spells a shard (`--shard K/N` on the command line).

use squall_lang::not_a::NotA;

use crate::args::Spelling;

/// Why shard files cannot be merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// No files.
    #[error("nothing to merge")]
    Empty,
    /// A file is not a shard file.
    #[error("{}", NotA::new(.file, "a squall sweep shard").because(.why).message())]
    NotAShard {
        /// The file.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// Two files belong to different studies.
    #[error("`{file}` belongs to another study than `{first}`: {what} differs")]
    OtherStudy {
        /// The first file.
        first: String,
        /// The odd one.
        file: String,
        /// What differs.
        what: String,
    },
    /// A row is in two files.
    #[error(
        "row {row} of table \"{table}\" is in both `{a}` and `{b}`; each shard must be merged once"
    )]
    Duplicate {
        /// The table.
        table: String,
        /// The row (0-based).
        row: usize,
        /// One file.
        a: String,
        /// The other.
        b: String,
    },
    /// Points are missing.
    #[error("{missing} of {total} rows are in no file ({which}); run the missing shards: {}", shards_text(.shards, None))]
    Incomplete {
        /// How many rows are missing.
        missing: usize,
        /// Rows in all.
        total: usize,
        /// The first missing rows.
        which: String,
        /// The shards that would supply them, by index, and how many
        /// shards there are; `None` when the files are no shards (a whole
        /// sweep, with rows missing).
        shards: Option<(Vec<usize>, usize)>,
    },
}

impl MergeError {
    /// The message, each shard to run spelled as `spelling` spells a shard
    /// (`` `--shard 3/3` ``); the same as `Display` for every other kind.
    pub fn words(&self, spelling: &Spelling) -> String {
        match self {
            MergeError::Incomplete {
                missing,
                total,
                which,
                shards,
            } => format!(
                "{missing} of {total} rows are in no file ({which}); run the missing shards: {}",
                shards_text(shards, Some(spelling.shard))
            ),
            other => other.to_string(),
        }
    }
}

/// The shards to run, as `K/N` (after `flag` when given), or `every shard`
/// when the files were none.
fn shards_text(shards: &Option<(Vec<usize>, usize)>, flag: Option<&str>) -> String {
    let flag = flag.map(|f| format!("{f} ")).unwrap_or_default();
    match shards {
        Some((lacking, count)) => lacking
            .iter()
            .map(|k| format!("`{flag}{k}/{count}`"))
            .collect::<Vec<_>>()
            .join(", "),
        None => "every shard".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the caller's spelling names a flag: `Display` says `3/3`, the
    /// command line's words `--shard 3/3` (hand-worded, as the book quotes
    /// the CLI's refusal).
    #[test]
    fn missing_shards_are_named_as_the_caller_spells_them() {
        let e = MergeError::Incomplete {
            missing: 5,
            total: 16,
            which: "row 2".into(),
            shards: Some((vec![3], 3)),
        };
        let flags = Spelling {
            shard: "--shard",
            ..Spelling::PLAIN
        };
        assert_eq!(
            e.to_string(),
            "5 of 16 rows are in no file (row 2); run the missing shards: `3/3`"
        );
        assert_eq!(
            e.words(&flags),
            "5 of 16 rows are in no file (row 2); run the missing shards: `--shard 3/3`"
        );
        let e = MergeError::NotAShard {
            file: "x.json".into(),
            why: "it has no format".into(),
        };
        assert_eq!(
            e.words(&flags),
            "`x.json` is not a squall sweep shard: it has no format"
        );
    }
}
