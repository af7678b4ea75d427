//! Date-time text columns (kind bits `30`, `docs/SPEC.md` §22.1): every value is a calendar
//! date and time of one fixed layout over the column — `2010-01-01T01:00:00`,
//! `2010-01-01 01:00:00.250Z`, `10/Oct/2000:13:55:36 -0700` — stored as one integer a value,
//! the instant in units of 10^−F s since 1970-01-01 00:00:00, written as a decimal column's
//! integers are ([`decimal::int_body`]), so an hourly series is a delta-coded column of
//! width 0.
//!
//! ```text
//! layout uvarint(S) S bytes  integers
//! layout: bits 0–1 pattern (0 `YYYY-MM-DDThh:mm:ss`, 1 `YYYY-MM-DD hh:mm:ss`,
//!         2 `DD/Mon/YYYY:hh:mm:ss`), bits 2–5 F (a `.` and F fraction digits follow the
//!         seconds when F > 0), bits 6–7 zero
//! S bytes: the suffix every value ends with (`Z`, `+02:00`, ` -0700`), printable ASCII
//! ```
//!
//! The suffix is text, not an offset: the integer counts the fields as written. Dates are
//! proleptic Gregorian, years 0000–9999, seconds 00–59 (a leap second keeps the column a
//! string column); day and month arithmetic is H. Hinnant's `days_from_civil` /
//! `civil_from_days` ("chrono-Compatible Low-Level Date Algorithms").

use super::decimal::{int_body, read_ints};
use super::{Body, Form, bad};
use crate::codec::strings::CheckedStrs;
use crate::error::Result;
use crate::options::Options;
use crate::source::Source;
use crate::wire::varint::write_uvarint;

/// `YYYY-MM-DDThh:mm:ss`.
const ISO_T: u8 = 0;
/// `YYYY-MM-DD hh:mm:ss`.
const ISO_SPACE: u8 = 1;
/// `DD/Mon/YYYY:hh:mm:ss`, the Common Log Format's date.
const CLF: u8 = 2;
/// Most fraction digits (nanoseconds).
const MAX_FRACTION: u8 = 9;
/// Longest suffix, in bytes.
pub(crate) const MAX_SUFFIX: usize = 32;
/// Layout bits that must be zero.
const RESERVED: u8 = 0xC0;

/// English month abbreviations of the Common Log Format.
const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// Seconds in a day.
const DAY: i128 = 86_400;

/// A column's layout: the pattern, the fraction digits and the suffix.
#[derive(Debug, PartialEq, Eq)]
struct Layout<'a> {
    pattern: u8,
    fraction: u8,
    suffix: &'a [u8],
}

/// Calendar fields of one value.
#[derive(Debug, PartialEq, Eq)]
struct Fields {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    frac: u64,
}

impl Layout<'_> {
    /// The layout byte.
    fn byte(&self) -> u8 {
        self.pattern | self.fraction << 2
    }

    /// Characters of the date and time before the fraction.
    fn stamp_len(&self) -> usize {
        stamp_len(self.pattern)
    }

    /// Characters of every value.
    fn text_len(&self) -> usize {
        let f = usize::from(self.fraction);
        self.stamp_len() + if f > 0 { f + 1 } else { 0 } + self.suffix.len()
    }

    /// 10^F.
    fn scale(&self) -> i128 {
        10i128.pow(u32::from(self.fraction))
    }
}

/// Characters of a value of `pattern` before its fraction.
fn stamp_len(pattern: u8) -> usize {
    if pattern == CLF { 20 } else { 19 }
}

/// Whether `suffix` may end a date-time value: printable ASCII.
fn printable(suffix: &[u8]) -> bool {
    suffix.iter().all(|c| (0x20..0x7F).contains(c))
}

/// The pattern whose separators `s` has at their places, when `s` is long enough for it
/// (its digits are [`fields`]' to check).
fn pattern_of(s: &[u8]) -> Option<u8> {
    let at = |i: usize, c: u8| s.get(i) == Some(&c);
    let pattern = if at(4, b'-') && at(7, b'-') && at(13, b':') && at(16, b':') {
        match s[10] {
            b'T' => ISO_T,
            b' ' => ISO_SPACE,
            _ => return None,
        }
    } else if at(2, b'/') && at(6, b'/') && at(11, b':') && at(14, b':') && at(17, b':') {
        CLF
    } else {
        return None;
    };
    (s.len() >= stamp_len(pattern)).then_some(pattern)
}

/// The layout `s` is written in, when it is a date-time of a known pattern with at most
/// [`MAX_FRACTION`] fraction digits and a printable-ASCII suffix of at most [`MAX_SUFFIX`]
/// bytes; its fields are checked by [`fields`].
fn layout_of(s: &[u8]) -> Option<Layout<'_>> {
    let pattern = pattern_of(s)?;
    let rest = &s[stamp_len(pattern)..];
    let fraction = match rest {
        [b'.', tail @ ..] => tail.iter().take_while(|c| c.is_ascii_digit()).count(),
        _ => 0,
    };
    if fraction > usize::from(MAX_FRACTION) || rest.first() == Some(&b'.') && fraction == 0 {
        return None;
    }
    let suffix = &rest[if fraction > 0 { fraction + 1 } else { 0 }..];
    (suffix.len() <= MAX_SUFFIX && printable(suffix)).then_some(Layout {
        pattern,
        fraction: fraction as u8,
        suffix,
    })
}

/// The number two ASCII digits spell.
fn two(s: &[u8]) -> Option<u32> {
    let (a, b) = (s[0].wrapping_sub(b'0'), s[1].wrapping_sub(b'0'));
    (a <= 9 && b <= 9).then(|| u32::from(a) * 10 + u32::from(b))
}

/// The number ASCII digits spell (at most 9 of them).
fn digits(s: &[u8]) -> Option<u64> {
    s.iter().try_fold(0u64, |v, &c| {
        let d = c.wrapping_sub(b'0');
        (d <= 9).then(|| v * 10 + u64::from(d))
    })
}

/// Days in `month` of `year` (proleptic Gregorian).
fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The fields of `s` written in layout `l`, when it is exactly that layout (separators,
/// digits, suffix) and a valid date and time; `None` otherwise.
fn fields(s: &[u8], l: &Layout<'_>) -> Option<Fields> {
    if s.len() != l.text_len() || !s.ends_with(l.suffix) || pattern_of(s) != Some(l.pattern) {
        return None;
    }
    let (year, month, day, time) = if l.pattern == CLF {
        let month = MONTHS.iter().position(|m| &s[3..6] == *m)? as u32 + 1;
        (digits(&s[7..11])?, month, two(&s[0..2])?, &s[12..20])
    } else {
        let (year, month, day) = (digits(&s[0..4])?, two(&s[5..7])?, two(&s[8..10])?);
        (year, month, day, &s[11..19])
    };
    let (hour, minute, second) = (two(&time[0..2])?, two(&time[3..5])?, two(&time[6..8])?);
    let year = year as i64;
    let frac = if l.fraction > 0 {
        let at = l.stamp_len();
        if s[at] != b'.' {
            return None;
        }
        digits(&s[at + 1..at + 1 + usize::from(l.fraction)])?
    } else {
        0
    };
    let valid = (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60;
    valid.then_some(Fields {
        year,
        month,
        day,
        hour,
        minute,
        second,
        frac,
    })
}

/// Days from 1970-01-01 to `year-month-day` (Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// The instant of `f` in units of 10^−F s since 1970-01-01 00:00:00.
fn ticks(f: &Fields, l: &Layout<'_>) -> i128 {
    let days = i128::from(days_from_civil(f.year, f.month, f.day));
    let secs = days * DAY + i128::from(f.hour * 3_600 + f.minute * 60 + f.second);
    secs * l.scale() + i128::from(f.frac)
}

/// The fields of the instant `t` (units of 10^−F s since 1970), when its year is 0000–9999.
fn from_ticks(t: i64, l: &Layout<'_>) -> Option<Fields> {
    // 10^F ≤ 10^9 fits an i64.
    let scale = l.scale() as i64;
    let (secs, frac) = (t.div_euclid(scale), t.rem_euclid(scale));
    let (days, sod) = (secs.div_euclid(DAY as i64), secs.rem_euclid(DAY as i64));
    // Past ±10^7 days no year is in range (and `civil_from_days` cannot overflow).
    if days.unsigned_abs() > 10_000_000 {
        return None;
    }
    let (year, month, day) = civil_from_days(days);
    let sod = sod as u32;
    (0..=9999).contains(&year).then_some(Fields {
        year,
        month,
        day,
        hour: sod / 3_600,
        minute: sod / 60 % 60,
        second: sod % 60,
        frac: frac as u64,
    })
}

/// Writes `n` (< 10^`dst.len()`) into `dst` as digits with leading zeros.
fn put(dst: &mut [u8], n: u64) {
    let mut n = n;
    for c in dst.iter_mut().rev() {
        *c = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// Writes the two digits of `n` (< 100) at `dst[0..2]`.
fn put2(dst: &mut [u8], n: u32) {
    dst[0] = b'0' + (n / 10) as u8;
    dst[1] = b'0' + (n % 10) as u8;
}

/// The text of every value in layout `l` with its fields left zero: the separators and the
/// suffix, which [`print`] keeps.
fn template(l: &Layout<'_>) -> Vec<u8> {
    let mut t = Vec::with_capacity(l.text_len());
    t.extend_from_slice(match l.pattern {
        ISO_T => b"0000-00-00T00:00:00",
        ISO_SPACE => b"0000-00-00 00:00:00",
        _ => b"00/Jan/0000:00:00:00",
    });
    if l.fraction > 0 {
        t.push(b'.');
        t.resize(t.len() + usize::from(l.fraction), b'0');
    }
    t.extend_from_slice(l.suffix);
    t
}

/// Writes the fields of `f` into `dst`, a copy of [`template`]`(l)`.
fn print(dst: &mut [u8], f: &Fields, l: &Layout<'_>) {
    let time = if l.pattern == CLF {
        put2(&mut dst[0..2], f.day);
        dst[3..6].copy_from_slice(MONTHS[f.month as usize - 1]);
        put(&mut dst[7..11], f.year as u64);
        12
    } else {
        put(&mut dst[0..4], f.year as u64);
        put2(&mut dst[5..7], f.month);
        put2(&mut dst[8..10], f.day);
        11
    };
    put2(&mut dst[time..], f.hour);
    put2(&mut dst[time + 3..], f.minute);
    put2(&mut dst[time + 6..], f.second);
    if l.fraction > 0 {
        let at = l.stamp_len() + 1;
        put(&mut dst[at..at + usize::from(l.fraction)], f.frac);
    }
}

/// The date-time body of `strs` when every value is a date-time of the first value's layout
/// whose instant fits an `i64`, and the body is strictly smaller than `beat` bytes.
pub(super) fn encode(strs: &[&[u8]], opts: &Options, beat: usize) -> Result<Option<Body>> {
    let Some(l) = strs.first().and_then(|s| layout_of(s)) else {
        return Ok(None);
    };
    let mut vals = Vec::with_capacity(strs.len());
    let mut neg = false;
    for s in strs {
        let Some(t) = fields(s, &l).map(|f| ticks(&f, &l)) else {
            return Ok(None);
        };
        let Ok(t) = i64::try_from(t) else {
            return Ok(None);
        };
        neg |= t < 0;
        vals.push(t as u64);
    }
    let mut bytes = vec![l.byte()];
    write_uvarint(&mut bytes, l.suffix.len() as u64);
    bytes.extend_from_slice(l.suffix);
    if bytes.len() >= beat {
        return Ok(None);
    }
    let v = vals.len() as u64;
    let (ints, units) = int_body(vals, neg, opts)?;
    bytes.extend_from_slice(&ints);
    Ok((bytes.len() < beat).then_some(Body {
        text: Form::DateTime,
        bytes,
        units: units + v * l.text_len() as u64,
    }))
}

/// Reads a date-time body of `v` values and prints them.
///
/// Errors (`BadCodec`, Syntax): layout bits 6–7 set, pattern 3 or F > 9 (at the layout
/// byte); a suffix longer than [`MAX_SUFFIX`] or not printable ASCII (at its length); an
/// instant outside the years 0000–9999 (at the integers); [`read_ints`]'s errors;
/// truncation; the output limit.
pub(super) fn read<'de>(src: &mut Source<'de>, v: usize) -> Result<CheckedStrs<'de>> {
    let at = src.offset();
    let byte = src.next("a date-time column's layout byte")?;
    let (pattern, fraction) = (byte & 0x03, byte >> 2 & 0x0F);
    if byte & RESERVED != 0 || pattern > CLF || fraction > MAX_FRACTION {
        return Err(bad(at, "a date-time column's layout byte"));
    }
    let suffix_at = src.offset();
    let n = src.uvarint()?;
    if n > MAX_SUFFIX as u64 {
        return Err(bad(
            suffix_at,
            "a date-time column's suffix is over 32 bytes",
        ));
    }
    let suffix = src.take(n as usize, "a date-time column's suffix")?;
    if !printable(suffix) {
        return Err(bad(
            suffix_at,
            "a date-time column's suffix is not printable ASCII",
        ));
    }
    let l = Layout {
        pattern,
        fraction,
        suffix,
    };
    let ints_at = src.offset();
    let (vals, signed) = read_ints(src, v)?;
    let total = (v as u64).saturating_mul(l.text_len() as u64);
    src.charge(total)?;
    let (len, tmpl) = (l.text_len(), template(&l));
    let mut store = tmpl.repeat(v);
    let outside = || {
        bad(
            ints_at,
            "a date-time column's instant is outside the years 0000-9999",
        )
    };
    for (&x, dst) in vals.iter().zip(store.chunks_exact_mut(len)) {
        // An unsigned value past i64::MAX is past every year in range.
        let t = if signed {
            Some(x as i64)
        } else {
            i64::try_from(x).ok()
        };
        let f = t.and_then(|t| from_ticks(t, &l)).ok_or_else(outside)?;
        print(dst, &f, &l);
    }
    CheckedStrs::rebuilt(store, (0..v).map(|_| len)).map_err(|e| e.with_offset(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instant and the printed text of `s` when it is a date-time of its own layout.
    fn round(s: &str) -> Option<(i128, String)> {
        let l = layout_of(s.as_bytes())?;
        let t = ticks(&fields(s.as_bytes(), &l)?, &l);
        let mut out = template(&l);
        print(
            &mut out,
            &from_ticks(i64::try_from(t).ok()?, &l).unwrap(),
            &l,
        );
        Some((t, String::from_utf8(out).unwrap()))
    }

    #[test]
    fn instants_are_seconds_since_1970_and_print_back() {
        for (s, t) in [
            ("1970-01-01T00:00:00", 0),
            ("1970-01-01T00:00:01Z", 1),
            ("1969-12-31 23:59:59", -1),
            ("2010-01-01T01:00:00", 1_262_307_600),
            ("2000-02-29T12:00:00+02:00", 951_825_600),
            ("0000-01-01T00:00:00", -62_167_219_200),
            ("9999-12-31T23:59:59", 253_402_300_799),
            ("10/Oct/2000:13:55:36 -0700", 971_186_136),
            ("2024-03-10T08:15:30.250Z", 1_710_058_530_250),
            ("2024-03-10T08:15:30.000000001Z", 1_710_058_530_000_000_001),
        ] {
            assert_eq!(round(s), Some((t, s.to_owned())), "{s}");
        }
    }

    #[test]
    fn every_day_of_four_centuries_round_trips() {
        let l = layout_of(b"2000-01-01T00:00:00").unwrap();
        let mut prev = None;
        for year in [1600, 1700, 1900, 2000, 2100] {
            for month in 1..=12 {
                for day in 1..=days_in_month(year, month) {
                    let f = Fields {
                        year,
                        month,
                        day,
                        hour: 0,
                        minute: 0,
                        second: 0,
                        frac: 0,
                    };
                    let t = ticks(&f, &l);
                    assert_eq!(from_ticks(t as i64, &l), Some(f));
                    if let Some(p) = prev.filter(|_| month != 1 || day != 1) {
                        assert_eq!(t - p, DAY, "{year}-{month}-{day}");
                    }
                    prev = Some(t);
                }
            }
        }
    }

    #[test]
    fn text_that_is_not_exactly_a_date_time_is_refused() {
        for s in [
            "2010-01-01t01:00:00",
            "2010-1-01T01:00:00",
            "2010-01-01T24:00:00",
            "2010-01-01T23:60:00",
            "2010-12-31T23:59:60",
            "2010-02-29T00:00:00",
            "1900-02-29T00:00:00",
            "2010-13-01T00:00:00",
            "2010-00-01T00:00:00",
            "2010-01-00T00:00:00",
            "2010-04-31T00:00:00",
            "+010-01-01T00:00:00",
            "2010-01-01T00:00:0",
            "2010-01-01T00:00:00.",
            "2010-01-01T00:00:00.1234567890",
            "2010-01-01T00:00:00\u{e9}",
            &format!("2010-01-01T00:00:00{}", "Z".repeat(MAX_SUFFIX + 1)),
            "10/oct/2000:13:55:36 -0700",
            "10/Oct/2000 13:55:36 -0700",
            "00/Oct/2000:13:55:36",
            "",
        ] {
            assert_eq!(round(s), None, "{s}");
        }
        assert!(round("2000-02-29T00:00:00").is_some());
        let longest = format!("2010-01-01T00:00:00{}", "Z".repeat(MAX_SUFFIX));
        assert!(round(&longest).is_some());
    }

    #[test]
    fn a_value_of_another_layout_is_refused() {
        let l = layout_of(b"2010-01-01T01:00:00.25Z").unwrap();
        assert!(fields(b"2010-01-01T01:00:00.50Z", &l).is_some());
        for s in [
            &b"2010-01-01T01:00:00.5Z"[..],
            b"2010-01-01 01:00:00.50Z",
            b"2010-01-01T01:00:00.50+",
            b"2010-01-01T01:00:00,50Z",
            b"2010-01-01T01:00:00.5xZ",
        ] {
            assert_eq!(fields(s, &l), None, "{}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn instants_outside_the_years_are_none() {
        let l = layout_of(b"2000-01-01T00:00:00").unwrap();
        assert_eq!(from_ticks(-62_167_219_201, &l), None);
        assert_eq!(from_ticks(253_402_300_800, &l), None);
        assert_eq!(from_ticks(i64::MIN, &l), None);
        assert_eq!(from_ticks(i64::MAX, &l), None);
        let nanos = layout_of(b"2000-01-01T00:00:00.000000000").unwrap();
        // In nanoseconds an i64 spans 1677-09-21 to 2262-04-11.
        assert_eq!(from_ticks(i64::MIN, &nanos).map(|f| f.year), Some(1677));
        assert_eq!(from_ticks(i64::MAX, &nanos).map(|f| f.year), Some(2262));
    }
}
