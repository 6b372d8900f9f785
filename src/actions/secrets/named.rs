//! Key names: what the name in front of a value (`DB_PASS=`, `"client_secret":`, `apiKey =`,
//! `**Staging password:**`) says about the value that follows.
//!
//! A name is cut into lowercase words at `_`, `-`, `.`, spaces and camel-case humps
//! (`DATADOG_API_KEY` → `datadog api key`, `clientSecret` → `client secret`). The last word
//! that names a secret decides, and lowers the bar the value must clear:
//! * **password** (`password`, `passwd`, `pwd`, `passphrase`, `passcode`, `pass` inside a longer
//!   name such as `DB_PASS`, and words ending in them such as `dbpassword`): the value only has
//!   to read as a password — 8
//!   characters or more, not a word, a placeholder or code ([`crate::actions::secrets::values::is_password`]);
//! * **secret** (`secret`, `token`, `bearer`, `authorization`, `credential(s)`, `creds`,
//!   `apikey`, and `key` after `api`, `access`, `secret`, `private`, `client`, `signing`, … or
//!   at the end of an `UPPER_SNAKE` name): the value must look machine-made, hex digests
//!   included ([`crate::actions::secrets::values::is_generated`]);
//! * **hint** (any other `key`, `auth`): the value must be scrambled like a generated key, and
//!   a bare hex digest is not one ([`crate::actions::secrets::values::is_scrambled_value`]).
//!
//! A word after it that makes the name describe something else — `password_length`,
//! `token_type`, `secret_name`, `key_id`, `api_key_url` — and a word before it that makes the
//! key public or a database's (`public_key`, `csrf_token`, `primary_key`, `cache_key`) mean
//! no secret is named.

/// How much a key name lowers the bar for its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tier {
    /// A password or a passphrase: a memorable value is enough.
    Password,
    /// A token, a secret, an API key: a machine-made value, hex included.
    Secret,
    /// A word that only hints at a secret (`key`, `auth`): a scrambled value, no bare digest.
    Hint,
}

/// Words that name a password.
const PASSWORD_WORDS: [&str; 6] = [
    "password",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "passcode",
];
/// Words that name a token or a secret.
const SECRET_WORDS: [&str; 9] = [
    "secret",
    "token",
    "bearer",
    "authorization",
    "credential",
    "credentials",
    "creds",
    "apikey",
    "secretkey",
];
/// Words after which `key` names a secret key.
const KEY_QUALIFIERS: [&str; 24] = [
    "api",
    "access",
    "secret",
    "private",
    "client",
    "signing",
    "master",
    "encryption",
    "app",
    "account",
    "license",
    "licence",
    "service",
    "admin",
    "deploy",
    "auth",
    "consumer",
    "session",
    "storage",
    "subscription",
    "webhook",
    "shared",
    "hmac",
    "ssh",
];
/// Long words that name a password or a secret at their end (`dbpassword`, `authtoken`).
const SUFFIXES: [(&str, Tier); 6] = [
    ("password", Tier::Password),
    ("passwd", Tier::Password),
    ("passphrase", Tier::Password),
    ("token", Tier::Secret),
    ("secret", Tier::Secret),
    ("apikey", Tier::Secret),
];
/// Words that, after the secret word, make the name describe something else than the secret.
const DESCRIBING: [&str; 83] = [
    "id",
    "ids",
    "name",
    "names",
    "type",
    "types",
    "length",
    "len",
    "size",
    "min",
    "max",
    "minimum",
    "maximum",
    "policy",
    "policies",
    "hash",
    "hashed",
    "digest",
    "salt",
    "field",
    "fields",
    "label",
    "url",
    "uri",
    "endpoint",
    "host",
    "file",
    "files",
    "path",
    "dir",
    "env",
    "var",
    "variable",
    "prompt",
    "hint",
    "rule",
    "rules",
    "regex",
    "pattern",
    "reset",
    "expiry",
    "expires",
    "expiration",
    "ttl",
    "timeout",
    "lifetime",
    "age",
    "count",
    "enabled",
    "disabled",
    "required",
    "strength",
    "validation",
    "validator",
    "format",
    "header",
    "prefix",
    "suffix",
    "version",
    "manager",
    "provider",
    "helper",
    "class",
    "mode",
    "source",
    "ref",
    "kind",
    "scope",
    "scopes",
    "audience",
    "issuer",
    "algorithm",
    "alg",
    "encoding",
    "location",
    "rotation",
    "store",
    "vault",
    "input",
    "column",
    "index",
    "generator",
    "usage",
];
/// Words that, before the secret word, make it public or not a credential.
const DISARMING: [&str; 18] = [
    "public",
    "pub",
    "publishable",
    "csrf",
    "xsrf",
    "primary",
    "foreign",
    "sort",
    "partition",
    "cache",
    "idempotency",
    "hot",
    "natural",
    "composite",
    "unique",
    "next",
    "page",
    "continuation",
];
/// Words that may follow `key` in a name without changing what it names.
const KEY_TRAILERS: [&str; 10] = [
    "prod",
    "production",
    "dev",
    "staging",
    "test",
    "live",
    "sandbox",
    "value",
    "secret",
    "b64",
];

/// The lowercase words of a key name (see the module documentation).
fn words(name: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous: Option<u8> = None;
    for (i, &b) in name.iter().enumerate() {
        if !b.is_ascii_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            previous = None;
            continue;
        }
        let next = name.get(i + 1).copied();
        let hump = b.is_ascii_uppercase()
            && previous.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if hump && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        word.push(char::from(b.to_ascii_lowercase()));
        previous = Some(b);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// What the word `word` names on its own, `None` if it names no secret.
fn word_tier(word: &str, previous: Option<&str>, screaming: bool, last: bool) -> Option<Tier> {
    if PASSWORD_WORDS.contains(&word) {
        return Some(Tier::Password);
    }
    if SECRET_WORDS.contains(&word) {
        return Some(Tier::Secret);
    }
    match word {
        "key" => Some(
            if previous.is_some_and(|p| KEY_QUALIFIERS.contains(&p)) || (screaming && last) {
                Tier::Secret
            } else {
                Tier::Hint
            },
        ),
        "auth" => Some(Tier::Hint),
        _ => SUFFIXES
            .iter()
            .find(|(suffix, _)| word.len() > suffix.len() + 1 && word.ends_with(suffix))
            .map(|&(_, tier)| tier),
    }
}

/// What the key name `name` says about the value after it (see the module documentation).
#[must_use]
pub(crate) fn tier(name: &[u8]) -> Option<Tier> {
    // `pass` alone is a verb as often as a name ("tests pass: 12", "ci pass=1"): it names a
    // password only inside a longer identifier (`DB_PASS`, `dbPass`, `--db-pass`).
    let last_token = name
        .split(u8::is_ascii_whitespace)
        .rfind(|t| !t.is_empty())
        .unwrap_or_default();
    if words(last_token) == ["pass"] {
        return None;
    }
    let words = words(name);
    let screaming = name.iter().all(|b| !b.is_ascii_lowercase()) && words.len() >= 2;
    let (index, tier) = words.iter().enumerate().rev().find_map(|(i, word)| {
        let previous = i.checked_sub(1).map(|p| words[p].as_str());
        word_tier(word, previous, screaming, i + 1 == words.len()).map(|t| (i, t))
    })?;
    let after = &words[index + 1..];
    if after.iter().any(|w| DESCRIBING.contains(&w.as_str())) {
        return None;
    }
    if words[index] == "key" && !after.iter().all(|w| KEY_TRAILERS.contains(&w.as_str())) {
        return None;
    }
    if words[..index]
        .iter()
        .any(|w| DISARMING.contains(&w.as_str()))
    {
        return None;
    }
    Some(tier)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(name: &str, expected: Option<Tier>) {
        assert_eq!(tier(name.as_bytes()), expected, "{name}");
    }

    #[test]
    fn words_of_names() {
        let w = |name: &str| words(name.as_bytes()).join(" ");
        assert_eq!(w("DATADOG_API_KEY"), "datadog api key");
        assert_eq!(w("clientSecret"), "client secret");
        assert_eq!(w("APIKey"), "api key");
        assert_eq!(w("staging admin password"), "staging admin password");
        assert_eq!(w("--db-pass"), "db pass");
        assert_eq!(w("aws4Hmac"), "aws4 hmac");
    }

    #[test]
    fn tiers() {
        use Tier::{Hint, Password, Secret};
        for name in [
            "password",
            "DB_PASS",
            "passphrase",
            "dbPassword",
            "my_password_super_secure",
            "staging admin password",
            "PGPASSWORD",
            "dbPass",
            "--db-pass",
        ] {
            case(name, Some(Password));
        }
        for name in [
            "token",
            "DATADOG_API_KEY",
            "api_key",
            "apiKey",
            "client_secret",
            "GITHUB_TOKEN",
            "authToken",
            "Authorization",
            "bearer",
            "credentials",
            "ALGOLIA_KEY",
            "access_key",
            "mySecretString",
            "apikey_myservice",
            "api_key_prod",
        ] {
            case(name, Some(Secret));
        }
        for name in ["key", "cache_keys", "auth", "signingKeyish"] {
            let expected = if name == "key" || name == "auth" {
                Some(Hint)
            } else {
                None
            };
            case(name, expected);
        }
        for name in [
            "password_length",
            "token_type",
            "secret_name",
            "access_key_id",
            "public_key",
            "publicToken",
            "csrf-token",
            "primaryKey",
            "cache_key",
            "key_down_event",
            "keyStr",
            "issuerKeyHash",
            "credentialsId",
            "LLM_SECRET_NAME",
            "bypass",
            "compass",
            "monkey",
            "tokenizer",
            "max_tokens",
            "keyboard",
            "api_key_url",
            "pass",
            "ci pass",
            "--pass",
        ] {
            case(name, None);
        }
    }
}
