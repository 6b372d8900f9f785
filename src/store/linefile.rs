//! Files of lines that bmad-mem adds to but never rewrites otherwise: `.gitattributes`
//! (`git setup` names the merge drivers there) and `.gitignore` (`init` names what a clone keeps
//! to itself). Pure functions over bytes; the callers read and replace the file through a
//! confined handle.
//!
//! A wanted line counts as present when some line of the file says the same as the caller
//! compares them (runs of blanks made one space for attributes; the usual spellings of a path
//! for ignore patterns, [`crate::store::ignore`]): the user's own spelling is never duplicated. Lines are only ever appended — after the
//! header comment, written once — in the file's own line ending (CRLF when it has one), after a
//! final newline added to a last line that lacks one. Nothing the user wrote is moved, changed
//! or removed.

/// A line with its runs of blanks made one space, for comparing.
#[must_use]
pub(crate) fn normalized(line: &[u8]) -> String {
    String::from_utf8_lossy(line)
        .split_ascii_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `wanted` lines that `existing` lacks, in order, comparing lines by `key`.
#[must_use]
pub(crate) fn missing(existing: &[u8], wanted: &[&str], key: fn(&[u8]) -> String) -> Vec<String> {
    let present: Vec<String> = existing.split(|&b| b == b'\n').map(key).collect();
    wanted
        .iter()
        .filter(|line| !present.contains(&key(line.as_bytes())))
        .map(|line| (*line).to_owned())
        .collect()
}

/// `existing` with `added` appended, after `header` unless a line of the file already is it.
#[must_use]
pub(crate) fn extended(existing: &[u8], header: &str, added: &[String]) -> Vec<u8> {
    let mut bytes = existing.to_vec();
    let crlf = bytes.windows(2).any(|w| w == b"\r\n");
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.extend_from_slice(eol);
    }
    let has_header = bytes
        .split(|&b| b == b'\n')
        .any(|line| normalized(line) == header);
    if !has_header {
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(eol);
    }
    for line in added {
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend_from_slice(eol);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_compare_without_extra_blanks() {
        assert_eq!(
            normalized(b"  .bmad/memory/journal.ndjson \t merge=bmad-mem\r"),
            ".bmad/memory/journal.ndjson merge=bmad-mem"
        );
    }

    #[track_caller]
    fn case(existing: &str, wanted: &[&str], key: fn(&[u8]) -> String, expected: &[&str]) {
        assert_eq!(missing(existing.as_bytes(), wanted, key), expected);
    }

    #[test]
    fn only_what_is_missing_is_added() {
        let wanted = [".bmad/cache/", ".agents/memory/.brain-link"];
        case("", &wanted, normalized, &wanted);
        case(".bmad/cache/\n", &wanted, normalized, &wanted[1..]);
        case("/.bmad/cache\n", &wanted, normalized, &wanted);
        case(
            " .agents/memory/.brain-link\r\n.bmad/cache/",
            &wanted,
            normalized,
            &[],
        );
    }

    #[test]
    fn appending_keeps_every_byte_and_the_line_ending() {
        let added = ["a".to_owned(), "b".to_owned()];
        assert_eq!(extended(b"", "# h", &added), b"# h\na\nb\n");
        assert_eq!(extended(b"x", "# h", &added), b"x\n# h\na\nb\n");
        assert_eq!(
            extended(b"x\r\ny", "# h", &added),
            b"x\r\ny\r\n# h\r\na\r\nb\r\n"
        );
        // The header is written once.
        assert_eq!(extended(b"#  h\nx\n", "# h", &added), b"#  h\nx\na\nb\n");
    }
}
