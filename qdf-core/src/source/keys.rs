//! The error of a repeated key under [`Options::deny_duplicate_keys`](crate::Options): raised
//! by map targets (`de`'s key check) and by a columnar declaration that names a column twice.

use crate::error::{Error, ErrorCode};

/// The error for a repeated key (`key`: its text, when it is a string or an integer).
#[cold]
pub(crate) fn repeated(key: Option<String>, at: u64) -> Error {
    Error::at(
        ErrorCode::TypeMismatch {
            expected: "a map with unique keys (deny_duplicate_keys)".into(),
            found: match key {
                Some(k) => format!("the key {k} a second time").into(),
                None => "a key equal to an earlier key of the map".into(),
            },
        },
        at,
    )
}

/// A string key as the error shows it: quoted, cut after 64 characters.
pub(crate) fn quote(body: &[u8]) -> String {
    let s = String::from_utf8_lossy(body);
    let cut: String = s.chars().take(64).collect();
    let more = if cut.len() < s.len() { "…" } else { "" };
    format!("{cut:?}{more}")
}

/// The error for a columnar declaration naming a column twice: each row would be a map with
/// a repeated key.
#[cold]
pub(crate) fn repeated_column(name: &str, at: u64) -> Error {
    repeated(Some(quote(name.as_bytes())), at)
}
