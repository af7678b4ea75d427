//! Byte-level forms: the smallest integer width, length headers, strings and byte strings
//! (`docs/SPEC.md` §3, §6, §7). Each function picks the one form
//! the strict decoder accepts.

use super::Sink;
use crate::error::{Error, Result};
use crate::short::{SHORT, as_uninit, copy_short};
use crate::wire::tags::*;
use crate::wire::{ext, varint};

pub(crate) use crate::wire::form::{Form, Header, HeaderBytes, header_bytes};

impl Sink {
    /// Writes an unsigned integer in its smallest form ([`Form::u64`]).
    #[inline]
    pub(crate) fn write_u64(&mut self, v: u64) {
        self.write_form(Form::u64(v));
    }

    /// Writes a signed integer in its smallest form ([`Form::i64`]).
    #[inline]
    pub(crate) fn write_i64(&mut self, v: i64) {
        self.write_form(Form::i64(v));
    }

    /// Appends `f` through [`Sink::write_prefix`].
    #[inline(always)]
    pub(crate) fn write_form(&mut self, f: Form) {
        self.write_prefix(&f.buf, f.len);
    }

    /// Writes a 128-bit integer: a 64-bit form when it fits, else `F2 03` (u128) / `F2 04`
    /// (i128) and 16 bytes LE.
    pub(crate) fn write_i128(&mut self, v: i128) {
        if let Ok(u) = u64::try_from(v) {
            self.write_u64(u);
        } else if let Ok(i) = i64::try_from(v) {
            self.write_i64(i);
        } else if v > 0 {
            self.write_ext(ext::U128);
            self.out.extend_from_slice(&v.to_le_bytes());
        } else {
            self.write_ext(ext::I128);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Writes a u128 (see [`Sink::write_i128`]).
    pub(crate) fn write_u128(&mut self, v: u128) {
        if let Ok(u) = u64::try_from(v) {
            self.write_u64(u);
        } else {
            self.write_ext(ext::U128);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Writes a timestamp: `F3 zigzag-uvarint(secs) uvarint(nanos)`. Errors (Data) if
    /// `nanos` is above 999 999 999.
    pub(crate) fn write_timestamp(&mut self, secs: i64, nanos: u32) -> Result<()> {
        if nanos > 999_999_999 {
            return Err(Error::mismatch(
                "timestamp nanoseconds at most 999 999 999",
                nanos.to_string(),
            ));
        }
        self.out.push(TIMESTAMP);
        varint::write_uvarint(&mut self.out, varint::zigzag(secs));
        varint::write_uvarint(&mut self.out, nanos as u64);
        Ok(())
    }

    /// Writes the `"secs.nanos"` text a `Value::Timestamp` carries as a timestamp.
    pub(crate) fn write_timestamp_text(&mut self, text: &str) -> Result<()> {
        let parsed = text.split_once('.').and_then(|(s, n)| {
            let nanos = if n.len() == 9 {
                n.parse::<u32>().ok()?
            } else {
                return None;
            };
            Some((s.parse::<i64>().ok()?, nanos))
        });
        match parsed {
            Some((secs, nanos)) => self.write_timestamp(secs, nanos),
            None => Err(Error::mismatch("a \"secs.nnnnnnnnn\" timestamp", text)),
        }
    }

    /// Writes a char: `F2 02 uvarint(scalar)`.
    pub(crate) fn write_char(&mut self, c: char) {
        self.write_ext(ext::CHAR);
        varint::write_uvarint(&mut self.out, c as u64);
    }

    /// Writes a length header.
    #[inline]
    pub(crate) fn write_header(&mut self, kind: Header, len: usize) -> Result<()> {
        // The common headers of arrays and of structs and maps, without the general table.
        match kind {
            Header::Array if len <= 31 => {
                self.out.push(FIXARR | len as u8);
                return Ok(());
            }
            Header::Map if len <= 0xFF => {
                self.write_prefix(&[MAP8, len as u8], 2);
                return Ok(());
            }
            _ => {}
        }
        let h = header_bytes(kind, len)?;
        self.write_header_bytes(&h);
        Ok(())
    }

    /// Appends `h`: a `memcpy` call for a 1–5 byte header would cost more than the header.
    #[inline(always)]
    fn write_header_bytes(&mut self, h: &HeaderBytes) {
        self.write_prefix(&h.buf, h.len);
    }

    /// Appends the first `n` bytes of `buf` (`n <= W`) as one constant-size copy of all `W`
    /// into the spare capacity, then commits `n`: one capacity check, no `memcpy` call.
    #[inline(always)]
    pub(crate) fn write_prefix<const W: usize>(&mut self, buf: &[u8; W], n: usize) {
        let n = n.min(W);
        self.out.reserve(W);
        self.out.spare_capacity_mut()[..W].copy_from_slice(as_uninit(buf));
        // SAFETY: `W >= n` bytes after the old length were written just above, inside the
        // capacity `reserve` guaranteed.
        unsafe { self.out.set_len(self.out.len() + n) };
    }

    /// Writes a string: fixstr up to 31 bytes, else str8/16/32.
    ///
    /// Hook: EVERY string goes through here — values, map keys, struct field names and enum
    /// variant names. The Dense dialect interns here (tags E0/E1/E8/E9/EA).
    #[inline]
    pub(crate) fn write_str(&mut self, s: &str) -> Result<()> {
        let b = s.as_bytes();
        // Inline, defined or referenced: the decoder hands out (and charges) every byte.
        self.count_output(b.len() as u64);
        if self.dense.is_some() {
            return self.write_str_dense(b, false);
        }
        self.write_plain_str(b)
    }

    /// Writes a string *value* (serde `serialize_str`: values and map keys, not names):
    /// with [`Features::HEX_TEXT`](crate::Features::HEX_TEXT) a string of hex digits may be
    /// written as hex text ([`write_hex_str`](Self::write_hex_str)), else as
    /// [`write_str`](Self::write_str) writes it.
    #[inline]
    pub(crate) fn write_str_value(&mut self, s: &str) -> Result<()> {
        if self.hex_text {
            let b = s.as_bytes();
            if self.dense.is_some() {
                // The intern lookup first: a reference is the same for hex text.
                self.count_output(b.len() as u64);
                return self.write_str_dense(b, true);
            }
            if let Some(upper) = hex_case(b) {
                self.count_output(b.len() as u64);
                return self.write_hex_str(b, upper, None);
            }
        }
        self.write_str(s)
    }

    /// A hex string `b` (letters uppercase when `upper`), of which the Dense state (if
    /// any) decided `emission`, not a reference: a definition is written `F2 0C` instead
    /// of `E0`, an inline string `F2 0B` instead of fixstr/str*, each only when strictly
    /// shorter (`docs/SPEC.md` §9). The state update is the same either way.
    #[inline(never)]
    fn write_hex_str(
        &mut self,
        b: &[u8],
        upper: bool,
        emission: Option<crate::dense::Emission>,
    ) -> Result<()> {
        use crate::dense::{Emission, Kind};
        let n = b.len() as u64 + u64::from(upper);
        let hex_len = 2 + varint::uvarint_len(n) + b.len() / 2;
        // Hex text is never a prefix form (`docs/SPEC.md` §15.3): decided at once.
        let emission = match (emission, self.dense.as_deref_mut()) {
            (Some(Emission::Undecided), Some(d)) => Some(d.encode_str_decided(b, Kind::Str)),
            (e, _) => e,
        };
        let sub = match emission {
            Some(Emission::Intern) if hex_len < Emission::Intern.wire_len(b.len()) => ext::HEX_DEF,
            Some(Emission::Inline) | None
                if hex_len < header_bytes(Header::Str, b.len())?.len + b.len() =>
            {
                ext::HEX_TEXT
            }
            Some(Emission::Inline) | None => return self.write_plain_str_cold(b),
            Some(e) => {
                e.write(&mut self.out, b, Kind::Str);
                return Ok(());
            }
        };
        self.out.reserve(hex_len);
        self.out.extend_from_slice(&[EXT, sub]);
        varint::write_uvarint(&mut self.out, n);
        self.out.extend(crate::wire::hex::packed(b));
        Ok(())
    }

    /// [`Sink::write_str`] with a Dense state: intern, else the plain form (or hex text, if
    /// `hex` and the string is hex digits). Out of line so that the Speed path inlines
    /// without the intern table's register pressure.
    #[inline(never)]
    fn write_str_dense(&mut self, b: &[u8], hex: bool) -> Result<()> {
        use crate::dense::{Emission, Kind};
        let Some(d) = self.dense.as_deref_mut() else {
            return self.write_plain_str_cold(b);
        };
        let e = d.encode_str(b, Kind::Str);
        if hex
            && !e.is_ref()
            && let Some(upper) = hex_case(b)
        {
            return self.write_hex_str(b, upper, Some(e));
        }
        if e.write(&mut self.out, b, Kind::Str) {
            return Ok(());
        }
        if e == Emission::Undecided {
            return self.write_str_undecided(b);
        }
        self.write_plain_str_cold(b)
    }

    /// A string not in the table of a session that keeps per-field strings
    /// ([`Emission::Undecided`]): the prefix form if it is the whole value of a text slot
    /// and the Dense state picks it (`docs/SPEC.md` §15.3), else as any string. Out of line
    /// and cold, so other sessions' string path only tests for it after a miss.
    #[cold]
    #[inline(never)]
    fn write_str_undecided(&mut self, b: &[u8]) -> Result<()> {
        use crate::dense::Kind;
        let at = self.out.len();
        let Some(d) = self.dense.as_deref_mut() else {
            return self.write_plain_str(b);
        };
        if let Some(k) = d.take_text_slot(at)
            && d.encode_prefix(&mut self.out, b, k)
        {
            return Ok(());
        }
        if d.encode_str_decided(b, Kind::Str)
            .write(&mut self.out, b, Kind::Str)
        {
            return Ok(());
        }
        self.write_plain_str(b)
    }

    /// [`write_plain_str`](Self::write_plain_str) out of line, for the Dense path (where an
    /// inline string is the rare case).
    #[inline(never)]
    fn write_plain_str_cold(&mut self, b: &[u8]) -> Result<()> {
        self.write_plain_str(b)
    }

    /// A string in its plain form: fixstr or str8/16/32 header, then the bytes.
    ///
    /// Only the common case is inline: a string of up to `SHORT - 2` bytes with `SHORT`
    /// bytes of spare capacity. Growing the buffer and long strings are a tail call, so the
    /// inline part makes no call that values must survive: out of line (serde's
    /// `String::serialize` around `serialize_str` is not always inlined into
    /// `Compound::serialize_field`) it then needs no callee-saved registers or stack frame.
    #[inline(always)]
    fn write_plain_str(&mut self, b: &[u8]) -> Result<()> {
        if b.len() > SHORT - 2 || self.out.capacity() - self.out.len() < SHORT {
            return self.write_plain_str_slow(b);
        }
        if b.len() <= 31 {
            self.write_short(&[FIXSTR | b.len() as u8], b);
        } else {
            self.write_short(&[STR8, b.len() as u8], b);
        }
        Ok(())
    }

    /// [`write_plain_str`](Self::write_plain_str) when the buffer must grow first or the
    /// string is longer than `SHORT - 2` bytes.
    #[inline(never)]
    fn write_plain_str_slow(&mut self, b: &[u8]) -> Result<()> {
        if b.len() <= SHORT - 2 {
            self.out.reserve(SHORT);
            return self.write_plain_str(b);
        }
        let h = header_bytes(Header::Str, b.len())?;
        self.out.reserve(h.len + b.len());
        self.out.extend_from_slice(h.as_slice());
        self.out.extend_from_slice(b);
        Ok(())
    }

    /// Writes `header` (1 or 2 bytes) and `b` (at most `SHORT - header.len()` bytes) with
    /// fixed-size copies into the spare capacity (the caller has checked that `SHORT` bytes
    /// are free): [`copy_short`], then the length. A `memcpy` call for a field name or a
    /// short value costs more than the bytes it copies.
    #[inline(always)]
    fn write_short(&mut self, header: &[u8], b: &[u8]) {
        let n = header.len() + b.len();
        debug_assert!(self.out.capacity() - self.out.len() >= SHORT);
        let window = &mut self.out.spare_capacity_mut()[..SHORT];
        copy_short(&mut window[..header.len()], as_uninit(header));
        copy_short(&mut window[header.len()..], as_uninit(b));
        // SAFETY: the `n` bytes after the old length were written just above (the header,
        // then `b`), and `n <= SHORT` lies inside the capacity `reserve` guaranteed.
        unsafe { self.out.set_len(self.out.len() + n) };
    }

    /// Writes `b` as an intern definition or reference if the Dense tier decides so and
    /// returns `true`; `false` means the caller writes the plain form (and `lastID` has been
    /// reset, as for every inline value).
    #[inline]
    fn write_dense(&mut self, b: &[u8], kind: crate::dense::Kind) -> bool {
        match self.dense.as_deref_mut() {
            Some(d) => d.encode_str(b, kind).write(&mut self.out, b, kind),
            None => false,
        }
    }

    /// Writes a byte string: bin8/16/32.
    ///
    /// Hook: EVERY byte string goes through here. The Dense dialect interns here (tag E2).
    #[inline]
    pub(crate) fn write_bytes(&mut self, b: &[u8]) -> Result<()> {
        self.count_output(b.len() as u64);
        if self.write_dense(b, crate::dense::Kind::Bin) {
            return Ok(());
        }
        let h = header_bytes(Header::Bin, b.len())?;
        self.out.reserve(h.len + b.len());
        self.out.extend_from_slice(h.as_slice());
        self.out.extend_from_slice(b);
        Ok(())
    }
}

/// Whether `b` is hex text worth a look (`docs/SPEC.md` §9): an even length of at least 4
/// (below that the hex form is never shorter), every byte `0`–`9`/`a`–`f`, or every byte
/// `0`–`9`/`A`–`F` with a letter. `Some(true)` for uppercase letters; digits only is
/// lowercase.
#[inline]
fn hex_case(b: &[u8]) -> Option<bool> {
    if b.len() < 4 || !b.len().is_multiple_of(2) {
        return None;
    }
    let (mut lower, mut upper) = (false, false);
    for &c in b {
        match c {
            b'0'..=b'9' => {}
            b'a'..=b'f' => lower = true,
            b'A'..=b'F' => upper = true,
            _ => return None,
        }
    }
    (!(lower && upper)).then_some(upper)
}
