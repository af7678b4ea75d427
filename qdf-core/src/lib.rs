// The crate page is the guide: a tutorial from one-shot messages to sessions, limits and errors.
#![doc = include_str!("guide.md")]
#![deny(missing_docs)]

// Parts of the codecs serve only the benches and fuzz targets, through `__qpack`.
#[cfg_attr(not(feature = "unstable"), allow(dead_code, unused_imports))]
pub(crate) mod codec;
mod columnar;
mod de;
mod dense;
mod dict;
mod error;
mod frame;
pub mod inspect;
mod options;
mod qpack;
mod refuse;
mod ser;
mod session;
mod short;
mod sink;
mod source;
mod sync_stream;
mod utf8;
mod value;
// The wire constants are public only with the `unstable` feature (benches, fuzz, tools).
#[cfg(feature = "unstable")]
#[doc(hidden)]
pub mod wire;
#[cfg(not(feature = "unstable"))]
#[allow(dead_code, unreachable_pub)]
mod wire;

/// The QPack codecs, for the benches and fuzz targets only (feature `unstable`): not a
/// stable API.
#[cfg(feature = "unstable")]
#[doc(hidden)]
pub mod __qpack {
    pub use crate::codec::*;
}

// The public API: everything a user names is re-exported here, at the root. A change to
// this block is a change to `tests/public_api.txt` (see `tests/public_api.rs`).
pub use de::Deserializer;
pub use dict::{
    DEFAULT_MAX_REGISTRY_BYTES, Dictionary, DictionaryId, DictionaryRegistry,
    ParseDictionaryIdError, REGISTRY_ID_BYTES, RegistryError,
};
pub use error::{Category, Error, ErrorCode, Result};
pub use options::{Features, Limits, Options};
pub use ser::{Compound, Serializer};
pub use session::{DecoderSession, EncoderSession, FrameDecode, FrameStatus, SessionStats};
pub use sync_stream::{StreamDecoder, StreamEncoder};
pub use value::{Value, Variant, VariantKind, from_value};

pub(crate) use ser::encode_body;

use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned};

use wire::header::{self, header_flags};

/// Converts `value` to a [`Value`], losslessly: `from_value::<T>(to_value(&t)?)` gives back
/// `t`, as `T → bytes → Value` does (the value is encoded with the Speed tier and decoded,
/// so the default [`Limits`] apply: nesting deeper than 128 is a `Limit`
/// error).
///
/// ```
/// use qdf_core::{Value, to_value};
/// let v = to_value(&("a", 3u8))?;
/// assert_eq!(v, Value::Array(vec![Value::from("a"), Value::from(3u8)]));
/// # Ok::<(), qdf_core::Error>(())
/// ```
pub fn to_value<T: ?Sized + Serialize>(value: &T) -> Result<Value> {
    let opts = Options::speed();
    from_slice_with(&to_vec_with(value, opts)?, opts)
}

// `Dictionary::train` lives here, not in `dict/`: it converts each sample with `to_value`,
// which the crate root defines, and `dict/` sits below the serializer and deserializer.
impl Dictionary {
    /// Trains a dictionary on `samples` for encoders with `opts` (their `min_intern`: shorter
    /// strings are never interned, so never looked up), within `budget` bytes of file and
    /// the file format's limits (65 535 entries, 16 MiB of entries, whatever the budget).
    ///
    /// Keeps the struct shapes (field-name lists) that one-shot messages of at least two
    /// samples declare under `opts` (none without `SHAPE_INTERN`), ranked by the bytes a
    /// reuse saves over a declaration, then the strings and byte strings (values, map keys,
    /// field and variant names) that appear in at least two samples, ranked by the bytes they
    /// save over all the samples as one-shot messages, most valuable first (they get the low
    /// ids), ties by content (`docs/SPEC.md` §25.4). Deterministic: the same samples, options
    /// and budget give the same file and id. Train on samples like the messages the
    /// dictionary will serve, but not the same ones. Costs one [`to_value`](crate::to_value)
    /// and one one-shot encoding per sample, and memory for every distinct string and shape
    /// of the samples.
    ///
    /// Errors: a sample that does not serialize (see [`to_value`](crate::to_value), and
    /// [`to_vec_with`](crate::to_vec_with) under `opts`).
    ///
    /// ```
    /// use qdf_core::{Dictionary, Options};
    ///
    /// let samples: Vec<(String, u32)> = (0..20).map(|i| (format!("svc-{}", i % 2), i)).collect();
    /// let dict = Dictionary::train(&samples, Options::balanced(), 4096)?;
    /// assert_eq!(dict.len(), 2);
    /// assert_eq!(Dictionary::train(&samples, Options::balanced(), 4096)?.id(), dict.id());
    /// # Ok::<(), qdf_core::Error>(())
    /// ```
    pub fn train<T: Serialize>(samples: &[T], opts: Options, budget: usize) -> Result<Dictionary> {
        let shapes = samples
            .iter()
            .map(|s| ser::declared_shapes(s, &opts))
            .collect::<Result<Vec<_>>>()?;
        Dictionary::train_values(samples.iter().map(to_value), &shapes, opts, budget)
    }
}

/// Serializes `value` with the default (Balanced) options: header, then body.
///
/// Errors: nesting deeper than the depth limit, decoded output above the limit a decoder
/// with the same options applies ([`ErrorCode::OutputLimit`], `docs/SPEC.md` §13; both
/// `Limit`), a length above `u32::MAX` or a custom error from a `Serialize` impl (`Data`).
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    to_vec_with(value, Options::default())
}

/// Serializes `value` with `opts`. The header's QPack flag (`02`, a hint) is set exactly when
/// the body holds a QPack tag. Whatever it returns decodes with [`from_slice_with`] under the
/// same `opts`: it refuses a value nested deeper than `opts` allows, or whose decoded output
/// is above `opts.limits.output_budget(body length)` ([`ErrorCode::OutputLimit`]).
///
/// Under the Dense tiers an element of a sequence may be serialized more than once: the
/// columnar encoder records a sequence's rows, and a row it cannot record (its
/// `Serialize` failed or went a way the recording does not take) is serialized again as a
/// plain element. A `Serialize` impl should therefore answer the same way each time; one
/// that fails only on its first call is then written as its later call serialized it.
pub fn to_vec_with<T: ?Sized + Serialize>(value: &T, opts: Options) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(128);
    to_vec_into(value, opts, &mut out)?;
    Ok(out)
}

/// Serializes `value` with `opts` and **appends** the message to `out`, like
/// `serde_json::to_writer(&mut vec, ..)` or `postcard::to_extend`: what `out` held before is
/// kept, and the bytes after it are exactly [`to_vec_with`]'s for the same `value` and
/// `opts`. Call `out.clear()` first to reuse one buffer for message after message: its
/// capacity is kept, so once it has grown to the largest message the encoder allocates no
/// output buffer again.
///
/// Errors: those of [`to_vec_with`]; `out` is then truncated back to the length it had on
/// entry (nothing of the failed message is left in it). An error's
/// [offset](Error::offset) counts from the start of `out`, not of the message.
///
/// ```
/// use qdf_core::Options;
///
/// let mut buf = Vec::new();
/// for n in 0..3u32 {
///     buf.clear();
///     qdf_core::to_vec_into(&(n, "svc"), Options::balanced(), &mut buf)?;
///     assert_eq!(buf, qdf_core::to_vec_with(&(n, "svc"), Options::balanced())?);
/// }
/// # Ok::<(), qdf_core::Error>(())
/// ```
pub fn to_vec_into<T: ?Sized + Serialize>(
    value: &T,
    opts: Options,
    out: &mut Vec<u8>,
) -> Result<()> {
    let at = out.len();
    out.extend_from_slice(&header::header(header_flags(&opts) & !header::FLAG_QPACK));
    // The header is in the buffer: set the QPack hint if the body wrote a codec tag.
    match encode_body(value, &opts, out) {
        Ok(flags) => {
            out[at + header::HEADER_LEN - 1] |= flags;
            Ok(())
        }
        Err(e) => {
            out.truncate(at);
            Err(e)
        }
    }
}

/// Serializes `value` with `opts`, starting from the pre-shared dictionary `dict`
/// (`docs/SPEC.md` §25): strings the dictionary holds are written as references to it
/// (`E1 id`, 2 bytes for its first 128 entries) instead of being defined. The header gets
/// flag `20` and is followed by the dictionary's 8-byte [id](Dictionary::id), so the message
/// is 8 bytes longer than [`to_vec_with`]'s before any saving; only
/// [`from_slice_with_dictionary`] with the same dictionary reads it. Such a message is
/// usually a small body, so its numbers are also predicted from the same field's last one
/// within the message (`docs/SPEC.md` §15.2, as a session's are): a batch of records in
/// the row form writes a steady timestamp as the 1-byte `F0`. [`to_vec_with`] keeps them
/// plain.
///
/// The Speed tier (no `DENSE` feature) writes no Dense tags, so it has no use for a
/// dictionary: its message is exactly [`to_vec_with`]'s, without flag `20` or id, and
/// decodes with or without the dictionary. Starting from the dictionary costs O(1) (its
/// table is shared, not copied). Errors: those of [`to_vec_with`].
pub fn to_vec_with_dictionary<T: ?Sized + Serialize>(
    value: &T,
    opts: Options,
    dict: &Dictionary,
) -> Result<Vec<u8>> {
    if !opts.has(Features::DENSE) {
        return to_vec_with(value, opts);
    }
    let mut out = Vec::with_capacity(128);
    let flags = header_flags(&opts) & !header::FLAG_QPACK | header::FLAG_DICT;
    out.extend_from_slice(&header::header(flags));
    out.extend_from_slice(&dict.id().to_bytes());
    let state = dense::DenseState::new_encoder(&opts)
        .on_base(dict.base())
        .with_num_slots();
    out[header::HEADER_LEN - 1] |= ser::encode_body_from(value, &opts, &mut out, state)?;
    Ok(out)
}

/// Deserializes one message that may name the pre-shared dictionary `dict`
/// (`docs/SPEC.md` §25), as written by [`to_vec_with_dictionary`]: its body starts from the
/// dictionary's entries. A message that names no dictionary (no header flag `20`, e.g. a
/// Speed one) is read as by [`from_slice_with`]. O(1) per message beyond the body's own
/// work: the dictionary's table is shared, not copied.
///
/// The dictionary's strings are not in `bytes`, so a borrowed target (`&'de str`,
/// `&'de [u8]`) cannot hold one: where the message refers to the dictionary it fails with
/// `TypeMismatch` (`Data`), though the same value without the dictionary borrows. Owned
/// targets (`String`, `Cow<str>`) read both.
///
/// Errors: those of [`from_slice_with`]; [`ErrorCode::UnknownDictionary`] (`Syntax`, at
/// offset 5, nothing decoded) when the message names another dictionary. A message naming a
/// dictionary given to [`from_slice`] fails the same way (it holds none).
pub fn from_slice_with_dictionary<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    opts: Options,
    dict: &Dictionary,
) -> Result<T> {
    let mut de = Deserializer::from_slice_with_dictionary(bytes, opts, dict)?;
    let v = T::deserialize(&mut de).map_err(|e| de.locate(e))?;
    de.end()?;
    Ok(v)
}

/// The dictionary a message or a stream names (header flag `20`, `docs/SPEC.md` §25), read
/// from the first 13 bytes of `bytes`: `None` for one that names none. For a server that
/// holds several dictionaries and picks one by id before decoding.
///
/// Errors: a header that is not qdf (`BadMagic`, `BadVersion`, `BadFlags`: `Syntax`);
/// `UnexpectedEof` for input shorter than the header, or than the id it announces.
pub fn dictionary_id(bytes: &[u8]) -> Result<Option<DictionaryId>> {
    let flags = header::read_header(bytes)?;
    Ok(header::read_dict_id(bytes, flags)?.map(DictionaryId::from_bytes))
}

/// Serializes `value` into `writer` with the default options. The message is built in memory
/// and written with one `write_all`.
///
/// Errors: those of [`to_vec`] (nothing is written then), and an [`ErrorCode::Io`] (category
/// `Io`, the `io::Error` kept as its [`source`](std::error::Error::source)) when `write_all`
/// fails, after which `writer` may hold part of the message.
pub fn to_writer<W: std::io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    to_writer_with(writer, value, Options::default())
}

/// Serializes `value` into `writer` with `opts` (buffered, then one `write_all`). The errors
/// of [`to_writer`], with the limits of `opts`.
pub fn to_writer_with<W: std::io::Write, T: ?Sized + Serialize>(
    mut writer: W,
    value: &T,
    opts: Options,
) -> Result<()> {
    let bytes = to_vec_with(value, opts)?;
    writer.write_all(&bytes)?;
    Ok(())
}

/// Deserializes one message from `bytes`, borrowing strings where possible.
///
/// Errors, each with the byte offset where it was detected ([`Error::offset`]): a header
/// that is not qdf (`BadMagic`, `BadVersion`, `BadFlags`: `Syntax`); a malformed body
/// (`BadTag`, `NonMinimal`, `BadCodec`, `UnknownStateId`, …: `Syntax`); input that ends early
/// (`UnexpectedEof`, `LengthOverrun`: `Eof`); a value that does not fit `T` (`TypeMismatch`,
/// serde's own messages: `Data`); a decode limit passed (`DepthLimit`, `OutputLimit`:
/// `Limit`, `docs/SPEC.md` §13); bytes left after the value ([`ErrorCode::TrailingBytes`]:
/// `Data`; [`take_from_slice`] reads a value and returns the rest instead). When `bytes` is
/// a whole stream (a stream header, then `uvarint(len)`-prefixed frames that fill it), the
/// error's text adds a hint to decode it with a [`DecoderSession`] or [`StreamDecoder`].
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    from_slice_with(bytes, Options::default())
}

/// [`from_slice`] with decode limits from `opts`.
pub fn from_slice_with<'de, T: Deserialize<'de>>(bytes: &'de [u8], opts: Options) -> Result<T> {
    message_from_slice(bytes, opts).map_err(|e| stream_hint(e, bytes))
}

fn message_from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8], opts: Options) -> Result<T> {
    let mut de = Deserializer::from_slice_with(bytes, opts)?;
    let v = T::deserialize(&mut de).map_err(|e| de.locate(e))?;
    de.end()?;
    Ok(v)
}

/// `e` with a hint when the input that failed as a message is a whole stream (the reverse
/// mistake is [`ErrorCode::NotAStream`]).
#[cold]
fn stream_hint(e: Error, bytes: &[u8]) -> Error {
    if frame::is_stream(bytes) {
        e.with_hint(
            "the input is a qdf stream, frames after the header: decode it with \
             `DecoderSession` or `StreamDecoder`",
        )
    } else {
        e
    }
}

/// Deserializes one message from the front of `bytes`, returning it and the rest: the bytes
/// after the message's body, unread (empty when the message filled `bytes`), where the next
/// message, or anything else, may start. The errors of [`from_slice`] except `TrailingBytes`.
///
/// ```
/// let mut buf = qdf_core::to_vec(&1u8)?;
/// buf.extend(qdf_core::to_vec(&"two")?);
/// let (one, rest): (u8, _) = qdf_core::take_from_slice(&buf)?;
/// let (two, rest): (&str, _) = qdf_core::take_from_slice(rest)?;
/// assert_eq!((one, two, rest.len()), (1, "two", 0));
/// # Ok::<(), qdf_core::Error>(())
/// ```
pub fn take_from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<(T, &'de [u8])> {
    take_from_slice_with(bytes, Options::default())
}

/// [`take_from_slice`] with decode limits from `opts`.
pub fn take_from_slice_with<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    opts: Options,
) -> Result<(T, &'de [u8])> {
    let mut de = Deserializer::from_slice_with(bytes, opts)?;
    let v = T::deserialize(&mut de).map_err(|e| de.locate(e))?;
    Ok((v, de.remaining_input()))
}

/// Deserializes one message from `reader`.
///
/// The reader is read to its end into memory, then decoded as by [`from_slice`]; strings are
/// copied out, so `T` owns its data. At most [`Limits::max_input`](Limits#structfield.max_input)
/// bytes are accepted (default 64 MiB): the reader is read for at most one byte more, and a
/// longer input fails with [`ErrorCode::InputTooLarge`] (`Limit`) without being decoded. Use
/// [`from_slice`] for borrowing, or a session for a stream of several messages.
pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    from_reader_with(reader, Options::default())
}

/// [`from_reader`] with decode limits (and the input limit) from `opts`.
pub fn from_reader_with<R: std::io::Read, T: DeserializeOwned>(
    mut reader: R,
    opts: Options,
) -> Result<T> {
    use std::io::Read as _;
    let max = opts.limits.max_input;
    let mut buf = Vec::new();
    (&mut reader)
        .take(max.saturating_add(1))
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(Error::new(ErrorCode::InputTooLarge {
            read: buf.len() as u64,
            max,
        }));
    }
    from_slice_with(&buf, opts)
}
