//! How a name finds a decision: a heading given to a decision command, or the successor a
//! `superseded by …` status names. One rule for the commands and for `lint`.
//!
//! A name finds the decisions headed exactly so. When none is, it finds those whose heading
//! reads the same as a *slug* — lowercased, its runs of letters and digits joined by `-`, so
//! case, punctuation, spacing and `-` for `—` do not count — whole, or without its leading
//! all-digit words (a date `2026-10-01`, an ADR number `0007`): `sessions in redis` finds
//! `2026-10-01 — Sessions in Redis`, `20201016-use-slugs` finds `Use slugs`. A name that finds
//! nothing is offered the headings close to it ([`Names::near`]). Pure: no I/O.

use std::cell::OnceCell;
use std::collections::HashMap;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// How close a slug must be to a name's to be offered (normalised Damerau–Levenshtein).
const NEAR: f64 = 0.75;
/// Most headings offered as "did you mean".
const MOST_NEAR: usize = 3;

/// `text` lowercased, its runs of letters and digits joined by `-`; and the same without its
/// leading all-digit runs.
#[must_use]
pub fn slugs(text: &str) -> [String; 2] {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let undated: Vec<&str> = words
        .iter()
        .copied()
        .skip_while(|w| w.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    [words.join("-"), undated.join("-")]
}

/// A list of headings, looked up by name.
pub struct Names<'h> {
    headings: Vec<&'h str>,
    exact: FastMap<&'h str, Vec<usize>>,
    /// Made on the first loose look-up: most look-ups are exact.
    loose: OnceCell<FastMap<String, Vec<usize>>>,
}

impl<'h> Names<'h> {
    #[must_use]
    pub fn new(headings: impl IntoIterator<Item = &'h str>) -> Self {
        let headings: Vec<&str> = headings.into_iter().collect();
        let mut exact: FastMap<&str, Vec<usize>> = FastMap::default();
        for (i, heading) in headings.iter().enumerate() {
            exact.entry(*heading).or_default().push(i);
        }
        Self {
            headings,
            exact,
            loose: OnceCell::new(),
        }
    }

    fn loose(&self) -> &FastMap<String, Vec<usize>> {
        self.loose.get_or_init(|| {
            let mut loose: FastMap<String, Vec<usize>> = FastMap::default();
            for (i, heading) in self.headings.iter().enumerate() {
                for slug in slugs(heading) {
                    let list = loose.entry(slug).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
            loose
        })
    }

    /// The indexes of the headings `name` finds: exactly if any heading is `name`, else
    /// loosely (see the module documentation).
    #[must_use]
    pub fn find(&self, name: &str) -> &[usize] {
        if let Some(found) = self.exact.get(name) {
            return found;
        }
        slugs(name)
            .iter()
            .filter(|slug| !slug.is_empty())
            .find_map(|slug| self.loose().get(slug))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether `a` and `b` name the same heading of the list, or read the same as slugs.
    #[must_use]
    pub fn same(&self, a: &str, b: &str) -> bool {
        if a == b {
            return true;
        }
        let (found_a, found_b) = (self.find(a), self.find(b));
        if let ([x], [y]) = (found_a, found_b) {
            return x == y;
        }
        let [a_whole, a_undated] = slugs(a);
        let [b_whole, b_undated] = slugs(b);
        !a_undated.is_empty() && (a_whole == b_whole || a_undated == b_undated)
    }

    /// The headings closest to a `name` that finds none, best first: those whose slug (without
    /// leading numbers) is within a few letters of the name's, or holds the name's words in a
    /// row.
    #[must_use]
    pub fn near(&self, name: &str) -> Vec<usize> {
        let [_, wanted] = slugs(name);
        if wanted.is_empty() {
            return Vec::new();
        }
        let inner = format!("-{wanted}-");
        let mut scored: Vec<(f64, usize)> = self
            .headings
            .iter()
            .enumerate()
            .filter_map(|(i, heading)| {
                let [_, slug] = slugs(heading);
                let score = strsim::normalized_damerau_levenshtein(&wanted, &slug);
                if score >= NEAR {
                    Some((score, i))
                } else if wanted.len() >= 3 && format!("-{slug}-").contains(&inner) {
                    Some((NEAR - 0.01, i))
                } else {
                    None
                }
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut out: Vec<usize> = Vec::new();
        for (_, i) in scored {
            // A heading twice in the list is offered once.
            if !out.iter().any(|&j| self.headings[j] == self.headings[i]) {
                out.push(i);
            }
            if out.len() == MOST_NEAR {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADINGS: [&str; 6] = [
        "Use Postgres",
        "2026-10-01 — Sessions in Redis",
        "Use slugs",
        "0007. Use numbers",
        "Sessions in Postgres",
        "Use Postgres",
    ];

    #[track_caller]
    fn finds(name: &str, expected: &[usize]) {
        assert_eq!(Names::new(HEADINGS).find(name), expected, "{name:?}");
    }

    #[test]
    fn exact_then_loose() {
        finds("Use Postgres", &[0, 5]);
        finds("use postgres", &[0, 5]);
        finds("Sessions in Redis", &[1]);
        finds("2026-10-01 - sessions in redis", &[1]);
        finds("2026-10-01 — Sessions  in Redis", &[1]);
        finds("20201016-use-slugs", &[2]);
        finds("use numbers", &[3]);
        finds("ADR 7", &[]);
        finds("", &[]);
        finds("—", &[]);
    }

    #[test]
    fn near_misses() {
        let names = Names::new(HEADINGS);
        let near = |name: &str| -> Vec<&str> {
            names.near(name).into_iter().map(|i| HEADINGS[i]).collect()
        };
        assert_eq!(near("Use Postgre"), ["Use Postgres"]);
        assert_eq!(near("Sesions in Redis"), ["2026-10-01 — Sessions in Redis"]);
        assert_eq!(near("Postgres"), ["Use Postgres", "Sessions in Postgres"]);
        assert!(near("Kafka everywhere").is_empty());
        assert!(near("12").is_empty());
    }

    proptest::proptest! {
        /// A heading is found by itself, and by any spelling that differs in case, dashes,
        /// spacing and a date before it — unless its name is nothing but numbers.
        #[test]
        fn a_heading_is_found_by_its_loose_spellings(
            words in proptest::collection::vec("[A-Za-zé0-9]{1,8}", 1..5),
            dated in proptest::bool::ANY,
            others in proptest::collection::vec("[A-Za-z ]{1,12}", 0..4),
        ) {
            let heading = if dated {
                format!("2026-10-01 — {}", words.join(" "))
            } else {
                words.join(" ")
            };
            let mut list: Vec<&str> = others.iter().map(String::as_str).collect();
            list.push(&heading);
            let at = list.len() - 1;
            let names = Names::new(list.iter().copied());
            proptest::prop_assert!(names.find(&heading).contains(&at));
            let all_numbers = words.iter().all(|w| w.bytes().all(|b| b.is_ascii_digit()));
            if !all_numbers {
                for spelling in [
                    words.join("-").to_uppercase(),
                    format!(" {} ", words.join("  ").to_lowercase()),
                ] {
                    proptest::prop_assert!(
                        names.find(&spelling).contains(&at),
                        "{:?} in {:?}", spelling, list
                    );
                }
            }
        }
    }

    #[test]
    fn the_same_decision() {
        let names = Names::new(HEADINGS);
        assert!(names.same("Sessions in Redis", "2026-10-01 — Sessions in Redis"));
        assert!(names.same("X y", "x-y"));
        assert!(!names.same("Use slugs", "Use numbers"));
    }
}
