//! Free names for files that must never overwrite one another (kept-aside registries, archive
//! segments, handoffs): `<stem><tail>` first, then `<stem>-<n><tail>` counting up from a first
//! number. The callers create each candidate exclusively and take the first that is free.

/// `<stem><tail>`, then `<stem>-<first><tail>`, `<stem>-<first + 1><tail>`, … without end.
pub(crate) fn names<'a>(
    stem: &'a str,
    tail: &'a str,
    first: u32,
) -> impl Iterator<Item = String> + 'a {
    std::iter::once(format!("{stem}{tail}"))
        .chain((first..).map(move |n| format!("{stem}-{n}{tail}")))
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn the_bare_name_comes_first_then_the_numbers() {
        let from_one: Vec<_> = names(".torn-x", "", 1).take(3).collect();
        assert_eq!(from_one, [".torn-x", ".torn-x-1", ".torn-x-2"]);
        let from_two: Vec<_> = names("2026-01-01-a", ".md", 2).take(3).collect();
        assert_eq!(
            from_two,
            ["2026-01-01-a.md", "2026-01-01-a-2.md", "2026-01-01-a-3.md"]
        );
    }
}
