//! Wire-level building blocks: tag constants, varints, the header. See `docs/SPEC.md`.

pub mod ext;
pub(crate) mod form;
pub mod header;
pub mod tags;
pub mod varint;
