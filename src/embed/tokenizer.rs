//! The model's tokenizer: BERT's `WordPiece` as its `tokenizer.json` describes it, giving the same
//! ids as the reference implementation (Hugging Face `tokenizers`) — checked on every record of
//! the ADR corpus and on probe texts of every script (`fixtures/embed/`).
//!
//! The steps, in the reference's order (docs/HYBRID.md §Tokenizer):
//!
//! 1. **Special tokens** (`[CLS]`, `[SEP]`, `[UNK]`, `[PAD]`, `[MASK]`) written literally in the
//!    text are found first, on the raw text, and stand for their own id.
//! 2. **Normalization** of the rest: NUL, U+FFFD and control characters (categories Cc, Cf and
//!    Co, as the `unicode_categories` tables of the reference list them; tab, line feed and
//!    carriage return are whitespace) dropped, whitespace turned into a space, a space put
//!    around each CJK ideograph, then canonical decomposition with non-spacing marks (Mn)
//!    dropped — accents go — and each character lowercased on its own (so `Σ` is always `σ`).
//! 3. **Words**: split at whitespace; each punctuation character (ASCII punctuation, or a
//!    Unicode punctuation category) is a word of its own.
//! 4. **Word pieces**: a word of more than 100 characters is `[UNK]`; otherwise it is cut
//!    greedily into the longest pieces of the vocabulary from its start, the pieces after the
//!    first looked up with their `##` prefix; a word that cannot be cut whole is one `[UNK]`.
//! 5. `[CLS]` first and `[SEP]` last; a text of more pieces than the model takes keeps its
//!    first ones (the reference's truncation).
//!
//! Only this shape of `tokenizer.json` is accepted: another model type, normalizer,
//! pre-tokenizer or template is refused as another architecture rather than approximated.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};
use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

/// The pieces of a vocabulary, by text (a fast hash: 30,522 of them are read per recall).
type Pieces = std::collections::HashMap<Box<str>, u32, foldhash::fast::FixedState>;

/// `tokenizer.json` as read: the model's fields typed (its vocabulary is most of the file),
/// the rest as JSON values.
#[derive(serde::Deserialize)]
struct File<'a> {
    #[serde(borrow)]
    model: ModelFile<'a>,
    normalizer: Option<Value>,
    pre_tokenizer: Option<Value>,
    post_processor: Option<Value>,
    added_tokens: Option<Value>,
}

#[derive(serde::Deserialize)]
struct ModelFile<'a> {
    #[serde(rename = "type")]
    kind: Option<Cow<'a, str>>,
    unk_token: Option<Cow<'a, str>>,
    continuing_subword_prefix: Option<Cow<'a, str>>,
    max_input_chars_per_word: Option<u64>,
    vocab: Option<Vocabulary>,
}

/// A vocabulary, read straight into the two tables: pieces that start a word, and those that
/// continue one (without their `##`).
struct Vocabulary {
    starts: Pieces,
    continues: Pieces,
    max_id: u32,
}

impl<'de> serde::Deserialize<'de> for Vocabulary {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Vocabulary;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of word pieces and their ids")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vocabulary, A::Error> {
                let mut vocabulary = Vocabulary {
                    starts: Pieces::with_capacity_and_hasher(
                        map.size_hint().unwrap_or(32_768),
                        foldhash::fast::FixedState::default(),
                    ),
                    continues: Pieces::default(),
                    max_id: 0,
                };
                while let Some((piece, id)) = map.next_entry::<Cow<'de, str>, u32>()? {
                    vocabulary.max_id = vocabulary.max_id.max(id);
                    match piece.strip_prefix("##") {
                        Some(rest) if !rest.is_empty() => {
                            vocabulary.continues.insert(rest.into(), id);
                        }
                        _ => {
                            vocabulary.starts.insert(piece.as_ref().into(), id);
                        }
                    }
                }
                Ok(vocabulary)
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// A tokenizer.json this module cannot follow exactly, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// The vocabulary and the rules of one `tokenizer.json`.
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "the normalizer's four switches, as tokenizer.json names them"
)]
pub struct Tokenizer {
    /// Pieces that start a word.
    starts: Pieces,
    /// Pieces that continue a word, without their `##`.
    continues: Pieces,
    /// Special tokens matched on the raw text, with their ids.
    specials: Vec<(Box<str>, u32)>,
    /// The distinct first bytes of the special tokens.
    special_firsts: Vec<u8>,
    unknown: u32,
    first: u32,
    last: u32,
    max_word_chars: usize,
    lowercase: bool,
    strip_accents: bool,
    clean_text: bool,
    split_cjk: bool,
    /// The largest id, so that the model can check its vocabulary covers every id.
    max_id: u32,
}

fn unsupported(what: impl Into<String>) -> Unsupported {
    Unsupported(what.into())
}

fn string_at<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

fn flag(value: &Value, key: &str, default: bool) -> Result<bool, Unsupported> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(unsupported(format!("normalizer.{key} is not a boolean"))),
    }
}

impl Tokenizer {
    /// Reads a `tokenizer.json` of a BERT `WordPiece` tokenizer.
    ///
    /// # Errors
    /// Invalid JSON, or a tokenizer of another kind than the one described in the module docs.
    pub fn from_json(text: &str) -> Result<Self, Unsupported> {
        let file: File<'_> = serde_json::from_str(text)
            .map_err(|e| unsupported(format!("tokenizer.json is not valid JSON ({e})")))?;
        let mut root = Map::new();
        for (key, value) in [
            ("normalizer", file.normalizer),
            ("pre_tokenizer", file.pre_tokenizer),
            ("post_processor", file.post_processor),
            ("added_tokens", file.added_tokens),
        ] {
            if let Some(value) = value {
                root.insert(key.to_owned(), value);
            }
        }
        let root = Value::Object(root);
        let model = file.model;
        if model.kind.as_deref() != Some("WordPiece") {
            return Err(unsupported("the tokenizer is not WordPiece"));
        }
        if model.continuing_subword_prefix.as_deref() != Some("##") {
            return Err(unsupported("the word-piece prefix is not ##"));
        }
        let max_word_chars = model
            .max_input_chars_per_word
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| unsupported("max_input_chars_per_word is missing"))?;
        let Vocabulary {
            starts,
            continues,
            max_id,
        } = model
            .vocab
            .ok_or_else(|| unsupported("the vocabulary is missing"))?;
        let mut max_id = max_id;
        let id_of = |token: &str| {
            starts
                .get(token)
                .copied()
                .ok_or_else(|| unsupported(format!("the vocabulary has no {token}")))
        };
        let unk_token = model.unk_token.as_deref().unwrap_or("[UNK]");
        let unknown = id_of(unk_token)?;

        let normalizer = root
            .get("normalizer")
            .ok_or_else(|| unsupported("the tokenizer has no normalizer"))?;
        if string_at(normalizer, "type") != Some("BertNormalizer") {
            return Err(unsupported("the normalizer is not BertNormalizer"));
        }
        let lowercase = flag(normalizer, "lowercase", true)?;
        let strip_accents = flag(normalizer, "strip_accents", lowercase)?;
        let clean_text = flag(normalizer, "clean_text", true)?;
        let split_cjk = flag(normalizer, "handle_chinese_chars", true)?;
        let pre = root.get("pre_tokenizer").unwrap_or(&Value::Null);
        if string_at(pre, "type") != Some("BertPreTokenizer") {
            return Err(unsupported("the pre-tokenizer is not BertPreTokenizer"));
        }

        let (first, last) = template(root.get("post_processor").unwrap_or(&Value::Null))?;
        let (first, last) = (id_of(first)?, id_of(last)?);

        let mut specials = Vec::new();
        for added in root
            .get("added_tokens")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
        {
            let content = string_at(added, "content")
                .ok_or_else(|| unsupported("an added token has no content"))?;
            let id = added
                .get("id")
                .and_then(Value::as_u64)
                .and_then(|id| u32::try_from(id).ok())
                .ok_or_else(|| unsupported(format!("added token {content:?} has no id")))?;
            let plain = ["single_word", "lstrip", "rstrip", "normalized"]
                .iter()
                .all(|key| added.get(*key).and_then(Value::as_bool) != Some(true));
            if !plain || content.is_empty() {
                return Err(unsupported(format!(
                    "added token {content:?} is matched in a way this tokenizer does not follow"
                )));
            }
            max_id = max_id.max(id);
            specials.push((content.into(), id));
        }
        // The longest first, so that of two tokens starting at the same place the longer wins.
        specials.sort_by_key(|special: &(Box<str>, u32)| std::cmp::Reverse(special.0.len()));
        let mut special_firsts: Vec<u8> = specials.iter().map(|(t, _)| t.as_bytes()[0]).collect();
        special_firsts.sort_unstable();
        special_firsts.dedup();
        Ok(Self {
            starts,
            continues,
            specials,
            special_firsts,
            unknown,
            first,
            last,
            max_word_chars,
            lowercase,
            strip_accents,
            clean_text,
            split_cjk,
            max_id,
        })
    }

    /// The largest id this tokenizer gives.
    #[must_use]
    pub fn max_id(&self) -> u32 {
        self.max_id
    }

    /// The ids of `text`: `[CLS]`, its pieces, `[SEP]`; at most `max_tokens` of them (at least
    /// two), the text's first pieces kept. The text is read only as far as those pieces need.
    #[must_use]
    pub fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        // The ids before `[SEP]`: `[CLS]` and the pieces that fit.
        let limit = max_tokens.max(2) - 1;
        let mut ids = vec![self.first];
        let mut rest = text;
        while !rest.is_empty() && ids.len() < limit {
            let (plain, special) = self.next_special(rest);
            self.encode_plain(&rest[..plain], &mut ids, limit);
            let Some((len, id)) = special else { break };
            if ids.len() < limit {
                ids.push(id);
            }
            rest = &rest[plain + len..];
        }
        ids.truncate(limit);
        ids.push(self.last);
        ids
    }

    /// Where the first special token of `text` starts, and its length and id; `text`'s length
    /// and `None` when it holds none.
    fn next_special(&self, text: &str) -> (usize, Option<(usize, u32)>) {
        let bytes = text.as_bytes();
        let mut from = 0;
        while let Some(at) = self.next_opening(&bytes[from..]).map(|at| from + at) {
            for (token, id) in &self.specials {
                if bytes[at..].starts_with(token.as_bytes()) {
                    return (at, Some((token.len(), *id)));
                }
            }
            from = at + 1;
        }
        (text.len(), None)
    }

    /// The first place in `bytes` where a special token may start.
    fn next_opening(&self, bytes: &[u8]) -> Option<usize> {
        let firsts = &self.special_firsts;
        match firsts.as_slice() {
            [] => None,
            [a] => memchr::memchr(*a, bytes),
            [a, b] => memchr::memchr2(*a, *b, bytes),
            [a, b, c] => memchr::memchr3(*a, *b, *c, bytes),
            _ => bytes.iter().position(|b| firsts.contains(b)),
        }
    }

    /// Appends the pieces of `text` (no special token in it) to `ids` until it holds `limit`.
    fn encode_plain(&self, text: &str, ids: &mut Vec<u32>, limit: usize) {
        let mut word = String::new();
        // A word longer than the limit is `[UNK]` whatever its characters: one more is enough.
        let mut chars = 0;
        for c in self.normalized(text) {
            if c.is_whitespace() || c.is_ascii_punctuation() || c.is_punctuation() {
                self.push_word(&word, ids);
                word.clear();
                chars = 0;
                if !c.is_whitespace() {
                    let mut one = [0; 4];
                    self.push_word(c.encode_utf8(&mut one), ids);
                }
                if ids.len() >= limit {
                    return;
                }
            } else if chars <= self.max_word_chars {
                word.push(c);
                chars += 1;
            }
        }
        self.push_word(&word, ids);
    }

    /// Step 2 of the module docs, as the characters are needed.
    fn normalized<'t>(&'t self, text: &'t str) -> Box<dyn Iterator<Item = char> + 't> {
        let cleaned = text.chars().flat_map(move |c| {
            let mut out = [None; 3];
            if self.clean_text && (c == '\0' || c == '\u{fffd}' || is_control(c)) {
                // dropped
            } else if self.clean_text && c.is_whitespace() {
                out[0] = Some(' ');
            } else if self.split_cjk && is_cjk_ideograph(c) {
                out = [Some(' '), Some(c), Some(' ')];
            } else {
                out[0] = Some(c);
            }
            out.into_iter().flatten()
        });
        let stripped: Box<dyn Iterator<Item = char>> = if self.strip_accents {
            Box::new(cleaned.nfd().filter(|c| !c.is_mark_nonspacing()))
        } else {
            Box::new(cleaned)
        };
        if self.lowercase {
            Box::new(stripped.flat_map(char::to_lowercase))
        } else {
            stripped
        }
    }

    /// Step 4 of the module docs, for one word.
    fn push_word(&self, word: &str, ids: &mut Vec<u32>) {
        if word.is_empty() {
            return;
        }
        if word.chars().count() > self.max_word_chars {
            ids.push(self.unknown);
            return;
        }
        let before = ids.len();
        let mut start = 0;
        while start < word.len() {
            let table = if start == 0 {
                &self.starts
            } else {
                &self.continues
            };
            let mut end = word.len();
            let found = loop {
                if end <= start {
                    break None;
                }
                if let Some(&id) = table.get(&word[start..end]) {
                    break Some(id);
                }
                end = word[..end]
                    .char_indices()
                    .next_back()
                    .map_or(start, |(i, _)| i);
            };
            let Some(id) = found else {
                ids.truncate(before);
                ids.push(self.unknown);
                return;
            };
            ids.push(id);
            start = end;
        }
    }
}

/// The special tokens a single text is wrapped in: `[CLS] $A [SEP]` as a template, or BERT's
/// own processor.
fn template(post: &Value) -> Result<(&str, &str), Unsupported> {
    match string_at(post, "type") {
        Some("BertProcessing") => {
            let token = |key| {
                post.get(key)
                    .and_then(Value::as_array)
                    .and_then(|pair| pair.first())
                    .and_then(Value::as_str)
                    .ok_or_else(|| unsupported(format!("post_processor.{key} is missing")))
            };
            Ok((token("cls")?, token("sep")?))
        }
        Some("TemplateProcessing") => {
            fn special(item: &Value) -> Option<&str> {
                let special = item.get("SpecialToken")?;
                (special.get("type_id").and_then(Value::as_u64) == Some(0))
                    .then(|| string_at(special, "id"))
                    .flatten()
            }
            let single = post
                .get("single")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let is_text = |item: &Value| {
                item.get("Sequence")
                    .is_some_and(|s| string_at(s, "id") == Some("A"))
            };
            match single {
                [a, b, c] if is_text(b) => match (special(a), special(c)) {
                    (Some(first), Some(last)) => Ok((first, last)),
                    _ => Err(unsupported("the template is not [CLS] text [SEP]")),
                },
                _ => Err(unsupported("the template is not [CLS] text [SEP]")),
            }
        }
        _ => Err(unsupported("the post-processor is not BERT's")),
    }
}

/// The reference's control characters: categories Cc, Cf and Co, but not tab, LF or CR.
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// The CJK Unified Ideographs blocks and their extensions and compatibility forms, as BERT
/// lists them (Hangul, Hiragana and Katakana are not among them).
fn is_cjk_ideograph(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x2_0000..=0x2_A6DF
        | 0x2_A700..=0x2_B73F
        | 0x2_B740..=0x2_B81F
        | 0x2_B920..=0x2_CEAF
        | 0xF900..=0xFAFF
        | 0x2_F800..=0x2_FA1F)
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;

    fn tiny() -> Tokenizer {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/embed/tiny/tokenizer.json"
        );
        Tokenizer::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[derive(serde::Deserialize)]
    struct Golden {
        #[serde(rename = "maxTokens")]
        max_tokens: usize,
        texts: Vec<GoldenText>,
    }

    #[derive(serde::Deserialize)]
    struct GoldenText {
        text: String,
        ids: Vec<u32>,
    }

    #[test]
    fn ids_are_the_reference_tokenizers_on_the_probes() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/embed/tiny-golden.json"
        );
        let golden: Golden = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let tokenizer = tiny();
        for probe in &golden.texts {
            assert_eq!(
                tokenizer.encode(&probe.text, usize::MAX),
                probe.ids,
                "{:?}",
                probe.text
            );
            let cut = tokenizer.encode(&probe.text, golden.max_tokens);
            assert!(cut.len() <= golden.max_tokens);
            let n = cut.len() - 1;
            assert_eq!(cut[..n], probe.ids[..n], "{:?}", probe.text);
            assert_eq!(cut[n], tokenizer.last);
        }
    }

    /// Every `###` section of the ADR corpus, as recall cuts them: (text, digest of its text).
    fn corpus() -> Vec<String> {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/data/adr/corpus/.agents/memory"
        );
        let mut texts = Vec::new();
        for name in crate::store::layout::NOTE_FILES {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
            texts.extend(
                crate::store::sections::sections(&text)
                    .iter()
                    .map(crate::store::sections::Section::trimmed_text),
            );
        }
        texts
    }

    fn short_digest(bytes: &[u8]) -> String {
        use sha2::Digest;
        use std::fmt::Write as _;
        let digest = sha2::Sha256::digest(bytes);
        digest[..8].iter().fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
    }

    /// The tokenizer's ids of every corpus record against the reference's (`generate.py`).
    pub(crate) fn check_corpus_ids(tokenizer: &Tokenizer, golden: &str) {
        #[derive(serde::Deserialize)]
        struct Ids {
            texts: usize,
            records: Vec<(String, usize, String)>,
        }
        let golden: Ids = serde_json::from_str(golden).unwrap();
        let expected: std::collections::HashMap<&str, (usize, &str)> = golden
            .records
            .iter()
            .map(|(text, n, ids)| (text.as_str(), (*n, ids.as_str())))
            .collect();
        let texts = corpus();
        assert_eq!(texts.len(), golden.texts);
        for text in &texts {
            let ids = tokenizer.encode(text, usize::MAX);
            let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
            let key = short_digest(text.as_bytes());
            let want = expected.get(key.as_str()).copied();
            assert_eq!(
                Some((ids.len(), short_digest(&bytes).as_str())),
                want,
                "{}",
                &text[..text.len().min(80)]
            );
        }
    }

    #[test]
    fn ids_are_the_reference_tokenizers_on_the_whole_corpus() {
        let golden = include_str!("../../fixtures/embed/tiny-corpus-ids.json");
        check_corpus_ids(&tiny(), golden);
    }

    #[test]
    #[ignore = "needs the real model's files: BMAD_MEM_REAL_MODEL=<folder> (.ci/run sets it)"]
    fn real_ids_are_the_reference_tokenizers_on_the_whole_corpus() {
        let dir = std::env::var("BMAD_MEM_REAL_MODEL").expect("BMAD_MEM_REAL_MODEL");
        let json = std::fs::read_to_string(format!("{dir}/tokenizer.json")).unwrap();
        let golden = include_str!("../../fixtures/embed/minilm-corpus-ids.json");
        check_corpus_ids(&Tokenizer::from_json(&json).unwrap(), golden);
    }

    #[test]
    fn truncation_keeps_the_first_pieces_and_the_closing_token() {
        let t = tiny();
        let whole = t.encode("a man is eating food [SEP] a piece of bread", usize::MAX);
        for max in 0..whole.len() + 2 {
            let cut = t.encode("a man is eating food [SEP] a piece of bread", max);
            let keep = max.max(2).min(whole.len());
            assert_eq!(cut.len(), keep, "{max}");
            assert_eq!(cut[..keep - 1], whole[..keep - 1]);
            assert_eq!(cut[keep - 1], t.last);
        }
    }

    #[test]
    fn other_tokenizers_are_refused() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/embed/tiny/tokenizer.json"
        ))
        .unwrap();
        for (from, to, why) in [
            ("\"WordPiece\"", "\"BPE\"", "not WordPiece"),
            ("\"BertNormalizer\"", "\"Lowercase\"", "not BertNormalizer"),
            (
                "\"BertPreTokenizer\"",
                "\"Whitespace\"",
                "not BertPreTokenizer",
            ),
            (
                "\"TemplateProcessing\"",
                "\"RobertaProcessing\"",
                "not BERT's",
            ),
        ] {
            // The last occurrence: the decoder names WordPiece too, before the model.
            let at = text.rfind(from).unwrap();
            let changed = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
            let err = Tokenizer::from_json(&changed).err().map(|e| e.0);
            assert!(err.as_deref().is_some_and(|e| e.contains(why)), "{err:?}");
        }
        assert!(
            Tokenizer::from_json("{")
                .unwrap_err()
                .0
                .contains("not valid JSON")
        );
        assert!(Tokenizer::from_json("[]").is_err());
        let no_unknown = text.replace("\"unk_token\": \"[UNK]\"", "\"unk_token\": \"[NONE]\"");
        assert!(Tokenizer::from_json(&no_unknown).is_err());
    }

    proptest::proptest! {
        /// Any text, any budget: `[CLS]` first, `[SEP]` last, within the budget, every id in
        /// the vocabulary, and a cut text's pieces the first pieces of the whole — special
        /// tokens, accents, CJK, controls and overlong words included.
        #[test]
        fn any_text_gives_bounded_ids_whose_cut_is_a_prefix(
            text in "(\\[CLS\\]|\\[SEP\\]|\\[|##|[a-z]{1,12}|é|İ|Σ|東京|\\u{0}|\\u{200b}|\\u{fffd}|[\\p{Cyrillic}\\p{Han}\\p{Arabic}]|\\PC|\\s|[.,!?]){0,80}",
            max in 0usize..40,
        ) {
            static TINY: std::sync::LazyLock<Tokenizer> = std::sync::LazyLock::new(tiny);
            let t = &*TINY;
            let whole = t.encode(&text, usize::MAX);
            let cut = t.encode(&text, max);
            proptest::prop_assert!(cut.len() >= 2 && cut.len() <= max.max(2));
            proptest::prop_assert_eq!(cut[0], t.first);
            proptest::prop_assert_eq!(*cut.last().unwrap(), t.last);
            proptest::prop_assert!(whole.iter().all(|&id| id <= t.max_id()));
            let n = cut.len() - 1;
            proptest::prop_assert_eq!(&cut[..n], &whole[..n]);
            proptest::prop_assert_eq!(cut.len(), max.max(2).min(whole.len()));
        }
    }
}
