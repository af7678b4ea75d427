//! QPack (`docs/SPEC.md` §19): a sequence of one numeric or boolean kind written as one
//! packed value; the codecs live in [`crate::codec`], this folder holds the feature's halves.
//!
//! - [`encode`]: buffering a sequence's elements while they may still be packed, and writing
//!   the packed value when it is strictly smaller than the plain array.
//! - [`decode`]: reading a packed value back as the sequence it stands for.

pub(crate) mod decode;
pub(crate) mod encode;
