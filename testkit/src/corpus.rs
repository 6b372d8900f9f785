//! Synthetic project memories for the benchmarks, deterministic from a seed.
//!
//! Shared by the `gen-store` example (which writes whole stores to disk) and the criterion
//! benches (which need a 2 MiB note file or journal in memory). Notes follow the documented
//! entry formats (`### Heading`, then `**Date:**`, `**Status:**`, `**Context:**`, …); journal
//! lines are byte for byte what `bmad-mem write` appends, built with this kit's JSON writer
//! ([`crate::json`]), independent of the library's. The vocabulary holds a few thousand distinct words: plain English, code identifiers
//! (`rate_limit`, `auth-middleware`), accented words (`déploiement`) and project jargon, drawn
//! with a Zipf-like skew so a few words are common and most are rare, as in real notes.
//!
//! Each file has its own random stream derived from the seed and the file's name, so adding a
//! file or changing one file's size leaves the others' bytes alone. Dates are spread over a
//! fixed span whatever the size (notes over ≈ 4 years from 2023, events over ≈ 260 days from
//! 2026-01-01, before the benches' clock), so a small store is not just the oldest slice of a
//! big one.

use std::collections::HashSet;
use std::fmt::Write;

use crate::json::{Object, Value, sha256_hex};

/// Every registry file's cap (docs §1).
pub const CAP: usize = 2 * 1024 * 1024;

/// splitmix64: tiny, fast, and good enough for synthetic text.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// A stream for one purpose (a file name), independent of the others.
    #[must_use]
    pub fn derive(seed: u64, label: &str) -> Self {
        let mut h = seed ^ 0xcbf2_9ce4_8422_2325;
        for b in label.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut rng = Self(h);
        rng.next_u64();
        rng
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        // Lemire's multiply-shift; the tiny bias is irrelevant here.
        let wide = u128::from(self.next_u64()) * n as u128;
        usize::try_from(wide >> 64).expect("below n fits usize")
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        #[allow(clippy::cast_precision_loss, reason = "53 random bits are exact")]
        let bits = (self.next_u64() >> 11) as f64;
        bits / 9_007_199_254_740_992.0 // 2^53
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }

    /// An index in `0..n` with probability roughly proportional to `1 / (index + 20)`
    /// (Zipf–Mandelbrot: a few common words, a long tail of rare ones, no single word
    /// dominating).
    pub fn zipf(&mut self, n: usize) -> usize {
        const Q: f64 = 20.0;
        #[allow(clippy::cast_precision_loss, reason = "vocabulary sizes are small")]
        let ratio = (n as f64 + Q) / Q;
        let x = Q * ratio.powf(self.unit()) - Q;
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "x lies in [0, n)"
        )]
        let index = x as usize;
        index.min(n - 1)
    }
}

#[rustfmt::skip]
const STOP: &[&str] = &[
    "the", "a", "of", "to", "in", "and", "for", "is", "on", "with", "we", "it", "that", "by", "as",
    "at", "be", "this", "from", "or", "an", "are", "was", "when", "not", "only", "every", "one",
    "no", "all", "but", "so", "then", "after", "before", "each", "its", "our", "now", "than",
];

#[rustfmt::skip]
const BASE: &[&str] = &[
    "rate", "limit", "auth", "middleware", "session", "token", "cookie", "login", "logout",
    "password", "reset", "account", "user", "admin", "role", "permission", "policy", "scope",
    "cache", "redis", "postgres", "database", "schema", "migration", "column", "table", "index",
    "query", "backfill", "batch", "job", "queue", "worker", "retry", "backoff", "timeout",
    "latency", "throughput", "p95", "p99", "error", "failure", "outage", "incident", "alert",
    "metric", "log", "trace", "span", "dashboard", "deploy", "release", "rollback", "canary",
    "feature", "flag", "branch", "merge", "review", "test", "fixture", "mock", "stub",
    "integration", "unit", "flaky", "ci", "pipeline", "build", "artifact", "container", "image",
    "cluster", "node", "pod", "service", "gateway", "proxy", "router", "route", "handler",
    "endpoint", "request", "response", "header", "body", "payload", "json", "schema", "field",
    "validation", "input", "output", "parser", "encoder", "decoder", "stream", "buffer", "file",
    "path", "folder", "lock", "mutex", "thread", "async", "await", "future", "task", "event",
    "journal", "ledger", "receipt", "invoice", "payment", "billing", "checkout", "cart", "product",
    "catalog", "price", "discount", "coupon", "order", "shipment", "inventory", "stock",
    "warehouse", "search", "ranking", "score", "relevance", "filter", "sort", "page", "pagination",
    "cursor", "offset", "client", "server", "mobile", "web", "browser", "api", "version",
    "deprecation", "sunset", "contract", "interface", "module", "crate", "package", "dependency",
    "upgrade", "security", "vulnerability", "secret", "key", "rotation", "encryption", "hash",
    "signature", "certificate", "tls", "dns", "network", "bandwidth", "memory", "cpu", "disk",
    "storage", "bucket", "object", "upload", "download", "import", "export", "report", "analytics",
    "tracking", "consent", "privacy", "gdpr", "audit", "compliance", "backup", "restore",
    "snapshot", "replica", "failover", "region", "zone", "quota", "budget", "cost", "estimate",
    "sprint", "story", "epic", "ticket", "owner", "team", "oncall", "runbook", "postmortem",
    "decision", "lesson", "pattern", "guideline", "review", "approval", "sign", "draft",
    "proposal", "spec", "design", "prototype", "benchmark", "profile", "hotspot", "allocation",
    "leak", "regression", "fix", "patch", "hotfix", "workaround", "refactor", "cleanup", "rename",
    "split", "extract", "inline", "document", "readme", "changelog", "tutorial", "onboarding",
    "checklist", "template", "config", "setting", "environment", "staging", "production",
    "sandbox", "tenant", "customer", "partner", "vendor", "webhook", "callback", "notification",
    "email", "sms", "push", "template", "locale", "translation", "timezone", "calendar",
    "schedule", "cron", "expiry", "ttl", "invalidation", "eviction", "warmup", "prefetch", "lazy",
    "eager", "sync", "idempotent", "transaction", "rollback", "commit", "isolation", "deadlock",
    "contention", "throttle", "bucket", "window", "sliding", "fixed", "burst", "capacity",
    "refill", "ip", "nat", "bot", "captcha", "mfa", "otp", "sso", "oauth", "saml", "jwt", "claim",
    "revocation", "refresh", "expiration", "clock", "skew", "drift", "monotonic", "timestamp",
    "uuid", "identifier", "slug", "label", "tag", "category", "group", "member", "invite", "share",
    "comment", "thread", "reply", "mention", "search", "typo", "fuzzy", "exact", "prefix",
    "suffix", "token", "stem", "accent", "unicode", "utf-8", "surrogate", "emoji", "width",
    "render", "layout", "component", "state", "store", "reducer", "hook", "effect", "prop",
    "style", "theme", "dark", "contrast", "accessibility", "keyboard", "focus", "screen", "reader",
    "slow", "fast", "safe", "unsafe", "stale", "fresh", "hot", "cold", "large", "small", "first",
    "last", "new", "old", "shared", "private", "public", "internal", "external", "legacy",
    "modern", "manual", "automatic", "explicit", "implicit", "strict", "loose", "partial",
    "complete", "broken", "stable", "unstable", "rare", "common", "daily", "weekly", "monthly",
    "nightly", "blocked", "pending", "accepted", "rejected", "superseded", "add", "remove", "keep",
    "drop", "move", "check", "verify", "measure", "compare", "reduce", "increase", "avoid",
    "prefer", "require", "allow", "refuse", "skip", "guard", "wrap", "expose", "hide", "log",
    "ship", "revert", "pin", "bump", "freeze", "thaw", "split", "shard", "partition", "replicate",
    "denormalize", "normalize", "cache", "compress",
];

#[rustfmt::skip]
const ACCENTED: &[&str] = &[
    "déploiement", "équipe", "sécurité", "requête", "paramètre", "données", "clé", "métier",
    "fenêtre", "règle", "étape", "réseau", "mémoire", "première", "dernière", "vérifié", "côté",
    "façon", "reçu", "déjà", "très", "problème", "système", "accès", "modèle", "intégrité",
    "fiabilité", "débit", "délai", "échec", "réussite", "stratégie", "sauvegarde", "schéma",
    "numéro", "entrée", "sortie", "télémétrie", "qualité", "référence", "contrôle", "validé",
    "refusé", "créé", "supprimé", "mis-à-jour", "tâche", "bâtiment", "hôte", "coût", "goût",
    "août", "noël", "naïve", "maïs", "où", "là", "àpropos", "précédent", "prêt", "être", "forêt",
    "île", "dîner", "connaître", "boîte", "théâtre", "cœur", "señal", "ångström", "größe",
    "straße", "zürich", "über", "küche", "müller", "çà", "garçon", "leçon", "français",
];

/// Identifiers every project of this kind has (the benches' queries use some).
const IDENTIFIERS: &[&str] = &[
    "rate_limit",
    "auth-middleware",
    "session_store",
    "error_handler",
    "request_id",
    "retry-policy",
    "feature_flag",
    "cacheKey",
];

/// Consonant-vowel syllables for project jargon (service and product names).
#[rustfmt::skip]
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ra", "ven", "tor", "zi", "qua", "bel", "dor", "fen", "gal", "hex", "jun",
    "kor", "lux", "mar", "nob", "pyr", "quil", "rho", "sol", "tam", "ul", "vex", "wyn", "xan",
    "yor", "zen", "ax", "bri", "cel", "dra", "ek", "fo", "gri", "hal", "is", "jo", "kle",
];

#[rustfmt::skip]
const NUMBERS: &[&str] = &[
    "429", "40 000", "60 s", "5", "24 h", "3", "10 000", "500 ms", "99.9 %", "2 MiB", "v2", "/v1/",
    "30 days",
];
const TITLE_LINKS: &[&str] = &["for", "in", "on", "with", "of"];
const DECISION_STATUSES: &[&str] = &["active", "active", "active", "superseded", "proposed"];
const PATTERN_STATUSES: &[&str] = &["candidate", "candidate", "validated"];
const EXAMPLE_SITES: &[&str] = &["`POST /login`", "`GET /v2/orders`", "the import job"];
const TASK_LINKS: &[&str] = &[" in ", " for ", " around "];

#[rustfmt::skip]
const AGENTS: &[&str] = &[
    "atlas", "forge", "sentinel", "scribe", "pilot", "quill", "vega", "orion", "nova", "tern",
];
const CLIS: &[&str] = &[
    "claude-code",
    "gemini-cli",
    "codex",
    "cursor",
    "opencode",
    "aider",
];
const MODELS: &[&str] = &[
    "claude-sonnet-4-5",
    "claude-opus-4-1",
    "gemini-2.5-pro",
    "gpt-5-codex",
    "o4-mini",
];
const VERBS: &[&str] = &[
    "Implement",
    "Fix",
    "Refactor",
    "Add",
    "Document",
    "Investigate",
    "Review",
    "Migrate",
    "Remove",
    "Speed up",
    "Test",
    "Harden",
    "Draft",
    "Benchmark",
];

/// The words notes are made of, by kind; each list shuffled, drawn Zipf-like.
#[derive(Debug)]
pub struct Vocabulary {
    /// Plain English and technical words.
    english: Vec<String>,
    /// Code identifiers: `rate_limit`, `auth-middleware`, `sessionToken`.
    identifiers: Vec<String>,
    /// Accented (and a few non-French) words.
    accented: Vec<String>,
    /// Names of services, products, teams.
    jargon: Vec<String>,
}

/// Draw weights of the word kinds, in percent (the rest are stop words).
const STOP_PCT: usize = 33;
const ENGLISH_PCT: usize = 44;
const IDENTIFIER_PCT: usize = 12;
const ACCENTED_PCT: usize = 4;

impl Vocabulary {
    /// The vocabulary of a seed: the same seed gives the same words in the same order.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng::derive(seed, "vocabulary");
        let mut known: HashSet<String> = STOP.iter().map(|w| (*w).to_owned()).collect();
        let mut take = |words: &mut dyn Iterator<Item = String>, n: usize, rng: &mut Rng| {
            let mut out: Vec<String> = words.filter(|w| known.insert(w.clone())).take(n).collect();
            // Fisher–Yates, so the Zipf head is not alphabetical or list order.
            for i in (1..out.len()).rev() {
                out.swap(i, rng.below(i + 1));
            }
            out
        };
        let english = take(
            &mut BASE.iter().map(|w| (*w).to_owned()),
            usize::MAX,
            &mut rng,
        );
        let accented = take(
            &mut ACCENTED.iter().map(|w| (*w).to_owned()),
            usize::MAX,
            &mut rng,
        );
        let mut ident_rng = Rng::derive(seed, "identifiers");
        let identifiers = take(
            &mut IDENTIFIERS
                .iter()
                .map(|w| (*w).to_owned())
                .chain(std::iter::repeat_with(|| {
                    let a = ident_rng.pick(BASE);
                    let b = ident_rng.pick(BASE);
                    match ident_rng.below(6) {
                        0 | 1 => format!("{a}_{b}"),
                        2 | 3 => format!("{a}-{b}"),
                        4 => format!("{a}{}", capitalize(b)),
                        _ => format!("{a}_{b}_{}", ident_rng.pick(BASE)),
                    }
                })),
            1400,
            &mut rng,
        );
        let mut jargon_rng = Rng::derive(seed, "jargon");
        let jargon = take(
            &mut std::iter::repeat_with(|| {
                let n = jargon_rng.range(2, 4);
                (0..n)
                    .map(|_| jargon_rng.pick(SYLLABLES))
                    .collect::<String>()
            }),
            900,
            &mut rng,
        );
        Self {
            english,
            identifiers,
            accented,
            jargon,
        }
    }

    /// How many distinct surface words the vocabulary holds.
    #[must_use]
    pub fn len(&self) -> usize {
        STOP.len()
            + self.english.len()
            + self.identifiers.len()
            + self.accented.len()
            + self.jargon.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A word that is not a stop word, by the kinds' weights.
    fn content_word<'a>(&'a self, rng: &mut Rng) -> &'a str {
        let roll = rng.below(100 - STOP_PCT);
        let list = if roll < ENGLISH_PCT {
            &self.english
        } else if roll < ENGLISH_PCT + IDENTIFIER_PCT {
            &self.identifiers
        } else if roll < ENGLISH_PCT + IDENTIFIER_PCT + ACCENTED_PCT {
            &self.accented
        } else {
            &self.jargon
        };
        &list[rng.zipf(list.len())]
    }

    /// One word of running text: a stop word a third of the time; identifiers (words with
    /// `_`, `-` or an inner capital) often in backticks.
    fn word(&self, rng: &mut Rng, out: &mut String) {
        if rng.below(100) < STOP_PCT {
            out.push_str(rng.pick(STOP));
            return;
        }
        let w = self.content_word(rng);
        let is_ident = w.contains(['_', '-']) || w.chars().skip(1).any(char::is_uppercase);
        if is_ident && rng.chance(0.5) {
            out.push('`');
            out.push_str(w);
            out.push('`');
        } else {
            out.push_str(w);
        }
    }

    /// A sentence of 6–22 words, capitalized, with the odd number or comma, ending with `.`.
    pub fn sentence(&self, rng: &mut Rng, out: &mut String) {
        let n = rng.range(6, 22);
        let start = out.len();
        for i in 0..n {
            if i > 0 {
                out.push_str(if rng.chance(0.06) { ", " } else { " " });
            }
            if rng.chance(0.04) {
                out.push_str(rng.pick(NUMBERS));
            } else {
                self.word(rng, out);
            }
        }
        capitalize_at(out, start);
        out.push('.');
    }

    /// One to `max` sentences separated by spaces.
    fn sentences(&self, rng: &mut Rng, max: usize, out: &mut String) {
        for i in 0..rng.range(1, max) {
            if i > 0 {
                out.push(' ');
            }
            self.sentence(rng, out);
        }
    }

    /// A heading-like phrase of 3–7 content words.
    pub fn title(&self, rng: &mut Rng) -> String {
        let mut out = String::new();
        for i in 0..rng.range(3, 7) {
            if i > 0 {
                out.push(' ');
            }
            if i > 0 && rng.chance(0.2) {
                out.push_str(rng.pick(TITLE_LINKS));
                out.push(' ');
            }
            out.push_str(self.content_word(rng));
        }
        capitalize_at(&mut out, 0);
        out
    }
}

fn capitalize(word: &str) -> String {
    let mut out = word.to_owned();
    capitalize_at(&mut out, 0);
    out
}

/// Upper-cases the character at byte `at`.
fn capitalize_at(text: &mut String, at: usize) {
    if let Some(c) = text[at..].chars().next() {
        let upper: String = c.to_uppercase().collect();
        text.replace_range(at..at + c.len_utf8(), &upper);
    }
}

/// The three note files, in recall's search order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Decisions,
    Lessons,
    Patterns,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Decisions, Kind::Lessons, Kind::Patterns];

    #[must_use]
    pub fn file_name(self) -> &'static str {
        match self {
            Kind::Decisions => "decisions.md",
            Kind::Lessons => "lessons.md",
            Kind::Patterns => "patterns.md",
        }
    }

    fn preamble(self) -> &'static str {
        match self {
            Kind::Decisions => {
                "# Decisions\n\nArchitecture and product decisions, newest last. One entry per `###`\nheading; never delete an entry — mark it `superseded` and link its successor.\n\n"
            }
            Kind::Lessons => {
                "# Lessons\n\nWhat went wrong or surprisingly right, and what we do differently now. Dated, short, linked to\nthe decision they concern.\n\n"
            }
            Kind::Patterns => {
                "# Patterns\n\nReusable ways of working that proved themselves here. The `###` heading is the pattern id used\nby `bmad-mem reinforce --pattern`.\n\n"
            }
        }
    }
}

/// How much to generate: a number of entries, or a byte budget (never exceeded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    Entries(usize),
    Bytes(usize),
}

impl Amount {
    /// Expected entries, to spread dates over a fixed span.
    fn estimate(self, bytes_per_entry: usize) -> usize {
        match self {
            Amount::Entries(n) => n.max(1),
            Amount::Bytes(b) => (b / bytes_per_entry).max(1),
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
#[must_use]
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `(year, month, day)` of a day number.
#[must_use]
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// `toISOString` of epoch milliseconds.
#[must_use]
pub fn iso(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// A note file of `kind`: the preamble, then entries in the documented format until `amount`
/// is reached. Headings are unique within the file.
#[must_use]
pub fn note_file(vocab: &Vocabulary, seed: u64, label: &str, kind: Kind, amount: Amount) -> String {
    let mut rng = Rng::derive(seed, label);
    let mut out = String::from(kind.preamble());
    let mut headings = HashSet::new();
    let first_day = days_from_civil(2023, 1, 9);
    let span_days = 1380.0;
    #[allow(clippy::cast_precision_loss, reason = "entry counts are small")]
    let step = span_days / amount.estimate(900) as f64;
    let mut day = 0.0f64;
    let mut entry = String::new();
    let mut count = 0;
    loop {
        if let Amount::Entries(n) = amount
            && count == n
        {
            break;
        }
        entry.clear();
        let mut heading = vocab.title(&mut rng);
        if !headings.insert(heading.clone()) {
            heading = format!("{heading} ({count})");
            headings.insert(heading.clone());
        }
        day += step * 2.0 * rng.unit();
        #[allow(clippy::cast_possible_truncation, reason = "a few thousand days")]
        let (y, m, d) = civil_from_days(first_day + day as i64);
        entry.push_str("### ");
        entry.push_str(&heading);
        let _ = write!(entry, "\n**Date:** {y:04}-{m:02}-{d:02}\n");
        match kind {
            Kind::Decisions => {
                let status = rng.pick(DECISION_STATUSES);
                let _ = write!(entry, "**Status:** {status}\n**Context:** ");
                vocab.sentences(&mut rng, 3, &mut entry);
                entry.push_str("\n**Decision:** ");
                vocab.sentences(&mut rng, 2, &mut entry);
                entry.push_str("\n**Consequences:** ");
                vocab.sentences(&mut rng, 2, &mut entry);
            }
            Kind::Lessons => {
                entry.push_str("**Context:** ");
                vocab.sentences(&mut rng, 2, &mut entry);
                entry.push_str("\n**Lesson:** ");
                vocab.sentences(&mut rng, 3, &mut entry);
                if rng.chance(0.7) {
                    let related = vocab.title(&mut rng);
                    let _ = write!(entry, "\n**Related:** decision \"{related}\".");
                }
            }
            Kind::Patterns => {
                let status = rng.pick(PATTERN_STATUSES);
                let _ = write!(entry, "**Status:** {status}\n**Problem:** ");
                vocab.sentences(&mut rng, 2, &mut entry);
                entry.push_str("\n**Pattern:** ");
                vocab.sentences(&mut rng, 3, &mut entry);
                entry.push_str("\n**Example:** `");
                entry.push_str(vocab.content_word(&mut rng));
                entry.push_str("(key = ");
                entry.push_str(vocab.content_word(&mut rng));
                let _ = write!(entry, ", limit = {})` on ", rng.range(1, 500));
                entry.push_str(rng.pick(EXAMPLE_SITES));
                entry.push('.');
            }
        }
        entry.push_str("\n\n");
        if let Amount::Bytes(limit) = amount
            && out.len() + entry.len() > limit
        {
            break;
        }
        out.push_str(&entry);
        count += 1;
    }
    out
}

/// One journal line exactly as `bmad-mem write` appends it (without the `\n`).
#[must_use]
pub fn event_line(vocab: &Vocabulary, rng: &mut Rng, ts_ms: i64) -> String {
    let ts = iso(ts_ms);
    let agent = rng.pick(AGENTS);
    let task = if rng.chance(0.04) {
        String::new()
    } else {
        let mut task = String::from(rng.pick(VERBS));
        for _ in 0..rng.range(2, 6) {
            task.push(' ');
            vocab.word(rng, &mut task);
        }
        if rng.chance(0.4) {
            task.push_str(rng.pick(TASK_LINKS));
            task.push_str(vocab.content_word(rng));
        }
        task
    };
    let optional = |rng: &mut Rng, items: &[&'static str], p: f64| -> Value {
        if rng.chance(p) {
            Value::from(rng.pick(items))
        } else {
            Value::Null
        }
    };
    let cli = optional(rng, CLIS, 0.9);
    let model = optional(rng, MODELS, 0.8);
    let outcome = match rng.below(20) {
        0..=11 => Value::from("success"),
        12..=14 => Value::from("partial"),
        15..=17 => Value::from("failure"),
        18 => Value::from("abandoned"),
        _ => Value::Null,
    };
    let mut signals = Object::new();
    if rng.chance(0.5) {
        #[allow(clippy::cast_precision_loss, reason = "0..=100")]
        let eval = rng.range(0, 100) as f64 / 100.0;
        signals.insert("evalScore", eval);
    }
    if rng.chance(0.4) {
        signals.insert("acceptance", rng.chance(0.8));
    }
    if rng.chance(0.5) {
        signals.insert("ci", if rng.chance(0.85) { "pass" } else { "fail" });
    }
    let id = sha256_hex(format!("{ts}\u{0}{agent}\u{0}{task}").as_bytes())[..12].to_owned();
    let event = Object::new()
        .with("ts", ts)
        .with("agent", agent)
        .with("cli", cli)
        .with("model", model)
        .with("task", task)
        .with("outcome", outcome)
        .with("signals", signals)
        .with("artifactHashes", Vec::new())
        .with("id", id);
    Value::Object(event).compact()
}

/// A journal of increasing timestamps from 2026-01-01, spread over about 260 days (before the
/// benches' `BMAD_MEM_NOW` of 2026-10-18).
#[must_use]
pub fn journal(vocab: &Vocabulary, seed: u64, amount: Amount) -> String {
    let mut rng = Rng::derive(seed, "journal.ndjson");
    let start_ms = days_from_civil(2026, 1, 1) * 86_400_000;
    #[allow(clippy::cast_precision_loss, reason = "event counts are small")]
    let step_ms = 260.0 * 86_400_000.0 / amount.estimate(245) as f64;
    let mut ts = start_ms;
    let mut out = String::new();
    let mut count = 0;
    loop {
        if let Amount::Entries(n) = amount
            && count == n
        {
            break;
        }
        #[allow(
            clippy::cast_possible_truncation,
            reason = "steps are far below i64::MAX milliseconds"
        )]
        let step = (step_ms * 2.0 * rng.unit()) as i64;
        ts += step;
        let line = event_line(vocab, &mut rng, ts);
        if let Amount::Bytes(limit) = amount
            && out.len() + line.len() + 1 > limit
        {
            break;
        }
        out.push_str(&line);
        out.push('\n');
        count += 1;
    }
    out
}
