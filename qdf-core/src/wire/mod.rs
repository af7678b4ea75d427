//! Wire-level building blocks: tag constants, varints, the header, and on the decode side
//! the input cursor and the output budget. See `docs/SPEC.md`.

pub(crate) mod budget;
pub mod ext;
pub(crate) mod form;
pub mod header;
pub(crate) mod hex;
pub(crate) mod read;
pub mod tags;
pub mod varint;
