//! The decoded-output limit of one message (`docs/SPEC.md` §13): materialised output (bytes
//! of strings, elements of containers, decoded QPack values) is charged against it.

use super::read::SliceRead;
use crate::error::{Error, ErrorCode, Result};

/// What a message may still materialise, and the configured limit.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    left: u64,
    limit: u64,
}

impl Budget {
    /// A budget of `limit` units.
    pub(crate) fn new(limit: u64) -> Self {
        Budget { left: limit, limit }
    }

    /// Charges `units`; the error is at `read`'s offset.
    #[inline]
    pub(crate) fn charge(&mut self, units: u64, read: &SliceRead<'_>) -> Result<()> {
        if units > self.left {
            return Err(self.over(units, read.offset()));
        }
        self.left -= units;
        Ok(())
    }

    /// Gives back `units` charged for output that will not be produced. Never more than was
    /// charged.
    #[inline]
    pub(crate) fn refund(&mut self, units: u64) {
        self.left = self.left.saturating_add(units).min(self.limit);
    }

    /// The units left, lent to a codec that charges as it decodes.
    #[inline]
    pub(crate) fn left_mut(&mut self) -> &mut u64 {
        &mut self.left
    }

    /// The [`ErrorCode::OutputLimit`] error at `at` for a charge of `units` that does not
    /// fit: the configured limit and what the message asked for so far.
    #[cold]
    pub(crate) fn over(&self, units: u64, at: u64) -> Error {
        Error::at(self.code(units), at)
    }

    #[cold]
    fn code(&self, units: u64) -> ErrorCode {
        let used = self.limit - self.left;
        ErrorCode::OutputLimit {
            needed: used.saturating_add(units),
            limit: self.limit,
        }
    }

    /// Rewrites an [`ErrorCode::OutputLimit`] raised by a codec that was lent
    /// [`left_mut`](Self::left_mut) (it reports the charge that failed against what
    /// remained) in terms of the whole message; an error with no offset gets `at`.
    #[cold]
    pub(crate) fn rebase(&self, e: Error, at: u64) -> Error {
        match *e.code() {
            ErrorCode::OutputLimit { needed, .. } => {
                Error::at(self.code(needed), e.offset().unwrap_or(at))
            }
            _ => e,
        }
    }
}
