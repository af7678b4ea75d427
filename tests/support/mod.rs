//! Shared by `tests/sizes.rs`, the examples and the benches (included with `#[path]`): the qdf
//! tiers as [`Codec`]s next to the peers of `qdf_fixtures::peers`, and a `Visitor` helper.
#![allow(dead_code)] // each target uses a part

use qdf::Options;
use qdf_fixtures::Dataset;
use qdf_fixtures::peers::{Codec, peers};

/// The three qdf tiers, named `qdf speed`, `qdf balanced`, `qdf compression`.
pub fn qdf_tiers<D: Dataset>() -> [Codec<D>; 3] {
    [
        Codec {
            name: "qdf speed",
            encode: |v| Ok(qdf::to_vec_with(v, Options::speed())?),
            decode: |b| Ok(qdf::from_slice(b)?),
        },
        Codec {
            name: "qdf balanced",
            encode: |v| Ok(qdf::to_vec_with(v, Options::balanced())?),
            decode: |b| Ok(qdf::from_slice(b)?),
        },
        Codec {
            name: "qdf compression",
            encode: |v| Ok(qdf::to_vec_with(v, Options::compression())?),
            decode: |b| Ok(qdf::from_slice(b)?),
        },
    ]
}

/// Every peer, then the qdf tiers: the report's column order.
pub fn all_codecs<D: Dataset>() -> Vec<Codec<D>> {
    peers::<D>().into_iter().chain(qdf_tiers::<D>()).collect()
}

/// The peers of the core issue's Speed benchmark, then qdf speed.
pub fn speed_codecs<D: Dataset>() -> Vec<Codec<D>> {
    let wanted = ["serde_json", "rmp-serde", "postcard", "bitcode"];
    let peers = peers::<D>()
        .into_iter()
        .filter(|c| wanted.contains(&c.name));
    peers.chain(qdf_tiers::<D>().into_iter().take(1)).collect()
}

/// Bytes for `records` sent one per message, as in the streamed benchmark of docs/BENCH.md.
#[derive(Debug, PartialEq, Eq)]
pub struct StreamSizes {
    /// One `EncoderSession` (Balanced): stream header once, then `uvarint(len) ‖ body` frames.
    pub session: usize,
    /// The same with `MAP_SHAPE` on (map key-set shapes).
    pub session_map_shape: usize,
    /// Every record as its own one-shot Balanced message (`to_vec`, header included).
    pub one_shot: usize,
    /// All records as one Balanced message (the batch `Vec`).
    pub batch: usize,
    /// serde_json lines: each record's JSON plus `\n`.
    pub json_lines: usize,
}

/// Encodes `records` every way of [`StreamSizes`], checking the session frames decode back
/// to the exact records through one `DecoderSession`.
///
/// # Panics
/// If any encoding fails or a frame decodes differently.
pub fn stream_sizes<T>(records: &[T]) -> StreamSizes
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let session = |opts: Options| {
        let mut enc = qdf::EncoderSession::new(opts);
        let mut out = Vec::new();
        for r in records {
            enc.encode_frame(r, &mut out).expect("encodes");
        }
        let mut dec = qdf::DecoderSession::new(opts);
        let mut at = 0;
        for r in records {
            let (back, used): (T, usize) = dec.decode_frame(&out[at..]).unwrap().unwrap();
            assert_eq!(&back, r);
            at += used;
        }
        assert_eq!(at, out.len());
        out.len()
    };
    let map_shape =
        Options::balanced().features(Options::balanced().features.with(qdf::Features::MAP_SHAPE));
    StreamSizes {
        session: session(Options::balanced()),
        session_map_shape: session(map_shape),
        one_shot: records
            .iter()
            .map(|r| qdf::to_vec(r).expect("encodes").len())
            .sum(),
        batch: qdf::to_vec(records).expect("encodes").len(),
        json_lines: records
            .iter()
            .map(|r| serde_json::to_vec(r).expect("encodes").len() + 1)
            .sum(),
    }
}
