//! A note's body as HTML: Markdown read by pulldown-cmark (tables, strikethrough and task lists
//! on; nothing else), written by this module's own renderer so that every event is decided
//! here:
//!
//! * raw HTML, block or inline, is shown as the text it is — never passed through;
//! * a link keeps its `href` only when [`safe_href`] allows it (a relative reference, or
//!   `http:`/`https:`); any other (`javascript:`, `data:`, `vbscript:`, `file:`, a
//!   protocol-relative `//host`) becomes plain text, its target shown in a tooltip;
//! * an image is never loaded (the page allows no image source): its description is shown;
//! * headings inside a body become `h5`/`h6`, below the page's own outline (`h1`–`h4`);
//! * every text goes through [`crate::admin::view::html::text`].
//!
//! Long bodies are cut by [`cut`] before they are read, at a line end: a 2 MiB note costs
//! the page a few kilobytes and a pointer to the file.

use std::fmt::Write as _;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::admin::view::html::text;

/// `url` as a link may use it, or `None` when it must not be a link. What a browser would
/// resolve is checked, not the text as written: ASCII tabs and line breaks are removed and the
/// ends trimmed of controls and spaces first, as the URL parser does (`java\tscript:` is
/// `javascript:` to a browser).
#[must_use]
pub(crate) fn safe_href(url: &str) -> Option<String> {
    let cleaned: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let cleaned = cleaned.trim_matches(|c: char| c <= ' ');
    if cleaned.is_empty() || cleaned.chars().any(char::is_control) {
        return None;
    }
    let lower = cleaned.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(cleaned.to_owned());
    }
    // A scheme is whatever comes before a `:` that stands before the first `/`, `?` or `#`.
    let first = cleaned.find(['/', '?', '#']).unwrap_or(cleaned.len());
    if cleaned[..first].contains(':') {
        return None;
    }
    // `//host/x` and `\\host\x` (which browsers read as `//`) leave the page's own place.
    let mut start = cleaned.bytes();
    if matches!(start.next(), Some(b'/' | b'\\')) && matches!(start.next(), Some(b'/' | b'\\')) {
        return None;
    }
    Some(cleaned.to_owned())
}

/// At most `max` bytes of `body`, cut after a line end (or at a character boundary when the
/// first line alone is longer), and how many bytes were left out.
#[must_use]
pub(crate) fn cut(body: &str, max: usize) -> (&str, usize) {
    if body.len() <= max {
        return (body, 0);
    }
    let mut at = max;
    while !body.is_char_boundary(at) {
        at -= 1;
    }
    if let Some(line_end) = body[..at].rfind('\n') {
        at = line_end + 1;
    }
    (&body[..at], body.len() - at)
}

fn heading_tag(level: HeadingLevel) -> &'static str {
    match level {
        HeadingLevel::H1 | HeadingLevel::H2 => "h5",
        _ => "h6",
    }
}

/// Appends `source`, read as Markdown, to `out` as HTML.
pub(crate) fn render(out: &mut String, source: &str) {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // What each open link or image closes with.
    let mut closers: Vec<&'static str> = Vec::new();
    let mut in_head = false;
    for event in Parser::new_ext(source, options) {
        match event {
            Event::Start(tag) => open(out, tag, &mut closers, &mut in_head),
            Event::End(tag) => close(out, tag, &mut closers, &mut in_head),
            // Raw HTML, block or inline, is text like any other.
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => text(out, &t),
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                out.push_str("<code>");
                text(out, &t);
                out.push_str("</code>");
            }
            Event::FootnoteReference(name) => {
                out.push_str("[^");
                text(out, &name);
                out.push(']');
            }
            // A note's lines (`**Date:** …` then `**Status:** …`) stay lines, as people wrote them.
            Event::SoftBreak => out.push_str("<br>\n"),
            Event::HardBreak => out.push_str("<br>"),
            Event::Rule => out.push_str("<hr>"),
            Event::TaskListMarker(done) => {
                out.push_str(if done { "☑ " } else { "☐ " });
            }
        }
    }
    // A cut body may leave a link open; the parser closes the rest.
    while let Some(closer) = closers.pop() {
        out.push_str(closer);
    }
}

fn open(out: &mut String, tag: Tag<'_>, closers: &mut Vec<&'static str>, in_head: &mut bool) {
    match tag {
        Tag::Paragraph => out.push_str("<p>"),
        Tag::Heading { level, .. } => {
            let _ = write!(out, "<{}>", heading_tag(level));
        }
        Tag::BlockQuote(_) => out.push_str("<blockquote>"),
        Tag::CodeBlock(_) => out.push_str("<pre><code>"),
        Tag::HtmlBlock => out.push_str("<pre class=\"raw\">"),
        Tag::List(Some(start)) if start != 1 => {
            let _ = write!(out, "<ol start=\"{start}\">");
        }
        Tag::List(Some(_)) => out.push_str("<ol>"),
        Tag::List(None) => out.push_str("<ul>"),
        Tag::Item => out.push_str("<li>"),
        Tag::FootnoteDefinition(_) | Tag::MetadataBlock(_) => out.push_str("<div>"),
        Tag::DefinitionList => out.push_str("<dl>"),
        Tag::DefinitionListTitle => out.push_str("<dt>"),
        Tag::DefinitionListDefinition => out.push_str("<dd>"),
        Tag::Table(_) => out.push_str("<div class=\"table\"><table>"),
        Tag::TableHead => {
            *in_head = true;
            out.push_str("<thead><tr>");
        }
        Tag::TableRow => out.push_str("<tr>"),
        Tag::TableCell => out.push_str(if *in_head { "<th>" } else { "<td>" }),
        Tag::Emphasis => out.push_str("<em>"),
        Tag::Strong => out.push_str("<strong>"),
        Tag::Strikethrough => out.push_str("<del>"),
        Tag::Superscript => out.push_str("<sup>"),
        Tag::Subscript => out.push_str("<sub>"),
        Tag::Link { dest_url, .. } => {
            if let Some(href) = safe_href(&dest_url) {
                out.push_str("<a href=\"");
                text(out, &href);
                out.push_str("\" rel=\"noopener noreferrer nofollow\">");
                closers.push("</a>");
            } else {
                out.push_str("<span class=\"unsafe-link\" title=\"not a link: ");
                text(out, &dest_url);
                out.push_str("\">");
                closers.push("</span>");
            }
        }
        Tag::Image { .. } => {
            out.push_str("<span class=\"image\">[image: ");
            closers.push("]</span>");
        }
    }
}

fn close(out: &mut String, tag: TagEnd, closers: &mut Vec<&'static str>, in_head: &mut bool) {
    match tag {
        TagEnd::Paragraph => out.push_str("</p>\n"),
        TagEnd::Heading(level) => {
            let _ = writeln!(out, "</{}>", heading_tag(level));
        }
        TagEnd::BlockQuote(_) => out.push_str("</blockquote>\n"),
        TagEnd::CodeBlock => out.push_str("</code></pre>\n"),
        TagEnd::HtmlBlock => out.push_str("</pre>\n"),
        TagEnd::List(true) => out.push_str("</ol>\n"),
        TagEnd::List(false) => out.push_str("</ul>\n"),
        TagEnd::Item => out.push_str("</li>\n"),
        TagEnd::FootnoteDefinition | TagEnd::MetadataBlock(_) => out.push_str("</div>\n"),
        TagEnd::DefinitionList => out.push_str("</dl>\n"),
        TagEnd::DefinitionListTitle => out.push_str("</dt>"),
        TagEnd::DefinitionListDefinition => out.push_str("</dd>"),
        TagEnd::Table => out.push_str("</tbody></table></div>\n"),
        TagEnd::TableHead => {
            *in_head = false;
            out.push_str("</tr></thead><tbody>");
        }
        TagEnd::TableRow => out.push_str("</tr>\n"),
        TagEnd::TableCell => out.push_str(if *in_head { "</th>" } else { "</td>" }),
        TagEnd::Emphasis => out.push_str("</em>"),
        TagEnd::Strong => out.push_str("</strong>"),
        TagEnd::Strikethrough => out.push_str("</del>"),
        TagEnd::Superscript => out.push_str("</sup>"),
        TagEnd::Subscript => out.push_str("</sub>"),
        TagEnd::Link | TagEnd::Image => {
            if let Some(closer) = closers.pop() {
                out.push_str(closer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(source: &str) -> String {
        let mut out = String::new();
        render(&mut out, source);
        out
    }

    #[track_caller]
    fn href(url: &str, want: Option<&str>) {
        assert_eq!(safe_href(url).as_deref(), want, "{url:?}");
    }

    #[test]
    fn links_that_stay_links() {
        href(
            "https://example.com/a?b=1#c",
            Some("https://example.com/a?b=1#c"),
        );
        href("HTTP://EXAMPLE.COM", Some("HTTP://EXAMPLE.COM"));
        href("0035-listeners.md", Some("0035-listeners.md"));
        href("../docs/a.md#x", Some("../docs/a.md#x"));
        href("#section", Some("#section"));
        href("/abs/path", Some("/abs/path"));
        href("a/b:c", Some("a/b:c"));
        href("?q=a:b", Some("?q=a:b"));
        href(" https://x.org ", Some("https://x.org"));
    }

    #[test]
    fn links_that_do_not() {
        for url in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "java\tscript:alert(1)",
            "java\nscript:alert(1)",
            "\u{1}javascript:alert(1)",
            " javascript:alert(1)",
            "vbscript:msgbox",
            "data:text/html,<script>alert(1)</script>",
            "file:///etc/passwd",
            "mailto:a@b.c",
            "//evil.example/x",
            "\\\\evil.example\\x",
            "/\\evil.example",
            "http:evil",
            "",
            "a\u{7f}b",
        ] {
            href(url, None);
        }
    }

    #[test]
    fn raw_html_is_text() {
        let out =
            html("<script>alert(1)</script>\n\nx <img src=x onerror=alert(1)> y\n\n</style>\n");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("</style>"), "{out}");
        assert!(
            out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{out}"
        );
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt;"), "{out}");
        assert!(out.contains("&lt;/style&gt;"), "{out}");
    }

    #[test]
    fn unsafe_links_are_text_and_images_never_load() {
        let out = html(
            "[click](javascript:alert(1)) [ok](https://a.org) ![alt](https://t.example/p.png)",
        );
        assert!(
            out.contains(
                "<span class=\"unsafe-link\" title=\"not a link: javascript:alert(1)\">click</span>"
            ),
            "{out}"
        );
        assert!(
            out.contains("<a href=\"https://a.org\" rel=\"noopener noreferrer nofollow\">ok</a>"),
            "{out}"
        );
        assert!(
            out.contains("<span class=\"image\">[image: alt]</span>"),
            "{out}"
        );
        assert!(!out.contains("t.example"), "{out}");
    }

    #[test]
    fn attribute_injection_in_a_link_target_stays_inside_the_attribute() {
        let out = html("[x](https://a.org/\"onmouseover=\"alert(1))");
        assert!(!out.contains("\"onmouseover"), "{out}");
        let out = html("[x](<https://a.org/'><script>>)");
        assert!(!out.contains("<script"), "{out}");
    }

    #[test]
    fn structure() {
        assert_eq!(html("# Title\n\ntext"), "<h5>Title</h5>\n<p>text</p>\n");
        assert_eq!(html("### Sub"), "<h6>Sub</h6>\n");
        assert_eq!(
            html("- [x] done\n- [ ] open"),
            "<ul><li>☑ done</li>\n<li>☐ open</li>\n</ul>\n"
        );
        assert_eq!(
            html("3. c\n4. d"),
            "<ol start=\"3\"><li>c</li>\n<li>d</li>\n</ol>\n"
        );
        assert_eq!(
            html("| a | b |\n| - | - |\n| 1 | <b> |"),
            "<div class=\"table\"><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>&lt;b&gt;</td></tr>\n</tbody></table></div>\n"
        );
        assert_eq!(
            html("```\n<b>&\n```"),
            "<pre><code>&lt;b&gt;&amp;\n</code></pre>\n"
        );
        assert_eq!(
            html("**Status:** ~~x~~ `c`"),
            "<p><strong>Status:</strong> <del>x</del> <code>c</code></p>\n"
        );
    }

    #[test]
    fn cut_at_a_line_end() {
        assert_eq!(cut("short", 10), ("short", 0));
        assert_eq!(cut("line one\nline two\n", 12), ("line one\n", 9));
        assert_eq!(cut("ééé", 3), ("é", 4));
    }

    #[test]
    fn a_cut_inside_a_link_still_closes_it() {
        let mut out = String::new();
        render(&mut out, "[unterminated](https://a.org");
        assert_eq!(
            out.matches("<a ").count(),
            out.matches("</a>").count(),
            "{out}"
        );
    }
}
