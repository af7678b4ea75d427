//! A dictionary's name on the wire: the first 8 bytes of the SHA-256 of its file
//! (`docs/SPEC.md` §25.1).

use std::fmt;

use sha2::{Digest, Sha256};

/// The id of a [`Dictionary`](crate::Dictionary): the first 8 bytes of the SHA-256 of its file
/// ([`Dictionary::to_bytes`](crate::Dictionary::to_bytes)), as written after a header with
/// flag `20` (`docs/SPEC.md` §25). Two dictionaries with the same entries in the same order
/// have the same id; any other difference changes it (a 64-bit hash: an accidental collision
/// among n dictionaries has probability about n² / 2⁶⁵).
///
/// Displays as 16 lowercase hex digits, and parses back from 16 hex digits of either case
/// (as the `qdf-dictionary` HTTP header and error texts carry it).
///
/// ```
/// let dict = qdf_core::Dictionary::from_strs(["service", "checkout"])?;
/// assert_eq!(dict.id().to_string().len(), 16);
/// assert_eq!(qdf_core::DictionaryId::from_bytes(dict.id().to_bytes()), dict.id());
/// assert_eq!(dict.id().to_string().parse::<qdf_core::DictionaryId>(), Ok(dict.id()));
/// assert!("0123".parse::<qdf_core::DictionaryId>().is_err());
/// # Ok::<(), qdf_core::Error>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DictionaryId([u8; 8]);

impl DictionaryId {
    /// The id whose 8 wire bytes are `bytes`.
    pub const fn from_bytes(bytes: [u8; 8]) -> Self {
        DictionaryId(bytes)
    }

    /// The 8 bytes written after the header.
    pub const fn to_bytes(self) -> [u8; 8] {
        self.0
    }

    /// The id of the dictionary file `file` (hashes it; does not check it).
    pub(crate) fn of_file(file: &[u8]) -> (Self, [u8; 32]) {
        let full: [u8; 32] = Sha256::digest(file).into();
        let id = full[..8].try_into().expect("8 of 32 bytes");
        (DictionaryId(id), full)
    }
}

impl fmt::Display for DictionaryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for DictionaryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DictionaryId({self})")
    }
}

impl std::str::FromStr for DictionaryId {
    type Err = ParseDictionaryIdError;

    /// 16 hex digits, either case (the [`Display`](fmt::Display) form).
    fn from_str(s: &str) -> Result<Self, ParseDictionaryIdError> {
        let b = s.as_bytes();
        if b.len() != 16 {
            return Err(ParseDictionaryIdError);
        }
        let mut id = [0u8; 8];
        for (out, pair) in id.iter_mut().zip(b.chunks_exact(2)) {
            let digit = |c: u8| (c as char).to_digit(16).ok_or(ParseDictionaryIdError);
            *out = (digit(pair[0])? << 4 | digit(pair[1])?) as u8;
        }
        Ok(DictionaryId(id))
    }
}

/// The error of parsing a [`DictionaryId`]: the text is not 16 hex digits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ParseDictionaryIdError;

impl fmt::Display for ParseDictionaryIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid dictionary id: expected 16 hex digits")
    }
}

impl std::error::Error for ParseDictionaryIdError {}
