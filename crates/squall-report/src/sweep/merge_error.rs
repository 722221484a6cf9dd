//! Why shard files cannot be merged: errors as data, each naming the files
//! and rows at fault; the CLI prints them.

/// Why shard files cannot be merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// No files.
    #[error("nothing to merge")]
    Empty,
    /// A file is not a shard file.
    #[error("`{file}` is not a squall sweep shard: {why}")]
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
    #[error("{missing} of {total} rows are in no file ({which}); run the missing shards: {hint}")]
    Incomplete {
        /// How many rows are missing.
        missing: usize,
        /// Rows in all.
        total: usize,
        /// The first missing rows.
        which: String,
        /// Which `--shard` runs would supply them.
        hint: String,
    },
}
