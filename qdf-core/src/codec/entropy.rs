//! Entropy-coded blocks, tag `FE` (`docs/SPEC.md` §21): the bytes of one
//! QPack value or one string block, tag included, coded with [`tans`](super::tans).
//!
//! ```text
//! FE tans        the tANS block's n decoded bytes are exactly one block, not itself FE
//! ```
//!
//! The Compression tier ([`Features::ENTROPY`](crate::Features::ENTROPY)) wraps a block
//! only when the wrapped form is strictly smaller (exact cost), and only in one-shot
//! messages: sessions and streams clear the feature.

use super::cursor::Cursor;
use super::tans;
use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags;

/// Blocks shorter than this are never wrapped: a tANS description alone is a few bytes, so
/// below it the exact cost would only reject them.
pub const MIN_BLOCK: usize = 24;

/// The `FE` form of `block` (a QPack value or a string block, tag first) when it is strictly
/// smaller than `block`, else `None`. The decoder charges `block.len()` bytes for it, on top
/// of what the inner block charges.
pub fn wrap(block: &[u8]) -> Option<Vec<u8>> {
    if block.len() < MIN_BLOCK || block[0] == tags::ENTROPY {
        return None;
    }
    let plan = tans::Plan::new(block);
    if 1 + plan.cost() >= block.len() {
        return None;
    }
    let mut out = Vec::with_capacity(1 + plan.cost());
    out.push(tags::ENTROPY);
    plan.encode(&mut out);
    Some(out)
}

/// Decodes the tANS block that follows an `FE` tag: `body` starts after the tag, whose
/// offset in the message is `base − 1`. Charges the decoded bytes to `budget` before
/// allocating. Returns the inner block's bytes (checked not to start with `FE`) and the bytes
/// of `body` used.
///
/// Errors: those of [`tans::decode`], at their byte; an empty inner block or one that starts
/// with `FE` is [`ErrorCode::BadCodec`] at the tag.
pub fn unwrap(body: &[u8], base: u64, budget: &mut u64) -> Result<(Vec<u8>, usize)> {
    let mut cur = Cursor::with_base(body, base);
    let inner = tans::decode(&mut cur, budget)?;
    match inner.first() {
        None => Err(tag_error(base, "an entropy-coded block holds no block")),
        Some(&tags::ENTROPY) => Err(tag_error(base, "an entropy-coded block inside another")),
        Some(_) => Ok((inner, cur.pos())),
    }
}

/// The error at the `FE` tag (offset `base − 1`).
#[cold]
fn tag_error(base: u64, what: &'static str) -> Error {
    Error::at(ErrorCode::BadCodec(what), base.saturating_sub(1))
}

/// Checks that the inner block used all `inner` bytes; an error from inside the decoded
/// bytes (whose offsets are not input offsets) is moved to the `FE` tag.
pub fn finish<T>(r: Result<(T, usize)>, inner: &[u8], base: u64) -> Result<T> {
    match r {
        Ok((v, used)) if used == inner.len() => Ok(v),
        Ok(_) => Err(tag_error(
            base,
            "an entropy-coded block has bytes after its block",
        )),
        Err(e) => Err(e.relocated(base.saturating_sub(1))),
    }
}

#[cfg(test)]
mod tests;
