//! The embedding index: `.bmad/cache/embeddings.bin`, the sentence vectors of the memory's
//! texts, derived, never merged, always rebuildable (docs/HYBRID.md §The index).
//!
//! One file, little-endian throughout:
//!
//! ```text
//! "BMADVEC1"                      8 bytes, the format
//! model digest                    32 bytes (SHA-256 naming the model and its inference)
//! width                           u32, the vectors' length
//! count                           u32
//! count × (text SHA-256, width × f32), sorted by digest, each digest once
//! SHA-256 of everything above     32 bytes
//! ```
//!
//! Reading is bounded and trusts nothing: at most [`INDEX_CAP`] bytes, read without following a
//! link; the size must be the one `count` and `width` give, the closing digest must match, the
//! digests must be strictly increasing and every vector finite and of unit length (within
//! 1e-3). Any failure is [`Read::Invalid`] with its reason — the caller rebuilds, never uses
//! part of it. A file of another model is [`Read::OtherModel`]. Writing replaces the file
//! atomically (temporary file, sync, rename). This module knows nothing of models or texts:
//! digests and vectors go in and out.

use std::ffi::OsStr;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::store::confined;
use crate::store::layout::{EMBEDDINGS, INDEX_CAP};

const MAGIC: &[u8; 8] = b"BMADVEC1";
const HEAD: usize = 8 + 32 + 4 + 4;
/// The widest vector accepted (all-MiniLM-L6-v2's are 384 wide).
const MAX_WIDTH: usize = 4096;

/// A SHA-256 digest.
pub type Key = [u8; 32];

/// Vectors by the digest of their text, all of one model and one width.
#[derive(Debug, Clone, PartialEq)]
pub struct Vectors {
    pub model: Key,
    pub width: usize,
    /// Sorted, each once.
    keys: Vec<Key>,
    /// `keys.len() × width` values, in the keys' order.
    values: Vec<f32>,
}

/// What reading the index found.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    Missing,
    /// Written for another model (or another width): to be rebuilt.
    OtherModel,
    /// Not an index this module wrote whole: why, to be rebuilt.
    Invalid(String),
    Read(Vectors),
}

impl Vectors {
    /// An empty index for `model`'s vectors of `width`.
    #[must_use]
    pub fn new(model: Key, width: usize) -> Self {
        Self {
            model,
            width,
            keys: Vec::new(),
            values: Vec::new(),
        }
    }

    /// How many vectors.
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The vector of the text whose digest is `key`.
    #[must_use]
    pub fn get(&self, key: &Key) -> Option<&[f32]> {
        let at = self.keys.binary_search(key).ok()?;
        Some(&self.values[at * self.width..(at + 1) * self.width])
    }

    /// Every digest and its vector, in digest order.
    pub fn entries(&self) -> impl Iterator<Item = (&Key, &[f32])> {
        self.keys.iter().zip(self.values.chunks_exact(self.width))
    }

    /// Builds an index of `entries` (a digest given twice keeps its first vector).
    ///
    /// # Panics
    /// When a vector is not `width` long (a caller's bug, never the file's).
    #[must_use]
    pub fn from_entries(model: Key, width: usize, mut entries: Vec<(Key, Vec<f32>)>) -> Self {
        entries.sort_by_key(|entry| entry.0);
        entries.dedup_by(|later, first| later.0 == first.0);
        let mut index = Self::new(model, width);
        for (key, vector) in entries {
            assert_eq!(vector.len(), width, "a vector of another width");
            index.keys.push(key);
            index.values.extend_from_slice(&vector);
        }
        index
    }

    /// The size of the index's file.
    #[must_use]
    pub fn file_len(&self) -> usize {
        HEAD + self.keys.len() * (32 + 4 * self.width) + 32
    }

    /// The index's bytes, in the format of the module docs.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.file_len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.model);
        for n in [self.width, self.keys.len()] {
            out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
        }
        for (key, vector) in self.keys.iter().zip(self.values.chunks_exact(self.width)) {
            out.extend_from_slice(key);
            for v in vector {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        let digest = Sha256::digest(&out);
        out.extend_from_slice(&digest);
        out
    }

    /// Reads an index written by [`Vectors::to_bytes`], for `model`.
    #[must_use]
    pub fn parse(bytes: &[u8], model: &Key) -> Read {
        let invalid = |why: &str| Read::Invalid(why.to_owned());
        if bytes.len() < HEAD + 32 || &bytes[..8] != MAGIC {
            return invalid("not an embedding index");
        }
        let (body, digest) = bytes.split_at(bytes.len() - 32);
        if Sha256::digest(body).as_slice() != digest {
            return invalid("its checksum does not match (a torn or altered file)");
        }
        if &bytes[8..40] != model {
            return Read::OtherModel;
        }
        let number = |at: usize| {
            let mut four = [0; 4];
            four.copy_from_slice(&bytes[at..at + 4]);
            u32::from_le_bytes(four) as usize
        };
        let (width, count) = (number(40), number(44));
        if width == 0 || width > MAX_WIDTH {
            return invalid("a vector width out of bounds");
        }
        let record = 32 + 4 * width;
        if count
            .checked_mul(record)
            .and_then(|n| n.checked_add(HEAD + 32))
            != Some(bytes.len())
        {
            return invalid("its size is not the one its header gives");
        }
        let mut index = Self::new(*model, width);
        index.keys.reserve(count);
        index.values.reserve(count * width);
        for chunk in body[HEAD..].chunks_exact(record) {
            let mut key = [0; 32];
            key.copy_from_slice(&chunk[..32]);
            if index.keys.last().is_some_and(|last| *last >= key) {
                return invalid("its digests are not in order");
            }
            index.keys.push(key);
            let start = index.values.len();
            index.values.extend(
                chunk[32..]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
            let vector = &index.values[start..];
            let norm: f32 = vector.iter().map(|v| v * v).sum();
            if !norm.is_finite() || (norm - 1.0).abs() > 1e-3 {
                return invalid("a vector is not of unit length");
            }
        }
        Read::Read(index)
    }
}

/// Reads the project's index, for `model`'s vectors. What cannot be read as an index — a link,
/// a folder or a special file in its place, a file over [`INDEX_CAP`] bytes, a read error — is
/// [`Read::Invalid`] with the reason: a cache is rebuilt, never a reason to fail.
#[must_use]
pub fn read(root: &Path, model: &Key) -> Read {
    let target = match confined::locate(root, EMBEDDINGS, false) {
        Ok(target) => target,
        Err(e) => return Read::Invalid(e.to_string()),
    };
    let Some(dir) = target.dir() else {
        return Read::Missing;
    };
    match dir.read_bounded(target.name(), INDEX_CAP) {
        Ok(Some(bytes)) => Vectors::parse(&bytes, model),
        Ok(None) => Read::Missing,
        Err(Error::SourceTooLarge(n)) => {
            Read::Invalid(format!("{n} bytes, over the {INDEX_CAP}-byte cap"))
        }
        Err(e) => Read::Invalid(e.to_string()),
    }
}

/// Replaces the project's index with `index` (creating `.bmad/cache/`).
///
/// # Errors
/// Confinement refusals, or a write error naming the file.
pub fn write(root: &Path, index: &Vectors) -> Result<()> {
    let target = confined::locate(root, EMBEDDINGS, true)?;
    let name: &OsStr = target.name();
    target
        .require_dir("cannot write")?
        .replace(name, &index.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u8, width: u8) -> Vec<f32> {
        let raw: Vec<f32> = (0..width).map(|i| f32::from(seed) + f32::from(i)).collect();
        let norm = raw.iter().map(|v| v * v).sum::<f32>().sqrt();
        raw.into_iter().map(|v| v / norm).collect()
    }

    fn sample() -> Vectors {
        Vectors::from_entries(
            [7; 32],
            3,
            vec![
                ([2; 32], unit(2, 3)),
                ([1; 32], unit(1, 3)),
                ([2; 32], unit(9, 3)),
            ],
        )
    }

    #[test]
    fn bytes_read_back_as_written() {
        let index = sample();
        assert_eq!(index.len(), 2);
        assert_eq!(index.file_len(), index.to_bytes().len());
        assert_eq!(index.get(&[2; 32]), Some(&unit(2, 3)[..]));
        assert_eq!(index.get(&[3; 32]), None);
        assert_eq!(
            Vectors::parse(&index.to_bytes(), &[7; 32]),
            Read::Read(index)
        );
    }

    #[test]
    fn a_foreign_or_damaged_file_is_never_used() {
        let bytes = sample().to_bytes();
        assert_eq!(Vectors::parse(&bytes, &[8; 32]), Read::OtherModel);
        let check = |bytes: &[u8], why: &str| match Vectors::parse(bytes, &[7; 32]) {
            Read::Invalid(reason) => assert!(reason.contains(why), "{reason}"),
            other => panic!("{other:?}"),
        };
        check(&bytes[..bytes.len() - 1], "checksum");
        check(b"", "not an embedding index");
        let mut flipped = bytes.clone();
        flipped[60] ^= 1;
        check(&flipped, "checksum");
        // A file whose checksum holds but whose content does not: rewritten with the digest.
        let reseal = |mut body: Vec<u8>| {
            body.truncate(body.len() - 32);
            let digest = Sha256::digest(&body);
            body.extend_from_slice(&digest);
            body
        };
        let mut wide = bytes.clone();
        wide[40] = 4;
        check(&reseal(wide), "size");
        let mut nan = bytes.clone();
        nan[HEAD + 32..HEAD + 36].copy_from_slice(&f32::NAN.to_le_bytes());
        check(&reseal(nan), "unit length");
        let mut unordered = bytes.clone();
        unordered[HEAD] = 9;
        check(&reseal(unordered), "order");
    }

    #[test]
    fn the_project_file_is_written_atomically_and_bounded_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(read(root, &[7; 32]), Read::Missing);
        write(root, &sample()).unwrap();
        assert_eq!(read(root, &[7; 32]), Read::Read(sample()));
        let file = root.join(EMBEDDINGS);
        std::fs::write(&file, b"junk").unwrap();
        assert!(matches!(read(root, &[7; 32]), Read::Invalid(_)));
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        assert!(matches!(read(root, &[7; 32]), Read::Invalid(_)));
        assert!(write(root, &sample()).is_err());
    }

    proptest::proptest! {
        /// Bytes from anywhere — a valid index with bytes changed or records exchanged (its
        /// checksum made right again or not), cut, or noise — never panic and are read as an index only when they
        /// are one: digests strictly increasing, vectors of unit length, and the index
        /// re-encodes to the very bytes read.
        #[test]
        fn any_bytes_are_an_index_or_refused(
            edits in proptest::collection::vec((0usize..180, proptest::num::u8::ANY), 0..4),
            cut in proptest::option::of(0usize..180),
            swap in proptest::bool::ANY,
            reseal in proptest::bool::ANY,
            noise in proptest::option::of(proptest::collection::vec(proptest::num::u8::ANY, 0..200)),
        ) {
            let mut bytes = noise.unwrap_or_else(|| sample().to_bytes());
            // The two records exchanged: digests out of order.
            let record = 32 + 4 * 3;
            if swap && bytes.len() >= HEAD + 2 * record {
                let (first, second) = bytes[HEAD..HEAD + 2 * record].split_at_mut(record);
                first.swap_with_slice(second);
            }
            for (at, byte) in edits {
                if let Some(b) = bytes.get_mut(at) {
                    *b = byte;
                }
            }
            if let Some(cut) = cut {
                bytes.truncate(cut);
            }
            if reseal && bytes.len() >= 32 {
                bytes.truncate(bytes.len() - 32);
                let digest = Sha256::digest(&bytes);
                bytes.extend_from_slice(&digest);
            }
            if let Read::Read(index) = Vectors::parse(&bytes, &[7; 32]) {
                let keys: Vec<&Key> = index.entries().map(|(key, _)| key).collect();
                proptest::prop_assert!(keys.windows(2).all(|w| w[0] < w[1]));
                for (_, vector) in index.entries() {
                    let norm: f32 = vector.iter().map(|v| v * v).sum();
                    proptest::prop_assert!((norm - 1.0).abs() <= 1e-3);
                }
                proptest::prop_assert_eq!(index.to_bytes(), bytes);
            }
        }
    }
}
