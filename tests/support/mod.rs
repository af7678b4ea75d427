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
