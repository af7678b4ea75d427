//! Trying to break date-time text columns (`docs/SPEC.md` §22.1, kind bits `30`) from the
//! public API, as an outside user would (h-break8).
