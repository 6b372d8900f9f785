//! The `###` section cutter: never panics, and its output is consistent with the text.
#![no_main]

use bmad_mem::store::sections::{heading_lines, sections};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let cut = sections(text);
    let lines = heading_lines(text);
    assert_eq!(cut.len(), lines.len(), "one section per heading line");
    for (i, (section, (offset, heading))) in cut.iter().zip(&lines).enumerate() {
        assert_eq!(section.heading, *heading);
        assert_eq!(
            section.heading,
            bmad_mem::js::text::trim(section.heading),
            "heading trimmed"
        );
        assert!(
            text[*offset..].starts_with("###"),
            "heading line starts with ###"
        );
        let full = section.full_text();
        assert_eq!(full, section.parts().concat());
        assert!(full.starts_with(&format!("{}\n", section.heading)));
        // The body is the source from the line after the heading to the next heading line
        // (or the end, plus one `\n` when a line follows the heading).
        let body = &full[section.heading.len() + 1..];
        let line_end = text[*offset..].find('\n').map(|n| offset + n);
        let expected = match (line_end, lines.get(i + 1)) {
            (None, _) => String::new(),
            (Some(end), Some((next, _))) => text[end + 1..*next].to_owned(),
            (Some(end), None) => format!("{}\n", &text[end + 1..]),
        };
        assert_eq!(body, expected);
        let _ = section.trimmed_text();
    }
});
