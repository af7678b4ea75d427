//! [`StrColumn`]: a decoded string column that borrows from the input where it can.
//!
//! Blocks whose values are contiguous in the input (F5 dictionary, F8 slab, F9 constant)
//! borrow: each row is a span of the block. Blocks that rebuild bytes (FA front coding,
//! FB alphabet, F6 FSST) write every value once into one arena. Rows are then spans of that
//! store, shared by every row that repeats a value (dictionary index, constant), so decoding
//! costs one allocation per column, not one per value.

use std::ops::Range;

use crate::error::{Error, ErrorCode, Result};

/// A byte range `[start, end)` of a column's store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// A span; both ends are below 4 GiB because block views are capped there.
    pub(super) fn new(start: usize, end: usize) -> Span {
        debug_assert!(start <= end && end <= u32::MAX as usize);
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The span as a `usize` range.
    pub(super) fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Its length in bytes.
    pub(super) fn len(self) -> usize {
        (self.end - self.start) as usize
    }
}

/// Where a column's bytes live.
pub(super) enum Store<'a> {
    /// In the input: rows can be handed to serde as borrowed strings.
    Input(&'a [u8]),
    /// Rebuilt by the decoder.
    Arena(Vec<u8>),
}

/// How rows map onto the store.
pub(super) enum Rows {
    /// `n` copies of one value (F9).
    Repeat {
        /// The value.
        span: Span,
        /// Row count.
        n: usize,
    },
    /// Row `i` is `store[i·len .. (i+1)·len]` (FB with the fixed-length flag).
    Fixed {
        /// Bytes per row.
        len: usize,
        /// Row count.
        n: usize,
    },
    /// Row `i` is `table[index[i]]` (dictionaries: at most 256 entries, so one byte a row).
    Dict {
        /// The distinct values.
        table: Vec<Span>,
        /// One table position per row, each checked `< table.len()`.
        index: Vec<u8>,
    },
    /// One span per row (F8, FB with lengths, F6).
    Each(Vec<Span>),
}

/// A decoded string column: `len()` rows of bytes. Values are bytes, not checked UTF-8:
/// a `str` column calls [`StrColumn::check_utf8`] once (it checks each distinct value once),
/// after which [`row_text`](StrColumn::row_text) hands out rows as `str` without checking
/// them again.
pub(crate) struct StrColumn<'a> {
    store: Store<'a>,
    rows: Rows,
    /// Set by a successful [`StrColumn::check_utf8`]: every row is UTF-8. The store and the
    /// rows never change after construction, so it stays true.
    utf8: bool,
}

impl<'a> StrColumn<'a> {
    pub(super) fn new(store: Store<'a>, rows: Rows) -> Self {
        StrColumn {
            store,
            rows,
            utf8: false,
        }
    }

    /// The same column owning its bytes (a block decoded from an entropy-coded block's
    /// bytes, which do not outlive the decoder).
    pub(super) fn into_owned<'b>(self) -> StrColumn<'b> {
        let store = match self.store {
            Store::Input(b) => Store::Arena(b.to_vec()),
            Store::Arena(v) => Store::Arena(v),
        };
        StrColumn {
            store,
            rows: self.rows,
            utf8: self.utf8,
        }
    }

    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        match &self.rows {
            Rows::Repeat { n, .. } | Rows::Fixed { n, .. } => *n,
            Rows::Dict { index, .. } => index.len(),
            Rows::Each(spans) => spans.len(),
        }
    }

    #[cfg(test)]
    fn span(&self, i: usize) -> Option<Range<usize>> {
        match &self.rows {
            Rows::Repeat { span, n } => (i < *n).then(|| span.range()),
            Rows::Fixed { len, n } => (i < *n).then(|| i * len..(i + 1) * len),
            Rows::Dict { table, index } => index.get(i).map(|&k| table[k as usize].range()),
            Rows::Each(spans) => spans.get(i).map(|s| s.range()),
        }
    }

    fn store(&self) -> &[u8] {
        match &self.store {
            Store::Input(b) => b,
            Store::Arena(v) => v,
        }
    }

    #[cfg(test)]
    /// Row `i`, or `None` past the end.
    pub(crate) fn get(&self, i: usize) -> Option<&[u8]> {
        let r = self.span(i)?;
        Some(&self.store()[r])
    }

    #[cfg(test)]
    /// Row `i` with the input's lifetime, when the block stores it contiguously in the input
    /// (F5, F8, F9); `None` for rebuilt values or past the end.
    pub(crate) fn borrowed(&self, i: usize) -> Option<&'a [u8]> {
        match self.store {
            Store::Input(b) => self.span(i).map(|r| &b[r]),
            Store::Arena(_) => None,
        }
    }

    /// The rows in order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }

    #[cfg(test)]
    /// Row `i` as `str`; `None` past the end or when [`check_utf8`](Self::check_utf8) has
    /// not succeeded.
    pub(crate) fn text(&self, i: usize) -> Option<&str> {
        let bytes = self.get(i).filter(|_| self.utf8)?;
        // SAFETY: `utf8` is set only by `check_utf8`, which validated every row's span of
        // the store; neither the store nor the spans change afterwards.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    #[cfg(test)]
    /// Row `i` as `str` with the input's lifetime, as [`borrowed`](Self::borrowed) gives it
    /// (F5, F8, F9); `None` for rebuilt values, past the end, or before a successful
    /// [`check_utf8`](Self::check_utf8).
    pub(crate) fn borrowed_text(&self, i: usize) -> Option<&'a str> {
        let bytes = self.borrowed(i).filter(|_| self.utf8)?;
        // SAFETY: as in `text`: this row's span was validated by `check_utf8`.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    /// Checks that every row is UTF-8, visiting each distinct stored value once; on success
    /// [`row_text`](Self::row_text) hands out rows.
    ///
    /// Errors: [`ErrorCode::InvalidUtf8`] (no offset: the bytes may be rebuilt).
    pub(crate) fn check_utf8(&mut self) -> Result<()> {
        let store = self.store();
        let ok = |r: Range<usize>| crate::utf8::utf8(&store[r]).is_ok();
        // Where every row is checked, one pass over an ASCII store (rebuilt ids, names)
        // covers them all: every span of ASCII bytes is UTF-8.
        let per_row = matches!(self.rows, Rows::Fixed { .. } | Rows::Each(_));
        let all = (per_row && store.is_ascii())
            || match &self.rows {
                Rows::Repeat { span, .. } => ok(span.range()),
                Rows::Fixed { len, n } => (0..*n).all(|i| ok(i * len..(i + 1) * len)),
                Rows::Dict { table, .. } => table.iter().all(|s| ok(s.range())),
                Rows::Each(spans) => spans.iter().all(|s| ok(s.range())),
            };
        self.utf8 = all;
        if all {
            Ok(())
        } else {
            Err(Error::new(ErrorCode::InvalidUtf8))
        }
    }

    /// The column for reads by row number (the columnar reader's cells): checks it with
    /// [`check_utf8`](Self::check_utf8), then keeps a span per row, or a dictionary's table
    /// and index (one byte a row), so that a read is one match and one or two loads.
    ///
    /// Errors: [`ErrorCode::InvalidUtf8`] (no offset: the bytes may be rebuilt).
    pub(crate) fn into_checked(mut self) -> Result<CheckedStrs<'a>> {
        self.check_utf8()?;
        let rows = match self.rows {
            Rows::Each(spans) => FlatRows::Each(spans),
            Rows::Dict { table, index } => FlatRows::Dict { table, index },
            // A constant is a one-entry dictionary: a byte a row.
            Rows::Repeat { span, n } => FlatRows::Dict {
                table: vec![span],
                index: vec![0; n],
            },
            Rows::Fixed { len, n } => {
                FlatRows::Each((0..n).map(|i| Span::new(i * len, (i + 1) * len)).collect())
            }
        };
        Ok(CheckedStrs {
            store: self.store,
            rows,
        })
    }
}

/// [`CheckedStrs`]' rows.
enum FlatRows {
    /// A span per row.
    Each(Vec<Span>),
    /// Row `i` is `table[index[i]]`.
    Dict { table: Vec<Span>, index: Vec<u8> },
}

/// A string column whose every row was checked as UTF-8 ([`StrColumn::into_checked`]).
pub(crate) struct CheckedStrs<'a> {
    store: Store<'a>,
    rows: FlatRows,
}

impl CheckedStrs<'_> {
    /// A column whose text the decoder printed (the number-text columns of
    /// `docs/SPEC.md` §22.1): row `i` is the next `lens[i]` bytes of `store`.
    ///
    /// Errors: [`ErrorCode::BadCodec`] when the lengths run past `store` or `store` is 4 GiB
    /// or more (spans are 32-bit); [`ErrorCode::InvalidUtf8`] (no offset) when a row is not
    /// UTF-8.
    pub(crate) fn rebuilt(store: Vec<u8>, lens: impl Iterator<Item = usize>) -> Result<Self> {
        let too_long = || Error::new(ErrorCode::BadCodec("rebuilt text past its store"));
        if u32::try_from(store.len()).is_err() {
            return Err(too_long());
        }
        let mut spans = Vec::with_capacity(lens.size_hint().0);
        let mut start = 0usize;
        for len in lens {
            let end = start
                .checked_add(len)
                .filter(|&e| e <= store.len())
                .ok_or_else(too_long)?;
            spans.push(Span::new(start, end));
            start = end;
        }
        StrColumn::new(Store::Arena(store), Rows::Each(spans)).into_checked()
    }
}

impl<'a> CheckedStrs<'a> {
    /// The column whose row `k` is this column's row `slots[k]` (a map column's keys
    /// repeated from its key sets, `docs/SPEC.md` §22.2); `None` when a slot is past the
    /// rows. The store is kept, so the rows stay checked.
    pub(crate) fn gathered(self, slots: &[u32]) -> Option<Self> {
        let rows = match self.rows {
            FlatRows::Each(spans) => FlatRows::Each(
                slots
                    .iter()
                    .map(|&k| spans.get(k as usize).copied())
                    .collect::<Option<_>>()?,
            ),
            FlatRows::Dict { table, index } => FlatRows::Dict {
                index: slots
                    .iter()
                    .map(|&k| index.get(k as usize).copied())
                    .collect::<Option<_>>()?,
                table,
            },
        };
        Some(CheckedStrs {
            store: self.store,
            rows,
        })
    }

    /// Row `i`: `Ok` with the input's lifetime where the block keeps it in the input (F5,
    /// F8, F9), `Err` from the decoder's store otherwise; `None` past the end.
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> Option<std::result::Result<&'a str, &str>> {
        let span = match &self.rows {
            FlatRows::Each(spans) => *spans.get(i)?,
            FlatRows::Dict { table, index } => *table.get(*index.get(i)? as usize)?,
        };
        Some(match &self.store {
            // SAFETY: `into_checked` built this value only after `check_utf8` validated
            // every row's span of the store (a dictionary's every table entry); the spans
            // above are those rows' spans, and the store does not change.
            Store::Input(b) => Ok(unsafe { std::str::from_utf8_unchecked(b.get(span.range())?) }),
            // SAFETY: as above.
            Store::Arena(v) => Err(unsafe { std::str::from_utf8_unchecked(v.get(span.range())?) }),
        })
    }
}
