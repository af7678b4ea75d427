//! The protobuf twins of [`AdUsers`] and [`AdUsersFlat`]: `string` for every text attribute,
//! `int64` for the Unix-second timestamps, `int32` for `logonCount`.

use std::collections::BTreeMap;

use super::{AdUser, AdUserFlat, AdUsers, AdUsersFlat, with_scalars};
use crate::Dataset;

/// `message AdUsers { repeated AdUser users = 1; }`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbAdUsers {
    /// The users.
    #[prost(message, repeated, tag = "1")]
    pub users: Vec<PbAdUser>,
}

/// `message AdUsersFlat { repeated AdUserFlat users = 1; }`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbAdUsersFlat {
    /// The users.
    #[prost(message, repeated, tag = "1")]
    pub users: Vec<PbAdUserFlat>,
}

/// `message AdUser`: fields 1–16 as in [`PbAdUserFlat`], then `memberOf` and `attrs`.
#[derive(Clone, PartialEq, prost::Message)]
#[allow(missing_docs)] // documented on `AdUser`
pub struct PbAdUser {
    #[prost(string, tag = "1")]
    pub object_guid: String,
    #[prost(string, tag = "2")]
    pub sam_account_name: String,
    #[prost(string, tag = "3")]
    pub user_principal_name: String,
    #[prost(string, tag = "4")]
    pub mail: String,
    #[prost(string, tag = "5")]
    pub given_name: String,
    #[prost(string, tag = "6")]
    pub sn: String,
    #[prost(string, tag = "7")]
    pub display_name: String,
    #[prost(string, tag = "8")]
    pub department: String,
    #[prost(string, tag = "9")]
    pub title: String,
    #[prost(string, tag = "10")]
    pub company: String,
    #[prost(string, tag = "11")]
    pub physical_delivery_office: String,
    #[prost(bool, tag = "12")]
    pub enabled: bool,
    #[prost(int32, tag = "13")]
    pub logon_count: i32,
    #[prost(int64, tag = "14")]
    pub when_created: i64,
    #[prost(int64, tag = "15")]
    pub last_logon_timestamp: i64,
    #[prost(int64, tag = "16")]
    pub pwd_last_set: i64,
    #[prost(string, repeated, tag = "17")]
    pub member_of: Vec<String>,
    #[prost(btree_map = "string, string", tag = "18")]
    pub attrs: BTreeMap<String, String>,
}

/// `message AdUserFlat`: the scalar fields of [`PbAdUser`] with the same numbers.
#[derive(Clone, PartialEq, prost::Message)]
#[allow(missing_docs)] // documented on `AdUser`
pub struct PbAdUserFlat {
    #[prost(string, tag = "1")]
    pub object_guid: String,
    #[prost(string, tag = "2")]
    pub sam_account_name: String,
    #[prost(string, tag = "3")]
    pub user_principal_name: String,
    #[prost(string, tag = "4")]
    pub mail: String,
    #[prost(string, tag = "5")]
    pub given_name: String,
    #[prost(string, tag = "6")]
    pub sn: String,
    #[prost(string, tag = "7")]
    pub display_name: String,
    #[prost(string, tag = "8")]
    pub department: String,
    #[prost(string, tag = "9")]
    pub title: String,
    #[prost(string, tag = "10")]
    pub company: String,
    #[prost(string, tag = "11")]
    pub physical_delivery_office: String,
    #[prost(bool, tag = "12")]
    pub enabled: bool,
    #[prost(int32, tag = "13")]
    pub logon_count: i32,
    #[prost(int64, tag = "14")]
    pub when_created: i64,
    #[prost(int64, tag = "15")]
    pub last_logon_timestamp: i64,
    #[prost(int64, tag = "16")]
    pub pwd_last_set: i64,
}

impl Dataset for AdUsers {
    type Proto = PbAdUsers;

    fn to_proto(&self) -> PbAdUsers {
        let users = self
            .users
            .iter()
            .cloned()
            .map(|u| with_scalars!(u => PbAdUser { member_of: u.member_of, attrs: u.attrs }));
        PbAdUsers {
            users: users.collect(),
        }
    }

    fn from_proto(p: PbAdUsers) -> Self {
        let users = p
            .users
            .into_iter()
            .map(|u| with_scalars!(u => AdUser { member_of: u.member_of, attrs: u.attrs }));
        AdUsers {
            users: users.collect(),
        }
    }
}

impl Dataset for AdUsersFlat {
    type Proto = PbAdUsersFlat;

    fn to_proto(&self) -> PbAdUsersFlat {
        let users = self
            .users
            .iter()
            .cloned()
            .map(|u| with_scalars!(u => PbAdUserFlat {}));
        PbAdUsersFlat {
            users: users.collect(),
        }
    }

    fn from_proto(p: PbAdUsersFlat) -> Self {
        let users = p
            .users
            .into_iter()
            .map(|u| with_scalars!(u => AdUserFlat {}));
        AdUsersFlat {
            users: users.collect(),
        }
    }
}
