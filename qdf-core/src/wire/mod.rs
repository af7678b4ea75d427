//! Wire-level building blocks: tag constants, varints, the header. See `docs/SPEC.md`.

pub mod ext;
pub mod header;
pub mod tags;
pub mod varint;
