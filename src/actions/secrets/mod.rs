//! Secret detection: text that looks like a credential never enters the memory.
//!
//! The memory lives in the repository and is read by every agent and every clone, so a note
//! or a journal line holding a live key would leak it for ever. Every free text a command
//! stores goes through [`refuse`] before anything is written — a candidate's parts, `write`'s
//! fields, a handoff, a ledger reason, `--by` — and a finding refuses the command, naming the
//! rule and the line, never the secret itself. A project that must store such text turns the
//! check off in its config (`"secrets": {"check": false}`, docs/CONFIG.md).
//!
//! How a text is checked:
//! 1. it is normalised ([`normalize`]): invisible characters removed, fullwidth forms folded,
//!    Markdown escapes and HTML character references undone, lines kept;
//! 2. a keyword pre-filter: each rule names the lowercase literals any match must contain (one
//!    of its keywords, and one of the literals it also needs, such as an `=` or a `:` after a
//!    key name); they are looked up in the text (one by one in a short text, in one
//!    Aho-Corasick pass in a long one), and only the rules whose literals are present go
//!    further — most texts run few regular expressions or none;
//! 3. the rule's regular expression ([`rules`]), compiled on first use (bytes, Unicode off,
//!    linear time);
//! 4. a check of the matched value alone ([`values`]): placeholders (`EXAMPLE`, `${VAR}`,
//!    `<token>`, `xxxx`, `changeme`, …) and references to code (`$VAR`, `getToken()`,
//!    `aws_eks_cluster.cluster.token`) are not secrets; a key name in front of the value
//!    ([`named`]) lowers the bar for it — a `password` takes any value that reads as a
//!    password, a `token` or an `API_KEY` any machine-made value, hex digests included — while
//!    an unnamed free-form value must look generated and is never a bare hex digest.
//!
//! What is not caught, by design: a secret split over several lines or several fields, one
//! encoded (base64 of a key, say) or shown in an image, a password of letters only (it reads
//! as a word), and a token of a shape no rule knows and no key name announces.

mod named;
mod normalize;
mod rules;
mod values;

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use memchr::memmem;
use regex::bytes::{Captures, Regex, RegexBuilder};

use crate::actions::secrets::named::Tier;
use crate::actions::secrets::normalize::normalize;
use crate::actions::secrets::rules::{Check, RULES, Rule};
use crate::actions::secrets::values::{
    DOCUMENTATION_PASSWORDS, entropy, is_generated, is_identifier_shaped, is_named_placeholder,
    is_password, is_placeholder, is_scrambled_value,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::messages;

/// Each rule's compiled expression, built on first use.
static COMPILED: OnceLock<Vec<OnceLock<Regex>>> = OnceLock::new();

/// The keyword pre-filter for long texts: one automaton over every literal the rules name
/// (their keywords and the literals they also need).
struct Prefilter {
    automaton: AhoCorasick,
    /// The automaton's patterns, each literal once.
    literals: Vec<&'static str>,
}

static PREFILTER: OnceLock<Prefilter> = OnceLock::new();

fn prefilter() -> &'static Prefilter {
    PREFILTER.get_or_init(|| {
        let mut literals: Vec<&'static str> = Vec::new();
        for literal in RULES
            .iter()
            .flat_map(|rule| rule.keywords.iter().chain(rule.also))
        {
            if !literals.contains(literal) {
                literals.push(literal);
            }
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&literals)
            .expect("the rule table's keywords build an automaton");
        Prefilter {
            automaton,
            literals,
        }
    })
}

/// A text that looks like it holds a secret: which rule, and where (never the secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule's id, e.g. `github-pat`.
    pub rule: &'static str,
    /// What the rule finds, e.g. "a GitHub personal access token".
    pub what: &'static str,
    /// The rule's family (`cloud`, `named-value`, `private-key`, …), for the figures.
    pub family: &'static str,
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
    scan(text, true).into_iter().next()
}

/// Every rule that finds a secret-looking value in `text` (one finding per rule id: the first
/// value it accepts), in the order of the rule table.
#[must_use]
pub fn find_all(text: &str) -> Vec<Finding> {
    scan(text, false)
}

/// Refuses the command when one of `parts` (`(what the user calls it, its text)`, e.g.
/// `("--task", …)`) holds a secret-looking value, unless the project turned the check off.
///
/// The project config is read only when something was found, so the common case costs no
/// file access.
///
/// # Errors
/// `<part>: line <n> looks like <what> (rule <id>); secrets never enter the memory`.
pub(crate) fn refuse(ctx: &Context, parts: &[(&str, &str)]) -> Result<()> {
    for (part, text) in parts {
        if let Some(finding) = find(text) {
            if !crate::store::config::load(&ctx.root).config.secrets_check {
                return Ok(());
            }
            return Err(Error::refused(messages::secret_in(part, finding)));
        }
    }
    Ok(())
}

/// The findings of `text`; with `first`, stops at the first.
fn scan(text: &str, first: bool) -> Vec<Finding> {
    let text = normalize(text);
    let bytes = text.as_bytes();
    let runs = rules_to_run(bytes);
    let compiled = COMPILED.get_or_init(|| RULES.iter().map(|_| OnceLock::new()).collect());
    let mut findings: Vec<Finding> = Vec::new();
    for (index, rule) in RULES.iter().enumerate() {
        if !runs[index] || findings.iter().any(|f| f.rule == rule.id) {
            continue;
        }
        let regex = compiled[index].get_or_init(|| compile(rule.pattern));
        for captures in regex.captures_iter(bytes) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            if let Some((id, what)) = judge(rule, &captures, &bytes[whole.end()..]) {
                let line = 1 + memchr::memchr_iter(b'\n', &bytes[..whole.start()]).count();
                findings.push(Finding {
                    rule: id,
                    what,
                    family: rule.family,
                    line,
                });
                break;
            }
        }
        if first && !findings.is_empty() {
            break;
        }
    }
    findings
}

/// Texts up to this length look their literals up one by one; longer ones go through the
/// automaton, built once per process (it costs a few hundred microseconds to build, more than
/// a short text's lookups).
const SHORT_TEXT: usize = 8 * 1024;

/// For each rule, whether `bytes` holds one of its keywords and one of its `also` literals
/// (ASCII case ignored).
fn rules_to_run(bytes: &[u8]) -> Vec<bool> {
    if bytes.len() <= SHORT_TEXT {
        let lower = bytes.to_ascii_lowercase();
        wanted(|literal| memmem::find(&lower, literal.as_bytes()).is_some())
    } else {
        rules_found_by_automaton(bytes)
    }
}

/// [`rules_to_run`] through the automaton.
fn rules_found_by_automaton(bytes: &[u8]) -> Vec<bool> {
    let prefilter = prefilter();
    let mut found = vec![false; prefilter.literals.len()];
    for hit in prefilter.automaton.find_overlapping_iter(bytes) {
        found[hit.pattern().as_usize()] = true;
    }
    wanted(|literal| {
        prefilter
            .literals
            .iter()
            .position(|l| *l == literal)
            .is_some_and(|i| found[i])
    })
}

/// For each rule, whether `present` says one of its keywords and one of its `also` literals are
/// in the text.
fn wanted(present: impl Fn(&str) -> bool) -> Vec<bool> {
    let any = |literals: &[&str]| literals.is_empty() || literals.iter().any(|l| present(l));
    RULES
        .iter()
        .map(|rule| any(rule.keywords) && any(rule.also))
        .collect()
}

/// Compiles a rule's pattern: bytes, Unicode off (ASCII classes, fast to build).
fn compile(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(1 << 24)
        .build()
        .expect("the rule table's patterns compile")
}

/// A value as written, without the punctuation that ends a sentence or closes a construct.
fn trimmed(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .rposition(|b| !b".,;:!?)]}*".contains(b))
        .map_or(0, |i| i + 1);
    &value[..end]
}

/// Whether the match `captures` of `rule` is a secret, and under which id and description
/// (a password-named value is reported as such). `after` is the text after the match.
fn judge(
    rule: &Rule,
    captures: &Captures<'_>,
    after: &[u8],
) -> Option<(&'static str, &'static str)> {
    let group = |i: usize| captures.get(i).map(|m| m.as_bytes());
    let whole = group(0).unwrap_or_default();
    let found = Some((rule.id, rule.what));
    match rule.check {
        Check::Shape => (!is_placeholder(group(1).unwrap_or(whole))).then_some(())?,
        Check::Entropy(minimum) => {
            let value = group(1).unwrap_or(whole);
            (!is_placeholder(value) && entropy(value) >= minimum).then_some(())?;
        }
        Check::Token(minimum) => {
            let value = group(1).unwrap_or(whole);
            (!is_placeholder(value) && entropy(value) >= minimum && !is_identifier_shaped(value))
                .then_some(())?;
        }
        Check::PemBlock => is_key_block(after).then_some(())?,
        Check::UrlPassword => is_url_password(group(2)?).then_some(())?,
        Check::CurlUser => {
            let value = trimmed(group(2)?);
            (is_password(value) || is_generated(value)).then_some(())?;
        }
        Check::Header => is_generated(trimmed(group(1)?)).then_some(())?,
        Check::Named { key } => {
            let value = (1..captures.len())
                .filter(|&i| i != key)
                .find_map(group)
                .map(trimmed)?;
            return match named::tier(group(key)?)? {
                Tier::Password => is_password(value)
                    .then_some(("password-assignment", "a password assigned a value")),
                Tier::Secret => is_generated(value).then_some(found?),
                Tier::Hint => is_scrambled_value(value).then_some(found?),
            };
        }
        Check::Prose => {
            let value = trimmed(group(2)?);
            let secret = match named::tier(group(1)?)? {
                Tier::Password => is_password(value) && reads_as_chosen_password(value),
                Tier::Secret => is_generated(value),
                Tier::Hint => is_scrambled_value(value),
            };
            secret.then_some(())?;
        }
    }
    found
}

/// A password written in prose must show it was chosen as one: a letter next to a digit
/// (`hunter2`, `W1nter`) or a symbol beyond `-_.` (`P@ss`), so that "the password is
/// SHA-256-hashed" is not one.
fn reads_as_chosen_password(value: &[u8]) -> bool {
    value.windows(2).any(|w| {
        (w[0].is_ascii_alphabetic() && w[1].is_ascii_digit())
            || (w[0].is_ascii_digit() && w[1].is_ascii_alphabetic())
    }) || value
        .iter()
        .any(|&b| b.is_ascii_punctuation() && !matches!(b, b'-' | b'_' | b'.'))
}

/// The password of a URL's user information: 4 characters or more, not a placeholder (nor
/// holding the word it stands for: `secret123`), not a variable (`$DB_PASS`, `%s`,
/// `{password}`), not a word documentation writes there (`guest`, `admin`, …), and not a port
/// followed by a path
/// (`example.com:8080/a@b` has no password).
fn is_url_password(value: &[u8]) -> bool {
    let lower = value.to_ascii_lowercase();
    let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
    let is_port = (1..=5).contains(&digits) && matches!(value.get(digits), None | Some(b'/'));
    value.len() >= 4
        && !is_port
        && !is_named_placeholder(value)
        && !matches!(value.first(), Some(b'$' | b'%' | b'{'))
        && !DOCUMENTATION_PASSWORDS
            .iter()
            .any(|word| lower == word.as_bytes())
}

/// Whether the text after a private key's header holds a key: its body (up to the `END` line,
/// or to the end of the text when that line was dropped) has key material — a run of 16
/// base64 characters or more, judged a placeholder on its own, never by the words around it —
/// or the header stands alone: last on its line, no `END` line after it, and nothing but a
/// placeholder or prose on the lines that follow. A header quoted inside a line
/// (`` `-----BEGIN RSA PRIVATE KEY-----` marks the start``) is a mention, not a key.
fn is_key_block(after: &[u8]) -> bool {
    let end = memmem::find(after, b"-----END").unwrap_or(after.len());
    let body = &after[..end.min(64 * 1024)];
    let is_base64 = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let material: Vec<u8> = body
        .split(|b| !is_base64(b))
        .filter(|run| run.len() >= 16)
        .flatten()
        .copied()
        .collect();
    if !material.is_empty() {
        return !is_placeholder(&material);
    }
    if end < after.len() {
        // An empty block, or one whose body is only words: a demonstration, not a key.
        return false;
    }
    let mut lines = body.split(|&b| b == b'\n');
    if !lines.next().unwrap_or_default().trim_ascii().is_empty() {
        return false;
    }
    let next = lines.map(<[u8]>::trim_ascii).find(|line| !line.is_empty());
    !next.is_some_and(is_placeholder)
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
        for rule in RULES {
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
            "digitalocean-token",
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
        found("password = hunter2x9", "password-assignment");
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

    /// The shapes issue #29 found passing the detector of the previous round.
    #[test]
    fn the_shapes_that_got_through_before() {
        let key = token("", MIXED, 15);
        found(&format!("redis://:{key}@cache:6379/0"), "url-credentials");
        found(
            &format!("postgres://app:p@ss{key}@db:5432/prod"),
            "url-credentials",
        );
        found(&format!("mysql://root:ab/{key}@db/shop"), "url-credentials");
        found(&format!("DB_PASS={key}"), "password-assignment");
        found("passphrase: correct-horse-7-battery", "password-assignment");
        found(
            &format!("Authorization: Bearer {}", token("", MIXED, 40)),
            "authorization-header",
        );
        found(
            &token("DATADOG_API_KEY=", "8f3c2b7e4d1a9c6f0e5b", 32),
            "generic-api-key",
        );
        found("password: hunter2-Winter-2026", "password-assignment");
        found(
            "the staging admin password is hunter2-Winter-2026",
            "prose-secret",
        );
        // A private key whose END line was dropped, and a header alone on its line.
        found(
            &format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n",
                token("", MIXED, 70)
            ),
            "private-key",
        );
        found("-----BEGIN RSA PRIVATE KEY-----\n", "private-key");
        found("-----BEGIN RSA PRIVATE KEY-----", "private-key");
        // `example` around the key material does not make the key a placeholder.
        found(
            &format!(
                "-----BEGIN PRIVATE KEY-----\n# example key\n{}\n-----END PRIVATE KEY-----",
                token("", MIXED, 64)
            ),
            "private-key",
        );
    }

    #[test]
    fn private_key_blocks_that_are_not_keys() {
        clean("-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----");
        clean("-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----");
        clean("-----BEGIN RSA PRIVATE KEY-----\n<your key here>");
        clean("-----BEGIN RSA PRIVATE KEY-----\n...\n");
        clean("Look for `-----BEGIN RSA PRIVATE KEY-----` in the diff before pushing.");
        clean(&format!(
            "-----BEGIN PRIVATE KEY-----\nMIIEvEXAMPLE{}\n-----END PRIVATE KEY-----",
            "A".repeat(40)
        ));
    }

    #[test]
    fn text_is_normalised_before_matching() {
        let secret = token("", MIXED, 36);
        for text in [
            format!("ghp_\u{200B}{secret}"),
            format!("gh\u{200D}p_{}\u{2060}{}", &secret[..18], &secret[18..]),
            format!(
                "ｇｈｐ＿{}",
                secret
                    .chars()
                    .map(|c| char::from_u32(u32::from(c) + 0xFEE0).unwrap())
                    .collect::<String>()
            ),
            format!(r"ghp\_{secret}"),
            format!("&#103;hp_{secret}"),
        ] {
            found(&text, "github-pat");
        }
        found(r"DB\_PASS=hunter2-Winter-2026", "password-assignment");
        found("password&colon; hunter2-Winter-2026", "password-assignment");
    }

    /// A key name lowers the bar for hex values and memorable passwords, never for code.
    #[test]
    fn key_names_and_code() {
        found(
            &token("client_secret: ", "0123456789abcdef", 32),
            "generic-api-key",
        );
        found("DB_PASSWORD=Summer2026!x", "password-assignment");
        found("<password>Summer2026!x</password>", "password-assignment");
        found("curl -u deploy:Summer2026!x https://ci", "curl-auth-user");
        clean("token = aws_eks_cluster.cluster.token");
        clean("password = var.db_password");
        clean("api_key = os.getenv(\"API_KEY\")");
        clean("password: ${DB_PASSWORD}");
        clean("token: <your-token>");
        clean("password: {{ vault_db_password }}");
        clean("secret: !vault |");
        clean("password: required");
        clean("password: Option<String>");
        clean("passwd : windows_sys::core::PCSTR");
        clean("key: Utf8SuffixKey,");
        clean("Creds: PKERB_S4U2PROXY_CRED,");
        clean("signals (acceptance true=1/false=0; ci pass=1/fail=0)");
        clean("All tests pass: 1523/1530 green-ish");
        clean("\"access_token\": \"m2m-access-token-12345\"");
        clean("the password is SHA-256-hashed before storage");
        clean("Bearer tokens expire after 15 minutes.");
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

    proptest::proptest! {
        /// The automaton of long texts lets the same rules run as the lookups of short ones.
        #[test]
        fn both_prefilters_agree(
            text in "(PASS|key|Token|-----BEGIN|://|@|=|:| is |ghp_|AKIA|xoxb-|[a-z ]){0,40}"
        ) {
            let lower = text.to_ascii_lowercase();
            let by_lookup = wanted(|l| memmem::find(lower.as_bytes(), l.as_bytes()).is_some());
            proptest::prop_assert_eq!(by_lookup, rules_found_by_automaton(text.as_bytes()));
        }

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
