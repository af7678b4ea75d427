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
/// Displays as 16 lowercase hex digits.
///
/// ```
/// let dict = qdf_core::Dictionary::from_strs(["service", "checkout"])?;
/// assert_eq!(dict.id().to_string().len(), 16);
/// assert_eq!(qdf_core::DictionaryId::from_bytes(dict.id().to_bytes()), dict.id());
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
