//! The one CSV writer of the crate: RFC 4180 quoting with the `csv` crate
//! (fields holding `,`, `"`, a carriage return or a line break are
//! quoted), `\n` line ends, rows of any length. What a report's tables
//! become as CSV is [`crate::data`]'s.

/// A CSV writer into memory: RFC 4180 quoting (a field holding `,`, `"`,
/// a carriage return or a line break is quoted), `\n` line ends, rows of
/// any length.
pub fn writer() -> ::csv::Writer<Vec<u8>> {
    ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::Any(b'\n'))
        .flexible(true)
        .from_writer(Vec::new())
}

/// What `w` wrote, as text.
pub fn finish(w: ::csv::Writer<Vec<u8>>) -> String {
    let bytes = w
        .into_inner()
        .unwrap_or_else(|e| e.into_inner().get_ref().clone());
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A field, quoted when it must be.
pub fn field(s: &str) -> String {
    let mut w = writer();
    let _ = w.write_record([s]);
    let mut f = finish(w);
    f.pop();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a, b"), "\"a, b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("carriage\rreturn"), "\"carriage\rreturn\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
    }
}
