//! The peer codecs qdf is measured against, behind one table of encode/decode functions so the
//! size report, the pinned-size test, the benches and the allocation report run the same code.
//!
//! | name | crate call |
//! |---|---|
//! | `serde_json` | `serde_json::to_vec` / `from_slice` |
//! | `rmp-serde` | `rmp_serde::to_vec_named` (field names, like qdf) / `from_slice` |
//! | `postcard` | `postcard::to_allocvec` / `from_bytes` |
//! | `bitcode` | `bitcode::encode` / `decode` (derive API, the smallest Rust peer) |
//! | `bitcode-serde` | `bitcode::serialize` / `deserialize` |
//! | `ciborium` | `ciborium::into_writer` / `from_reader` |
//! | `prost` | `Dataset::to_proto` then `Message::encode_to_vec` / `decode` then `from_proto` |

use prost::Message;

use crate::Dataset;

/// A boxed error from any peer.
pub type PeerError = Box<dyn std::error::Error + Send + Sync>;

/// One codec: a name and its encode/decode functions for dataset `D`.
pub struct Codec<D> {
    /// Column name in reports and bench ids.
    pub name: &'static str,
    /// Encodes a value.
    pub encode: fn(&D) -> Result<Vec<u8>, PeerError>,
    /// Decodes bytes produced by `encode`.
    pub decode: fn(&[u8]) -> Result<D, PeerError>,
}

impl<D> Clone for Codec<D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D> Copy for Codec<D> {}

impl<D: Dataset> Codec<D> {
    /// Encodes `value`, decodes the bytes and returns them if the result is bit-exactly
    /// `value` (see [`same_bits`]).
    ///
    /// # Errors
    /// The codec's error, or a message if the decoded value differs (a lossy peer).
    pub fn round_trip(&self, value: &D) -> Result<Vec<u8>, PeerError> {
        let bytes = (self.encode)(value)?;
        let back = (self.decode)(&bytes)?;
        if same_bits(&back, value) {
            Ok(bytes)
        } else {
            Err(format!("{}: decoded value differs from the input", self.name).into())
        }
    }
}

/// True if `a` and `b` are equal with floats compared by bits (`-0.0 ≠ 0.0`, NaN payloads
/// count): `==` and equal bitcode encodings, which store every float's exact bits.
pub fn same_bits<D: Dataset>(a: &D, b: &D) -> bool {
    a == b && bitcode::encode(a) == bitcode::encode(b)
}

/// Every peer for `D`, in report column order.
pub fn peers<D: Dataset>() -> [Codec<D>; 7] {
    [
        Codec {
            name: "serde_json",
            encode: |v| Ok(serde_json::to_vec(v)?),
            decode: |b| Ok(serde_json::from_slice(b)?),
        },
        Codec {
            name: "rmp-serde",
            encode: |v| Ok(rmp_serde::to_vec_named(v)?),
            decode: |b| Ok(rmp_serde::from_slice(b)?),
        },
        Codec {
            name: "postcard",
            encode: |v| Ok(postcard::to_allocvec(v)?),
            decode: |b| Ok(postcard::from_bytes(b)?),
        },
        Codec {
            name: "bitcode",
            encode: |v| Ok(bitcode::encode(v)),
            decode: |b| Ok(bitcode::decode(b)?),
        },
        Codec {
            name: "bitcode-serde",
            encode: |v| Ok(bitcode::serialize(v)?),
            decode: |b| Ok(bitcode::deserialize(b)?),
        },
        Codec {
            name: "ciborium",
            encode: cbor_encode,
            decode: |b| Ok(ciborium::from_reader(b)?),
        },
        Codec {
            name: "prost",
            encode: |v| Ok(v.to_proto().encode_to_vec()),
            decode: |b| Ok(D::from_proto(D::Proto::decode(b)?)),
        },
    ]
}

fn cbor_encode<D: Dataset>(value: &D) -> Result<Vec<u8>, PeerError> {
    let mut out = Vec::new();
    ciborium::into_writer(value, &mut out)?;
    Ok(out)
}
