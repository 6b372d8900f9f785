//! Secret detection: text that looks like a credential never enters the memory.
//!
//! The memory lives in the repository and is read by every agent and every clone, so an entry
//! holding a live key would leak it for ever. Entries are checked before they are written, and
//! a refusal names the rule and the line, never the secret itself.
//!
//! The rule table is our own, compact (27 rules), and derives from the public gitleaks rule set
//! (<https://github.com/gitleaks/gitleaks>, MIT licence, Copyright (c) 2019 Zachary Rice): the
//! rule ids are gitleaks' where a rule follows one of theirs, so a person can look the rule up
//! there; `url-credentials` and our `generic-api-key` variant are ours.
//!
//! How a text is checked:
//! 1. a keyword pre-filter: each rule names the lowercase literals any match must contain, and
//!    only rules with a keyword present in the (ASCII-lowercased) text go further — most
//!    texts run no regular expression at all;
//! 2. the rule's regular expression, compiled on first use (byte-oriented, Unicode off: a
//!    rule costs tens of microseconds to compile, and only a rule whose keyword was seen is
//!    ever compiled);
//! 3. a check of the matched value: placeholders (`EXAMPLE`, `${VAR}`, `<token>`, `xxxx`,
//!    `changeme`, …) are not secrets, nor are bare hex digests (receipts and notes are full of
//!    SHA-256s); rules that match free-form values also require a minimum Shannon entropy and
//!    a mix of letters and digits.

use std::sync::OnceLock;

use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};

/// What a rule checks of the value it matched, beyond the placeholder test every rule applies.
#[derive(Debug, Clone, Copy)]
enum Check {
    /// The pattern is specific enough (a vendor prefix and a fixed shape).
    Shape,
    /// The value (capture group 1, else the whole match) must reach this Shannon entropy, in
    /// bits per character.
    Entropy(f64),
    /// The password of a URL's user information: at least 4 characters and not one of the
    /// words documentation uses for it (`password`, `pass`, `secret`, …).
    UrlPassword,
    /// A free-form value after a `key = value` style assignment: letters and digits mixed, no
    /// code reference, not a hex digest, entropy at least 3.
    Assignment,
}

/// One detection rule.
struct Rule {
    /// The rule's id (gitleaks' id where the rule follows theirs).
    id: &'static str,
    /// What the rule finds, as the refusal names it.
    what: &'static str,
    /// Lowercase literals, one of which every match contains.
    keywords: &'static [&'static str],
    /// The regular expression, matched on bytes with Unicode off.
    pattern: &'static str,
    check: Check,
}

/// The rules, most specific first: the first rule that matches names the finding.
const RULES: [Rule; 27] = [
    Rule {
        id: "private-key",
        what: "a private key block",
        keywords: &["-----begin"],
        pattern: r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]{64,}?KEY(?: BLOCK)?-----",
        check: Check::Shape,
    },
    Rule {
        id: "aws-access-token",
        what: "an AWS access key id",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        pattern: r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "github-pat",
        what: "a GitHub personal access token",
        keywords: &["ghp_"],
        pattern: r"ghp_[0-9a-zA-Z]{36}",
        check: Check::Shape,
    },
    Rule {
        id: "github-fine-grained-pat",
        what: "a GitHub fine-grained access token",
        keywords: &["github_pat_"],
        pattern: r"github_pat_[0-9a-zA-Z_]{82}",
        check: Check::Shape,
    },
    Rule {
        id: "github-oauth",
        what: "a GitHub OAuth access token",
        keywords: &["gho_"],
        pattern: r"gho_[0-9a-zA-Z]{36}",
        check: Check::Shape,
    },
    Rule {
        id: "github-app-token",
        what: "a GitHub app token",
        keywords: &["ghu_", "ghs_"],
        pattern: r"(?:ghu|ghs)_[0-9a-zA-Z]{36}",
        check: Check::Shape,
    },
    Rule {
        id: "github-refresh-token",
        what: "a GitHub refresh token",
        keywords: &["ghr_"],
        pattern: r"ghr_[0-9a-zA-Z]{36}",
        check: Check::Shape,
    },
    Rule {
        id: "gitlab-pat",
        what: "a GitLab personal access token",
        keywords: &["glpat-"],
        pattern: r"glpat-[0-9a-zA-Z_-]{20}",
        check: Check::Shape,
    },
    Rule {
        id: "slack-bot-token",
        what: "a Slack bot token",
        keywords: &["xoxb-"],
        pattern: r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*",
        check: Check::Shape,
    },
    Rule {
        id: "slack-user-token",
        what: "a Slack user token",
        keywords: &["xoxp-", "xoxe-"],
        pattern: r"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}",
        check: Check::Shape,
    },
    Rule {
        id: "slack-webhook-url",
        what: "a Slack webhook URL",
        keywords: &["hooks.slack.com"],
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}",
        check: Check::Shape,
    },
    Rule {
        id: "stripe-access-token",
        what: "a Stripe secret or restricted key",
        keywords: &[
            "sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod",
        ],
        pattern: r"\b(?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99}",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "openai-api-key",
        what: "an OpenAI API key",
        keywords: &["t3blbkfj"],
        pattern: r"\bsk-(?:(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})|[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})",
        check: Check::Shape,
    },
    Rule {
        id: "anthropic-api-key",
        what: "an Anthropic API key",
        keywords: &["sk-ant-api03-"],
        pattern: r"sk-ant-api03-[a-zA-Z0-9_-]{93}AA",
        check: Check::Shape,
    },
    Rule {
        id: "anthropic-admin-api-key",
        what: "an Anthropic admin API key",
        keywords: &["sk-ant-admin01-"],
        pattern: r"sk-ant-admin01-[a-zA-Z0-9_-]{93}AA",
        check: Check::Shape,
    },
    Rule {
        id: "gcp-api-key",
        what: "a Google Cloud API key",
        keywords: &["aiza"],
        pattern: r"\bAIza[0-9A-Za-z_-]{35}",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "jwt",
        what: "a JSON Web Token",
        keywords: &["ey"],
        pattern: r"\bey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9/\\_-]{17,}\.(?:[a-zA-Z0-9/\\_-]{10,}={0,2})?",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "npm-access-token",
        what: "an npm access token",
        keywords: &["npm_"],
        pattern: r"\bnpm_[a-zA-Z0-9]{36}\b",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "pypi-upload-token",
        what: "a PyPI upload token",
        keywords: &["pypi-ageichlwas5vcmc"],
        pattern: r"pypi-AgEIcHlwaS5vcmc[0-9A-Za-z_-]{50,}",
        check: Check::Shape,
    },
    Rule {
        id: "sendgrid-api-token",
        what: "a SendGrid API key",
        keywords: &["sg."],
        pattern: r"\bSG\.[a-zA-Z0-9=_.-]{66}",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "huggingface-access-token",
        what: "a Hugging Face access token",
        keywords: &["hf_"],
        pattern: r"\bhf_[a-zA-Z]{34}\b",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "digitalocean-pat",
        what: "a DigitalOcean access token",
        keywords: &["dop_v1_"],
        pattern: r"\bdop_v1_[a-f0-9]{64}\b",
        check: Check::Shape,
    },
    Rule {
        id: "age-secret-key",
        what: "an age secret key",
        keywords: &["age-secret-key-1"],
        pattern: r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        check: Check::Shape,
    },
    Rule {
        id: "twilio-api-key",
        what: "a Twilio API key",
        keywords: &["sk"],
        pattern: r"\bSK[0-9a-fA-F]{32}\b",
        check: Check::Entropy(3.0),
    },
    Rule {
        id: "hashicorp-tf-api-token",
        what: "a Terraform Cloud API token",
        keywords: &[".atlasv1."],
        pattern: r"(?i)[a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70}",
        check: Check::Shape,
    },
    Rule {
        id: "url-credentials",
        what: "a password inside a URL",
        keywords: &["://"],
        pattern: r#"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@"'<>`]+:([^\s:/@"'<>`]+)@[^\s/"'<>`]"#,
        check: Check::UrlPassword,
    },
    Rule {
        id: "generic-api-key",
        what: "a key, token, secret or password assigned a value",
        keywords: &["key", "secret", "token", "passw", "pwd", "credential"],
        pattern: r#"(?i:key|secret|token|passw(?:or)?d|pwd|credentials?)[A-Za-z0-9_.-]*["']?[ \t]*(?::=|=>|=|:)[ \t]*["'`]?([^\s"'`;,]+)"#,
        check: Check::Assignment,
    },
];

/// One rule's compiled expression, built on first use.
static COMPILED: [OnceLock<Regex>; RULES.len()] = [const { OnceLock::new() }; RULES.len()];

/// A text that looks like it holds a secret: which rule, and where (never the secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule's id, e.g. `github-pat`.
    pub rule: &'static str,
    /// What the rule finds, e.g. "a GitHub personal access token".
    pub what: &'static str,
    /// The line of the text where the match starts, from 1.
    pub line: usize,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} looks like {} (rule {})",
            self.line, self.what, self.rule
        )
    }
}

/// The first secret-looking value in `text`, in the order of the rule table, or `None`.
#[must_use]
pub fn find(text: &str) -> Option<Finding> {
    find_all(text).into_iter().next()
}

/// Every rule that finds a secret-looking value in `text` (one finding per rule: the first
/// value it accepts), in the order of the rule table.
#[must_use]
pub fn find_all(text: &str) -> Vec<Finding> {
    let bytes = text.as_bytes();
    let lower = bytes.to_ascii_lowercase();
    let mut findings = Vec::new();
    for (index, rule) in RULES.iter().enumerate() {
        if !rule
            .keywords
            .iter()
            .any(|k| memmem::find(&lower, k.as_bytes()).is_some())
        {
            continue;
        }
        let regex = COMPILED[index].get_or_init(|| compile(rule.pattern));
        for captures in regex.captures_iter(bytes) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            let value = captures.get(1).unwrap_or(whole).as_bytes();
            if accepts(rule.check, value) {
                let line = 1 + memchr::memchr_iter(b'\n', &bytes[..whole.start()]).count();
                findings.push(Finding {
                    rule: rule.id,
                    what: rule.what,
                    line,
                });
                break;
            }
        }
    }
    findings
}

/// Compiles a rule's pattern: bytes, Unicode off (ASCII classes, fast to build).
fn compile(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .unicode(false)
        .build()
        .expect("the rule table's patterns compile")
}

/// Whether a matched value counts as a secret under `check`.
fn accepts(check: Check, value: &[u8]) -> bool {
    if is_placeholder(value) {
        return false;
    }
    match check {
        Check::Shape => true,
        Check::Entropy(minimum) => entropy(value) >= minimum,
        Check::UrlPassword => {
            let lower = value.to_ascii_lowercase();
            value.len() >= 4
                && !DOCUMENTATION_PASSWORDS
                    .iter()
                    .any(|word| lower == word.as_bytes())
        }
        Check::Assignment => {
            if !(8..=150).contains(&value.len()) {
                return false;
            }
            let has_letter = value.iter().any(u8::is_ascii_alphabetic);
            let has_digit = value.iter().any(u8::is_ascii_digit);
            has_letter
                && has_digit
                && !is_hex_digest(value)
                && !is_code_reference(value)
                && longest_alphanumeric_run(value) >= 8
                && is_scrambled(value)
                && entropy(value) >= 3.0
        }
    }
}

/// Passwords that documentation writes in example URLs.
const DOCUMENTATION_PASSWORDS: [&str; 9] = [
    "password",
    "passwd",
    "pass",
    "secret",
    "mypassword",
    "mysecretpassword",
    "yourpassword",
    "pa55word",
    "changeit",
];

/// Placeholders people write where a secret would go: `EXAMPLE`, `${VAR}`, `<token>`, `xxxx`,
/// `****`, `changeme`, `your_…`, `redacted`, `dummy`, `placeholder`, `…`/`...`, or a value made
/// of one repeated character.
fn is_placeholder(value: &[u8]) -> bool {
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
        || has("placeholder")
        || has("redacted")
        || has("dummy")
        || has("your_")
        || has("your-")
        || has("...")
        || has("\u{2026}")
        || lower.windows(2).all(|w| w[0] == w[1])
}

/// A bare hexadecimal digest (MD5, SHA-1, SHA-256, SHA-512 lengths): an identifier the memory
/// is full of, not a credential.
fn is_hex_digest(value: &[u8]) -> bool {
    matches!(value.len(), 32 | 40 | 64 | 128) && value.iter().all(u8::is_ascii_hexdigit)
}

/// The length of the longest run of ASCII letters and digits in `value`: a generated key or a
/// password is one long run; an identifier is short words joined by `_`, `-` or `.`.
fn longest_alphanumeric_run(value: &[u8]) -> usize {
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
fn is_scrambled(value: &[u8]) -> bool {
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

/// A value that names where a secret comes from rather than holding one: an environment or
/// template reference, a function call, a path or a URL.
fn is_code_reference(value: &[u8]) -> bool {
    let starts = |prefix: &[u8]| value.starts_with(prefix);
    starts(b"$")
        || starts(b"%")
        || starts(b"process.env")
        || starts(b"os.environ")
        || starts(b"env.")
        || value.contains(&b'(')
        || memmem::find(value, b"://").is_some()
}

/// Shannon entropy of the bytes of `value`, in bits per byte.
fn entropy(value: &[u8]) -> f64 {
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

/// Why a file name looks like it holds secrets (`.env`, a key or certificate store, an SSH
/// private key), or `None`. Templates (`.env.example`, `.env.sample`, `.env.template`) and
/// public keys (`*.pub`) are fine.
#[must_use]
pub fn secret_file(path: &str) -> Option<&'static str> {
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
    if name == ".env" || name.starts_with(".env.") || extension == "env" {
        let template = ["example", "sample", "template", "dist"]
            .iter()
            .any(|t| name.ends_with(&format!(".{t}")));
        return (!template).then_some("an environment file");
    }
    if matches!(
        name.as_str(),
        "id_rsa" | "id_dsa" | "id_ecdsa" | "id_ed25519" | ".netrc" | ".pgpass" | ".pypirc"
    ) {
        return Some("a credentials file");
    }
    match extension {
        "pem" | "key" | "p12" | "pfx" | "jks" | "keystore" | "p8" | "ppk" => {
            Some("a key or certificate store")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test secrets are assembled at run time, so the source holds no literal credential.
    fn token(prefix: &str, alphabet: &str, len: usize) -> String {
        let body: String = alphabet.chars().cycle().take(len).collect();
        format!("{prefix}{body}")
    }

    const MIXED: &str = "a8Kq3ZpR7mXv2LwN9tYb4HcJ6dGs1FeU5oQi0";

    #[track_caller]
    fn found(text: &str, rule: &str) {
        let finding = find(text).unwrap_or_else(|| panic!("no finding in {text:?}"));
        assert_eq!(finding.rule, rule, "{text:?}");
    }

    #[track_caller]
    fn clean(text: &str) {
        assert_eq!(find(text), None, "{text:?}");
    }

    #[test]
    fn every_pattern_compiles() {
        for rule in &RULES {
            compile(rule.pattern);
        }
    }

    #[test]
    fn true_positives_of_vendor_shapes() {
        let pem_body = token("", MIXED, 120);
        found(
            &format!("-----BEGIN RSA PRIVATE KEY-----\n{pem_body}\n-----END RSA PRIVATE KEY-----"),
            "private-key",
        );
        found(
            &format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{pem_body}\n-----END OPENSSH PRIVATE KEY-----"
            ),
            "private-key",
        );
        found(
            &format!("aws: {}", token("AKIA", "QZ2R7LKX4M3NB5VW", 16)),
            "aws-access-token",
        );
        found(&token("ghp_", MIXED, 36), "github-pat");
        found(&token("github_pat_", MIXED, 82), "github-fine-grained-pat");
        found(&token("gho_", MIXED, 36), "github-oauth");
        found(&token("ghs_", MIXED, 36), "github-app-token");
        found(&token("ghr_", MIXED, 36), "github-refresh-token");
        found(&token("glpat-", MIXED, 20), "gitlab-pat");
        found(
            &format!("xoxb-1234567890-1234567890{}", &MIXED[..24]),
            "slack-bot-token",
        );
        found(
            &format!("xoxp-1234567890-1234567890-1234567890-{}", &MIXED[..32]),
            "slack-user-token",
        );
        found(
            &format!("https://hooks.slack.com/services/{}", token("", MIXED, 44)),
            "slack-webhook-url",
        );
        found(&token("sk_live_", MIXED, 24), "stripe-access-token");
        found(
            &format!("sk-{}T3BlbkFJ{}", &MIXED[..20], &MIXED[5..25]),
            "openai-api-key",
        );
        found(
            &format!(
                "sk-proj-{}T3BlbkFJ{}",
                token("", MIXED, 74),
                token("", MIXED, 74)
            ),
            "openai-api-key",
        );
        found(
            &format!("{}AA", token("sk-ant-api03-", MIXED, 93)),
            "anthropic-api-key",
        );
        found(
            &format!("{}AA", token("sk-ant-admin01-", MIXED, 93)),
            "anthropic-admin-api-key",
        );
        found(&token("AIza", MIXED, 35), "gcp-api-key");
        found(
            &format!(
                "Authorization: Bearer eyJ{}.eyJ{}.{}",
                &MIXED[..20],
                &MIXED[3..23],
                &MIXED[..16]
            ),
            "jwt",
        );
        found(&token("npm_", MIXED, 36), "npm-access-token");
        found(
            &token("pypi-AgEIcHlwaS5vcmc", MIXED, 60),
            "pypi-upload-token",
        );
        found(&token("SG.", MIXED, 66), "sendgrid-api-token");
        found(
            &token("hf_", "aKqZpRmXvLwNtYbHcJdGsFeUoQi", 34),
            "huggingface-access-token",
        );
        found(
            &token("dop_v1_", "0123456789abcdef", 64),
            "digitalocean-pat",
        );
        found(
            &token("AGE-SECRET-KEY-1", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
            "age-secret-key",
        );
        found(
            &token("SK", "0a1b2c3d4e5f6789abcdef0123456789", 32),
            "twilio-api-key",
        );
        found(
            &format!(
                "{}.atlasv1.{}",
                &MIXED[..14].to_ascii_lowercase(),
                token("", "a8kq3zpr7mxv2lwn", 64)
            ),
            "hashicorp-tf-api-token",
        );
    }

    #[test]
    fn true_positives_in_assignments_and_urls() {
        found(
            "DATABASE_URL=postgres://app:Zr8qL2vNw5@db.internal:5432/prod",
            "url-credentials",
        );
        found("password = hunter2x9", "generic-api-key");
        found(
            "api_key: \"Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB9\"",
            "generic-api-key",
        );
        found("export SECRET_TOKEN=q8Zr2Lk9Vx3Mw7Pn", "generic-api-key");
        found("\"client_secret\": \"9f8Kq2ZrL7vXw3N\"", "generic-api-key");
    }

    #[test]
    fn near_misses() {
        // Placeholders and documentation forms.
        clean("aws_access_key_id = AKIAIOSFODNN7EXAMPLE");
        clean("key = AKIAXXXXXXXXXXXXXXXX");
        clean("GITHUB_TOKEN=${GITHUB_TOKEN}");
        clean("token: <token>");
        clean("API_KEY=xxxxxxxxxxxxxxxx");
        clean("password: changeme123");
        clean("postgres://user:password@localhost/db is the local default");
        clean("DATABASE_URL=postgres://app:${DB_PASSWORD}@db/prod");
        clean("api_key = your_api_key_here1");
        clean("token = process.env.API_TOKEN2");
        clean("secret = os.environ['S3CRET']");
        clean("key = getKey(42)");
        // Digests and identifiers.
        clean("textSha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        clean("commit key: 4b825dc642cb6eb9a060e54bf8d69288fbee4904");
        // Prose.
        clean("The password combination must be rotated every 90 days.");
        clean("**Token:** short-lived JWT (15 min) with server-side revocation.");
        clean("Store the API key in the .env file, never in the repository.");
        clean("We chose tokens over sessions: key=value pairs in the header.");
        clean("client_vpn_endpoint_id = aws_ec2_client_vpn_endpoint.client-vpn-endpoint.id");
        clean("ghp_short is not a token");
        clean("`checkout(key = guard_p95_network, limit = 103)`");
        clean("`tracking(key = utf-8Gateway, limit = 208)`");
        clean("cache_key = user_id2_v3");
        clean("token_file = sha256sum");
        clean("sk-ant-api03-tooShortAA");
        clean("Use the SK prefix for service keys.");
        clean("eyJhbGciOi is how every JWT starts");
        clean("https://hooks.slack.com/services/T000/B000/XXXX");
        clean("see https://example.com:8080/path@v2");
    }

    #[test]
    fn a_finding_names_the_line_and_never_the_value() {
        let secret = token("ghp_", MIXED, 36);
        let text = format!("# Notes\n\nfirst line\ntoken {secret}\n");
        let finding = find(&text).unwrap();
        assert_eq!(finding.line, 4);
        let message = finding.to_string();
        assert_eq!(
            message,
            "line 4 looks like a GitHub personal access token (rule github-pat)"
        );
        assert!(!message.contains(&secret[4..]));
    }

    #[test]
    fn find_all_reports_each_rule_once() {
        let text = format!(
            "{}\n{}\n{}",
            token("ghp_", MIXED, 36),
            token("ghp_", &MIXED[1..], 36),
            token("glpat-", MIXED, 20)
        );
        let rules: Vec<_> = find_all(&text).iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["github-pat", "gitlab-pat"]);
    }

    #[test]
    fn secret_files() {
        for path in [
            ".env",
            "config/.env.production",
            "prod.env",
            "certs/server.pem",
            "tls.key",
            "store.p12",
            "release.keystore",
            "app.jks",
            "/home/me/.ssh/id_rsa",
            "id_ed25519",
            ".netrc",
        ] {
            assert!(secret_file(path).is_some(), "{path}");
        }
        for path in [
            ".env.example",
            ".env.sample",
            "env.md",
            "id_rsa.pub",
            "notes/keys.md",
            "src/environment.rs",
            "docs/.envrc.md",
        ] {
            assert_eq!(secret_file(path), None, "{path}");
        }
    }

    #[test]
    fn entropy_is_shannon_in_bits() {
        assert_eq!(entropy(b""), 0.0);
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert_eq!(entropy(b"ab"), 1.0);
        assert_eq!(entropy(b"abcd"), 2.0);
        assert_eq!(entropy(b"0123456789abcdef"), 4.0);
    }

    /// Every note section of the bundled fixtures is ordinary project prose: no finding.
    #[test]
    fn no_false_positive_on_the_fixtures() {
        let mut stack = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures"
        ))];
        let mut sections = 0;
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&path).unwrap();
                for section in crate::store::sections::sections(&text) {
                    sections += 1;
                    let findings = find_all(&section.full_text());
                    assert!(findings.is_empty(), "{}: {findings:?}", path.display());
                }
            }
        }
        assert!(sections > 20, "only {sections} sections found");
    }

    proptest::proptest! {
        /// The detector never panics and only reports lines that exist.
        #[test]
        fn findings_name_existing_lines(text in "(?s).{0,400}") {
            let lines = text.split('\n').count();
            for finding in find_all(&text) {
                proptest::prop_assert!(finding.line >= 1 && finding.line <= lines);
            }
        }

        /// A secret keeps being found whatever prose surrounds it.
        #[test]
        fn a_token_is_found_in_any_prose(before in "[a-z .\n]{0,80}", after in "[a-z .\n]{0,80}") {
            let text = format!("{before} {} {after}", token("ghp_", MIXED, 36));
            proptest::prop_assert!(find_all(&text).iter().any(|f| f.rule == "github-pat"));
        }
    }
}
