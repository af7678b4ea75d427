//! # qdf-core
//!
//! The qdf binary format for serde. See `docs/SPEC.md` for the normative wire.
//!
//! SKELETON: the public API below is fixed by the issues; bodies are being built.
#![deny(missing_docs)]

mod codec;
mod error;
mod options;
pub mod session;
pub mod wire;

pub use error::{Category, Error, ErrorCode, Result};
pub use options::{
    DEFAULT_MAX_DEPTH, DEFAULT_MAX_INTERN_BYTES, DEFAULT_MAX_INTERN_ENTRIES, DEFAULT_MAX_SHAPES,
    DEFAULT_MIN_INTERN, Features, Options,
};
pub use session::{DecoderSession, EncoderSession, FrameStatus};

use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned};

fn todo_err() -> Error {
    Error::new(ErrorCode::Unsupported("not built yet"))
}

/// Serializes `value` with the default (Balanced) options.
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    to_vec_with(value, Options::default())
}

/// Serializes `value` with `opts`.
pub fn to_vec_with<T: ?Sized + Serialize>(_value: &T, _opts: Options) -> Result<Vec<u8>> {
    Err(todo_err())
}

/// Serializes `value` into `writer` with the default options.
pub fn to_writer<W: std::io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    to_writer_with(writer, value, Options::default())
}

/// Serializes `value` into `writer` with `opts`.
pub fn to_writer_with<W: std::io::Write, T: ?Sized + Serialize>(
    _writer: W,
    _value: &T,
    _opts: Options,
) -> Result<()> {
    Err(todo_err())
}

/// Deserializes one message from `bytes`, borrowing strings where possible; trailing bytes are
/// an error.
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    from_slice_with(bytes, Options::default())
}

/// [`from_slice`] with decode limits from `opts`.
pub fn from_slice_with<'de, T: Deserialize<'de>>(_bytes: &'de [u8], _opts: Options) -> Result<T> {
    Err(todo_err())
}

/// Deserializes one message from the front of `bytes`, returning it and the rest.
pub fn take_from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<(T, &'de [u8])> {
    take_from_slice_with(bytes, Options::default())
}

/// [`take_from_slice`] with decode limits from `opts`.
pub fn take_from_slice_with<'de, T: Deserialize<'de>>(
    _bytes: &'de [u8],
    _opts: Options,
) -> Result<(T, &'de [u8])> {
    Err(todo_err())
}

/// Deserializes one message from `reader`.
pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    from_reader_with(reader, Options::default())
}

/// [`from_reader`] with decode limits from `opts`.
pub fn from_reader_with<R: std::io::Read, T: DeserializeOwned>(
    _reader: R,
    _opts: Options,
) -> Result<T> {
    Err(todo_err())
}
