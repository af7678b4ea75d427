//! The refused methods of a partial `serde::Serializer`: one that accepts a few kinds of
//! value (a primitive, a string key, a struct row) and refuses the others before anything is
//! written. [`refuse!`] writes the refusing methods, so each such serializer spells out only
//! what it accepts.
//!
//! ```text
//! impl serde::Serializer for StrKey<'_, F> {
//!     // … the accepted methods …
//!     refuse! { Self::miss; serialize_bool serialize_i8 serialize_some compounds }
//! }
//! ```
//!
//! `$no` is a function (a path) from the serializer, by value, to its error: it may record
//! the refusal (a flag) before it returns the error. `compounds` stands for the seven
//! compound-opening methods, whose `Serialize*` types are then never built (serde's
//! `Impossible`).

/// Writes `serde::Serializer` methods that return `Err($no(self))`: see the module docs.
macro_rules! refuse {
    ($no:path; $($m:ident)*) => {
        $( $crate::refuse::refuse!(@one $no, $m); )*
    };
    (@one $no:path, compounds) => {
        $crate::refuse::refuse!(
            $no; serialize_seq serialize_tuple serialize_tuple_struct serialize_tuple_variant
            serialize_map serialize_struct serialize_struct_variant
        );
    };
    (@one $no:path, serialize_bool) => { $crate::refuse::refuse!(@val $no, serialize_bool, bool); };
    (@one $no:path, serialize_i8) => { $crate::refuse::refuse!(@val $no, serialize_i8, i8); };
    (@one $no:path, serialize_i16) => { $crate::refuse::refuse!(@val $no, serialize_i16, i16); };
    (@one $no:path, serialize_i32) => { $crate::refuse::refuse!(@val $no, serialize_i32, i32); };
    (@one $no:path, serialize_i64) => { $crate::refuse::refuse!(@val $no, serialize_i64, i64); };
    (@one $no:path, serialize_i128) => { $crate::refuse::refuse!(@val $no, serialize_i128, i128); };
    (@one $no:path, serialize_u8) => { $crate::refuse::refuse!(@val $no, serialize_u8, u8); };
    (@one $no:path, serialize_u16) => { $crate::refuse::refuse!(@val $no, serialize_u16, u16); };
    (@one $no:path, serialize_u32) => { $crate::refuse::refuse!(@val $no, serialize_u32, u32); };
    (@one $no:path, serialize_u64) => { $crate::refuse::refuse!(@val $no, serialize_u64, u64); };
    (@one $no:path, serialize_u128) => { $crate::refuse::refuse!(@val $no, serialize_u128, u128); };
    (@one $no:path, serialize_f32) => { $crate::refuse::refuse!(@val $no, serialize_f32, f32); };
    (@one $no:path, serialize_f64) => { $crate::refuse::refuse!(@val $no, serialize_f64, f64); };
    (@one $no:path, serialize_char) => { $crate::refuse::refuse!(@val $no, serialize_char, char); };
    (@one $no:path, serialize_str) => { $crate::refuse::refuse!(@val $no, serialize_str, &str); };
    (@one $no:path, serialize_bytes) => { $crate::refuse::refuse!(@val $no, serialize_bytes, &[u8]); };
    (@one $no:path, serialize_none) => { $crate::refuse::refuse!(@val $no, serialize_none,); };
    (@one $no:path, serialize_unit) => { $crate::refuse::refuse!(@val $no, serialize_unit,); };
    (@one $no:path, serialize_unit_struct) => {
        $crate::refuse::refuse!(@val $no, serialize_unit_struct, &'static str);
    };
    (@one $no:path, serialize_unit_variant) => {
        $crate::refuse::refuse!(@val $no, serialize_unit_variant, &'static str, u32, &'static str);
    };
    (@one $no:path, serialize_newtype_struct) => {
        fn serialize_newtype_struct<T: ?Sized + ::serde::Serialize>(
            self,
            _: &'static str,
            _: &T,
        ) -> ::std::result::Result<Self::Ok, Self::Error> {
            Err($no(self))
        }
    };
    (@one $no:path, serialize_some) => {
        fn serialize_some<T: ?Sized + ::serde::Serialize>(
            self,
            _: &T,
        ) -> ::std::result::Result<Self::Ok, Self::Error> {
            Err($no(self))
        }
    };
    (@one $no:path, serialize_newtype_variant) => {
        fn serialize_newtype_variant<T: ?Sized + ::serde::Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> ::std::result::Result<Self::Ok, Self::Error> {
            Err($no(self))
        }
    };
    (@one $no:path, serialize_seq) => {
        $crate::refuse::refuse!(@open $no, serialize_seq, SerializeSeq, Option<usize>);
    };
    (@one $no:path, serialize_tuple) => {
        $crate::refuse::refuse!(@open $no, serialize_tuple, SerializeTuple, usize);
    };
    (@one $no:path, serialize_tuple_struct) => {
        $crate::refuse::refuse!(
            @open $no, serialize_tuple_struct, SerializeTupleStruct, &'static str, usize
        );
    };
    (@one $no:path, serialize_tuple_variant) => {
        $crate::refuse::refuse!(
            @open $no, serialize_tuple_variant, SerializeTupleVariant,
            &'static str, u32, &'static str, usize
        );
    };
    (@one $no:path, serialize_map) => {
        $crate::refuse::refuse!(@open $no, serialize_map, SerializeMap, Option<usize>);
    };
    (@one $no:path, serialize_struct) => {
        $crate::refuse::refuse!(@open $no, serialize_struct, SerializeStruct, &'static str, usize);
    };
    (@one $no:path, serialize_struct_variant) => {
        $crate::refuse::refuse!(
            @open $no, serialize_struct_variant, SerializeStructVariant,
            &'static str, u32, &'static str, usize
        );
    };
    (@val $no:path, $m:ident, $($a:ty),*) => {
        fn $m(self, $(_: $a),*) -> ::std::result::Result<Self::Ok, Self::Error> {
            Err($no(self))
        }
    };
    (@open $no:path, $m:ident, $ret:ident, $($a:ty),*) => {
        fn $m(self, $(_: $a),*) -> ::std::result::Result<Self::$ret, Self::Error> {
            Err($no(self))
        }
    };
}

pub(crate) use refuse;
