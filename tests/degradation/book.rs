//! The degradation chapters of the book are complete. (That every
//! ```` ```squall ```` block runs and every quoted report is real is checked
//! for the whole book by `crates/squall-report/tests/book_examples.rs`.)

use crate::support::read;

const CHAPTER: &str = "book/src/graceful-degradation.md";
const REFERENCE: &str = "book/src/reference/language.md";

/// The chapter shows the scenario, quotes each of its tables, and reads
/// every number the document prints.
#[test]
fn the_chapter_is_built_around_the_scenario() {
    let text = read(CHAPTER);
    assert!(text.contains("{{#include ../../scenarios/degradation.squall}}"));
    let quotes = text
        .matches("<!-- squall-output: scenarios/degradation.squall")
        .count();
    assert!(quotes >= 5, "{quotes} quoted outputs");
    for table in [
        "no fault",
        "pricing down (optional field)",
        "projection down (core fields)",
        "the cost of a fault-free day:",
        "outage budget (15 min fault, once a month)",
        "isolation (stale-fallback): which source down leaves what",
    ] {
        assert!(text.contains(table), "the chapter does not show `{table}`");
    }
    for term in [
        "çekirdek",
        "isteğe bağlı",
        "yedek defteri",
        "bayat",
        "hepsi ya da hiçbiri",
        "alan atlama",
        "bayat yedek",
        "kesinti bütçesi",
    ] {
        assert!(text.contains(term), "the chapter does not name `{term}`");
    }
}

/// The reference names every construct of the feature, with its defaults
/// and its errors.
#[test]
fn the_reference_covers_every_construct() {
    let text = read(REFERENCE);
    let mut missing = Vec::new();
    for needle in [
        "chain tracking -> [projection, estimator, pricing]",
        "`response`",
        "`field`",
        "`core`",
        "`optional`",
        "`marker`",
        "`policy`",
        "`all_or_nothing`",
        "`skip_optional`",
        "`stale_fallback`",
        "`ledger`",
        "`entries`",
        "`stale_for`",
        "`180 B`",
        "`KiB`",
        "`MiB`",
        "`warmup`",
        "`after warmup`",
        "`end`",
        "`every`",
        "`phase`",
        "`step`",
        "`per field`",
        "`on a, b`",
        "`set policy",
        "`rows variants [",
        "`label \"",
        "`line VARIANT",
        "`isolation`",
        "`answered`",
        "`full`",
        "`reduced`",
        "`fresh_fields`",
        "`stale_fields`",
        "`missing_fields`",
        "`bytes`",
        "`avg_bytes`",
        "`last_answered`",
        "`fields(",
        "`marker(",
        "`response_bytes(",
        "`ledger_entries(",
        "`minutes(",
        "`seconds(",
        "marker 0 B",
        "default",
        "Errors",
    ] {
        if !text.contains(needle) {
            missing.push(needle);
        }
    }
    assert!(missing.is_empty(), "{REFERENCE} lacks {missing:?}");
}
