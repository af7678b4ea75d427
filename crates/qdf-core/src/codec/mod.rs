pub(crate) mod strings;
