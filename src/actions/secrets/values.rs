//! What a matched value looks like: the tests that decide whether the text a rule matched is a
//! secret or something that only stands where a secret would (a placeholder, a reference to
//! code, an identifier, a digest).
//!
//! Each test looks at the value alone, never at the text around it: a Markdown block that
//! mentions `example` does not make the key inside it a placeholder.

use memchr::memmem;

/// Placeholders people write where a secret would go: `EXAMPLE`, `${VAR}`, `{{ var }}`,
/// `<token>`, `xxxx`, `****`, `changeme`, `your_…`, `redacted`, `dummy`, `placeholder`,
/// `…`/`...`, or a value made of one repeated character.
#[must_use]
pub(crate) fn is_placeholder(value: &[u8]) -> bool {
    let lower = value.to_ascii_lowercase();
    let has = |needle: &str| memmem::find(&lower, needle.as_bytes()).is_some();
    has("example")
        || has("${")
        || has("{{")
        || (has("<") && has(">"))
        || has("xxxx")
        || has("****")
        || has("changeme")
        || has("change_me")
        || has("change-me")
        || has("placeholder")
        || has("redacted")
        || has("dummy")
        || has("your_")
        || has("your-")
        || has("yourpass")
        || has("...")
        || has("\u{2026}")
        || lower.windows(2).all(|w| w[0] == w[1])
}

/// A placeholder in a named value (`password = …`): the general ones, the words that say a
/// value is not real (`fake`, `sample`), and the names of what it stands for (`my-api-key-1`,
/// `test-token-123`, `password1`) — a vendor's token never holds those words.
#[must_use]
pub(crate) fn is_named_placeholder(value: &[u8]) -> bool {
    let lower = value.to_ascii_lowercase();
    let has = |needle: &str| memmem::find(&lower, needle.as_bytes()).is_some();
    is_placeholder(value)
        || has("fake")
        || has("sample")
        || has("token")
        || has("secret")
        || has("password")
        || has("passwd")
        || has("apikey")
        || has("api-key")
        || has("api_key")
        || DOCUMENTATION_PASSWORDS
            .iter()
            .any(|w| lower == w.as_bytes())
}

/// Passwords that documentation writes in examples.
pub(crate) const DOCUMENTATION_PASSWORDS: [&str; 17] = [
    "password",
    "passwd",
    "pass",
    "secret",
    "mypassword",
    "mysecretpassword",
    "yourpassword",
    "pa55word",
    "changeit",
    "password123",
    "foobar",
    "guest",
    "admin",
    "root",
    "test",
    "demo",
    "user",
];

/// A value that names where a secret comes from rather than holding one: an environment or
/// template reference (`$VAR`, `%VAR%`, `process.env.X`), a YAML tag or alias (`!vault`,
/// `*anchor`), a call, an index or a generic type (`getToken()`, `data["token"]`,
/// `Option<String>`), a path in code (`windows::core::PCSTR`), a URL, a file path
/// (`/run/secrets/db`, `./key.txt`, `~/.ssh/id`), a dotted path
/// (`aws_eks_cluster.cluster.token`, `config.db.password`) or a constant's name (`DB_PASSWORD`).
#[must_use]
pub(crate) fn is_code_reference(value: &[u8]) -> bool {
    let starts = |prefix: &[u8]| value.starts_with(prefix);
    starts(b"$")
        || starts(b"%")
        || starts(b"!")
        || starts(b"*")
        || starts(b"&")
        || starts(b"/")
        || starts(b"./")
        || starts(b"../")
        || starts(b"~/")
        || starts(b"process.env")
        || starts(b"os.environ")
        || starts(b"env.")
        || value.contains(&b'(')
        || value.contains(&b'[')
        || value.contains(&b'<')
        || value.contains(&b'>')
        || memmem::find(value, b"::").is_some()
        || memmem::find(value, b"://").is_some()
        || is_dotted_path(value)
        || is_constant_name(value)
}

/// `PKERB_S4U2PROXY_CRED`, `DB_PASSWORD`: a constant's name, capitals and digits in two or more
/// pieces joined by `_`.
#[must_use]
pub(crate) fn is_constant_name(value: &[u8]) -> bool {
    value.first().is_some_and(u8::is_ascii_uppercase)
        && value.contains(&b'_')
        && value.split(|&b| b == b'_').all(|piece| {
            !piece.is_empty()
                && piece
                    .iter()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        })
}

/// `a.b`, `self.token`, `aws_eks_cluster.cluster.token`: two or more identifiers (each starting
/// with a letter, `_` or `$`, and shaped as a person names things) joined by dots.
#[must_use]
pub(crate) fn is_dotted_path(value: &[u8]) -> bool {
    let mut parts = 0;
    for part in value.split(|&b| b == b'.') {
        let Some((&first, rest)) = part.split_first() else {
            return false;
        };
        if !(first.is_ascii_alphabetic() || first == b'_' || first == b'$')
            || !rest
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'-')
            || !is_identifier_shaped(part.strip_prefix(b"$").unwrap_or(part))
        {
            return false;
        }
        parts += 1;
    }
    parts >= 2
}

/// A bare hexadecimal digest (MD5, SHA-1, SHA-256, SHA-512 lengths): an identifier the memory
/// is full of, not a credential — unless a key name says otherwise.
#[must_use]
pub(crate) fn is_hex_digest(value: &[u8]) -> bool {
    matches!(value.len(), 32 | 40 | 64 | 128) && value.iter().all(u8::is_ascii_hexdigit)
}

/// The length of the longest run of ASCII letters and digits in `value`: a generated key or a
/// password is one long run; an identifier is short words joined by `_`, `-` or `.`.
#[must_use]
pub(crate) fn longest_alphanumeric_run(value: &[u8]) -> usize {
    value
        .split(|b| !b.is_ascii_alphanumeric())
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

/// Whether the letters and digits of `value` switch between lowercase, uppercase and digit at
/// least once every three characters, as generated keys and chosen passwords do
/// (`q8Zr2Lk9Vx3M`, `hunter2x9`) and identifiers do not (`guard_p95_network`, `utf-8Gateway`,
/// `sha256sum`). Separators (`_`, `-`, `.`, …) are skipped.
#[must_use]
pub(crate) fn is_scrambled(value: &[u8]) -> bool {
    let classes: Vec<u8> = value
        .iter()
        .filter_map(|&b| match b {
            b'a'..=b'z' => Some(0),
            b'A'..=b'Z' => Some(1),
            b'0'..=b'9' => Some(2),
            _ => None,
        })
        .collect();
    let changes = classes.windows(2).filter(|w| w[0] != w[1]).count();
    changes * 3 >= classes.len()
}

/// Whether `value` is shaped like a name a person gave: pieces cut at `_`, `-`, `.`, `/`, `:`
/// and at each lowercase-to-uppercase step (`userId2` → `user`, `Id2`), every piece at most one
/// run of letters between digits (`user_id2_v3`, `guard_p95_network`, `aws4_hmac_sha256`,
/// `JWT-15min`, `3rdParty`). A generated token has letters on both sides of its digits
/// (`q8Zr2Lk9`) and is not.
#[must_use]
pub(crate) fn is_identifier_shaped(value: &[u8]) -> bool {
    // Within the current piece: 0 nothing yet or leading digits, 1 letters, 2 digits after them.
    let mut state = 0;
    let mut previous: Option<u8> = None;
    for &b in value {
        if matches!(b, b'_' | b'-' | b'.' | b'/' | b':') {
            state = 0;
            previous = None;
            continue;
        }
        if b.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase()) {
            state = 0;
        }
        if b.is_ascii_digit() {
            if state == 1 {
                state = 2;
            }
        } else if b.is_ascii_alphabetic() {
            if state == 2 {
                return false;
            }
            state = 1;
        } else {
            return false;
        }
        previous = Some(b);
    }
    true
}

/// Whether `value`, made of letters, digits and `_` only, with a camel-case hump or a `_`,
/// reads as a name in code: cut at `_`, between letters and digits and at the humps
/// (`OAuth2Provider` → `O`, `Auth`, `2`, `Provider`), its pieces of letters are words — three
/// letters long on average, at most one lone letter. A generated token cuts into many short pieces
/// (`q8Zr2Lk9` → `q`, `8`, `Zr`, …), and one in a single case has no hump to cut at.
#[must_use]
pub(crate) fn is_code_name(value: &[u8]) -> bool {
    let humped = value
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        || value.windows(3).any(|w| {
            w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()
        });
    // A digit run ends a word (`utf8`, `OAuth2Provider`): a lowercase letter right after one
    // (`k9x`) is not how names are written.
    let digit_then_lower = value
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1].is_ascii_lowercase());
    if !value
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        || !(humped || value.contains(&b'_'))
        || digit_then_lower
    {
        return false;
    }
    // The lengths of the pieces made of letters (digit runs are cut out and not counted).
    let mut pieces: Vec<usize> = Vec::new();
    for segment in value.split(|&b| b == b'_') {
        let mut from = 0;
        for i in 1..=segment.len() {
            let cut = i == segment.len() || {
                let (a, b) = (segment[i - 1], segment[i]);
                a.is_ascii_digit() != b.is_ascii_digit()
                    || (a.is_ascii_lowercase() && b.is_ascii_uppercase())
                    || (a.is_ascii_uppercase()
                        && b.is_ascii_uppercase()
                        && segment.get(i + 1).is_some_and(u8::is_ascii_lowercase))
            };
            if cut {
                if segment[from].is_ascii_alphabetic() {
                    pieces.push(i - from);
                }
                from = i;
            }
        }
    }
    let letters: usize = pieces.iter().sum();
    let lone = pieces.iter().filter(|&&len| len == 1).count();
    !pieces.is_empty() && lone <= 1 && letters >= 3 * pieces.len()
}

/// Shannon entropy of the bytes of `value`, in bits per byte.
#[must_use]
pub(crate) fn entropy(value: &[u8]) -> f64 {
    if value.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in value {
        counts[usize::from(b)] += 1;
    }
    #[expect(clippy::cast_precision_loss, reason = "lengths are at most a few KiB")]
    let len = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}

/// A value that looks machine-made, as the value of a key named a token, a secret or an API key
/// must: 10 characters or more, not a placeholder or a reference to code, and either letters
/// and digits mixed as no identifier mixes them or 16 hex digits or more (a UUID included),
/// with an entropy of 3 bits per character or more, or 16 digits or more with 2.5 bits.
#[must_use]
pub(crate) fn is_generated(value: &[u8]) -> bool {
    if !(10..=1000).contains(&value.len())
        || is_named_placeholder(value)
        || is_code_reference(value)
    {
        return false;
    }
    let letters = value.iter().filter(|b| b.is_ascii_alphabetic()).count();
    let digits = value.iter().filter(|b| b.is_ascii_digit()).count();
    if letters == 0 {
        // Ten symbols give at most 3.3 bits a character: a random number reaches 2.5.
        return digits >= 16 && entropy(value) >= 2.5;
    }
    let hexish = value.iter().all(|&b| b.is_ascii_hexdigit() || b == b'-');
    digits > 0
        && entropy(value) >= 3.0
        && ((!is_identifier_shaped(value) && !is_code_name(value))
            || (hexish && letters + digits >= 16))
}

/// A value that reads as a password, as the value of a key named a password or a passphrase
/// may: 8 characters or more with a letter, a digit or a symbol beyond `-_.` among them, and
/// neither a placeholder, a reference to code, a lowercase `snake_case` identifier nor a chain
/// of assignments (`1/fail=0`). A
/// memorable password (`hunter2-Winter-2026`) is one; a word or a phrase of words
/// (`required`, `rotated-quarterly`, `PasswordField`) is not.
#[must_use]
pub(crate) fn is_password(value: &[u8]) -> bool {
    if !(8..=200).contains(&value.len())
        || is_named_placeholder(value)
        || is_code_reference(value)
        || !value.iter().any(u8::is_ascii_alphabetic)
    {
        return false;
    }
    let wordy = value
        .iter()
        .all(|&b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b'.'));
    let snake = value
        .iter()
        .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && value.contains(&b'_');
    // `a=b` inside a value is a second assignment (`pass=1/fail=0`), not a password; base64
    // padding at the end is fine.
    let assigns = value
        .iter()
        .position(|&b| b == b'=')
        .is_some_and(|i| value[i..].iter().any(|&b| b != b'='));
    !wordy && !snake && !assigns
}

/// The value of a key that only hints at a secret (`key`, `auth`): letters and digits
/// scrambled as generated keys have them (not as an identifier has them: `Utf8SuffixKey`), at
/// least 8 in one run, entropy 3 or more, not a bare hex digest nor a reference to code.
#[must_use]
pub(crate) fn is_scrambled_value(value: &[u8]) -> bool {
    if !(8..=150).contains(&value.len()) || is_named_placeholder(value) {
        return false;
    }
    let has_letter = value.iter().any(u8::is_ascii_alphabetic);
    let has_digit = value.iter().any(u8::is_ascii_digit);
    has_letter
        && has_digit
        && !is_hex_digest(value)
        && !is_code_reference(value)
        && !is_identifier_shaped(value)
        && !is_code_name(value)
        && longest_alphanumeric_run(value) >= 8
        && is_scrambled(value)
        && entropy(value) >= 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_is_shannon_in_bits() {
        assert_eq!(entropy(b""), 0.0);
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert_eq!(entropy(b"ab"), 1.0);
        assert_eq!(entropy(b"abcd"), 2.0);
        assert_eq!(entropy(b"0123456789abcdef"), 4.0);
    }

    #[test]
    fn placeholders() {
        for value in [
            "AKIAIOSFODNN7EXAMPLE",
            "${DB_PASSWORD}",
            "{{ .Values.token }}",
            "<your-token>",
            "xxxxxxxxxxxx",
            "********",
            "changeme123",
            "your_api_key",
            "REDACTED",
            "sk-...",
            "aaaaaaaa",
        ] {
            assert!(is_placeholder(value.as_bytes()), "{value}");
        }
        for value in ["somefakekey", "sample-token-1", "password", "Pa55word"] {
            assert!(
                !is_placeholder(value.as_bytes()) || value == "Pa55word",
                "{value}"
            );
            assert!(is_named_placeholder(value.as_bytes()), "{value}");
        }
        assert!(!is_placeholder(b"q8Zr2Lk9Vx3Mw7Pn"));
    }

    #[test]
    fn code_references() {
        for value in [
            "$DB_PASS",
            "%API_KEY%",
            "!vault",
            "process.env.TOKEN",
            "getToken()",
            "data[\"token\"]",
            "https://vault.internal/v1/x",
            "/run/secrets/db_password",
            "./secrets/token.txt",
            "~/.ssh/id_ed25519",
            "aws_eks_cluster.cluster.token",
            "config.db.password",
            "secrets.GITHUB_TOKEN",
        ] {
            assert!(is_code_reference(value.as_bytes()), "{value}");
        }
        for value in [
            "hunter2-Winter-2026",
            "q8Zr2Lk9.Vx3Mw7Pn",
            "Winter.2026.x",
            "a.",
            ".a",
        ] {
            assert!(!is_code_reference(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn identifier_shapes() {
        for value in [
            "user_id2_v3",
            "guard_p95_network",
            "aws4_hmac_sha256",
            "JWT-15min",
            "getUserToken2",
            "HTTPServer",
            "x86_64",
            "hunter2-Winter-2026",
            "3rdParty",
        ] {
            assert!(is_identifier_shaped(value.as_bytes()), "{value}");
        }
        for value in [
            "q8Zr2Lk9Vx3Mw7Pn",
            "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB",
            "8f3c9a1b",
            "hunter2Winter2026",
            "a+b",
        ] {
            assert!(!is_identifier_shaped(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn code_names() {
        for value in [
            "Utf8SuffixKey",
            "OAuth2Provider",
            "HTTPServer2",
            "max_retry_count",
            "getToken",
        ] {
            assert!(is_code_name(value.as_bytes()), "{value}");
        }
        for value in [
            "q8Zr2Lk9Vx3Mw7Pn",
            "z53m6ge14ictv4vn1dy57l3du0wdce89",
            "lu7kr3xyx4gp334sj26f0c9v_vcm8fdc2d2dgj25",
            "8f3c2b7e",
            "a-b",
            "AKIAQZ2R7LKX4M3NB5VW",
            "user_id2_v3",
            "test_7d229da68afee9ed6790669ce40788297fc",
        ] {
            assert!(!is_code_name(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn generated_values() {
        for value in [
            "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB",
            "8f3c2b7e4d1a9c6f0e5b8a7d3c2f1e0b",
            "5eb4223e-5008-46e5-be67-c7b8f2732305",
            "HXe8DGg1iJd2AopzyxkFB7F2",
            "1234567890987654",
            "bP88Q~rcBcYjzzOhg1Hnn76Wm3jGgakZiZ.8vMgR",
        ] {
            assert!(is_generated(value.as_bytes()), "{value}");
        }
        for value in [
            "JWT-15min",
            "short1",
            "user_id2_v3",
            "aws_eks_cluster.cluster.token",
            "0000000000000000",
            "your_api_key_here1",
            "getToken(42)",
            "sha256-based",
        ] {
            assert!(!is_generated(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn passwords() {
        for value in [
            "hunter2-Winter-2026",
            "P@ssw0rd!",
            "Tr0ub4dor&3",
            "hunter2winter",
            "Summer2026!x",
        ] {
            assert!(is_password(value.as_bytes()), "{value}");
        }
        for value in [
            "required",
            "rotated-quarterly",
            "PasswordField",
            "DB_PASSWORD",
            "user_id2_v3",
            "12345678",
            "${DB_PASSWORD}",
            "config.db.password",
            "short1!",
            "password",
            "changeme123",
            "dbPassword2",
            "m2m-access-token-12345",
        ] {
            assert!(!is_password(value.as_bytes()), "{value}");
        }
    }
}
