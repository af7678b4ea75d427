//! QPack (`docs/SPEC.md` §19): a sequence of one primitive type written as one packed value
//! (codecs in [`crate::codec`]).
//!
//! - [`encode`]: buffering a sequence's elements while they may still be packed, and writing
//!   the packed value when it is strictly smaller than the plain array.

pub(crate) mod encode;
