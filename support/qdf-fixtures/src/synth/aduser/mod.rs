//! ADUser 5000 and ADUserFlat 5000: an Active-Directory user export (Go `makeADUsers`, seed
//! `PCG(0x41445553, 0x65727300)`): unique GUIDs and account names next to repeating names,
//! departments and titles, a group list and an attribute map. ADUserFlat is the same users
//! without `memberOf` and `attrs`.

pub mod pb;
mod pools;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Rng;
use pools::*;

/// Start of the `whenCreated` range, 2018-01-01 in Unix s.
const CREATED_FROM: u64 = 1_514_764_800;
/// Length of the time ranges, about 7 years in s.
const SPAN_S: u64 = 220_752_000;

/// A user export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct AdUsers {
    /// The users.
    pub users: Vec<AdUser>,
}

/// One directory user (field names are the LDAP attribute names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "camelCase")]
pub struct AdUser {
    /// 32 hex digits, unique.
    #[serde(rename = "objectGUID")]
    pub object_guid: String,
    /// First initial, last name and `i % 10000`, lowercase.
    #[serde(rename = "sAMAccountName")]
    pub sam_account_name: String,
    /// `sam@corp.contoso.com`.
    pub user_principal_name: String,
    /// Same as the UPN.
    pub mail: String,
    /// First name, 750 combinations.
    pub given_name: String,
    /// Last name, 900 combinations.
    pub sn: String,
    /// `given sn`.
    pub display_name: String,
    /// One of 24.
    pub department: String,
    /// One of 32.
    pub title: String,
    /// One of 5.
    pub company: String,
    /// One of 24 office codes.
    pub physical_delivery_office: String,
    /// True for about 92 % of users.
    pub enabled: bool,
    /// 0..5000.
    pub logon_count: i32,
    /// Unix s.
    pub when_created: i64,
    /// Unix s, after `whenCreated`.
    pub last_logon_timestamp: i64,
    /// Unix s, between the two above.
    pub pwd_last_set: i64,
    /// 2–6 group DNs from 400.
    pub member_of: Vec<String>,
    /// `employeeID`, `costCenter`, `manager`, `co`, `l`, `telephoneNumber`.
    pub attrs: BTreeMap<String, String>,
}

/// The flat export: [`AdUser`] without `memberOf` and `attrs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct AdUsersFlat {
    /// The users.
    pub users: Vec<AdUserFlat>,
}

/// [`AdUser`]'s scalar fields (same names and meanings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // documented on `AdUser`
pub struct AdUserFlat {
    #[serde(rename = "objectGUID")]
    pub object_guid: String,
    #[serde(rename = "sAMAccountName")]
    pub sam_account_name: String,
    pub user_principal_name: String,
    pub mail: String,
    pub given_name: String,
    pub sn: String,
    pub display_name: String,
    pub department: String,
    pub title: String,
    pub company: String,
    pub physical_delivery_office: String,
    pub enabled: bool,
    pub logon_count: i32,
    pub when_created: i64,
    pub last_logon_timestamp: i64,
    pub pwd_last_set: i64,
}

/// `n` users (the benchmark uses 5000).
pub fn ad_users(n: usize) -> AdUsers {
    let mut r = Rng::pcg(0x4144_5553, 0x6572_7300);
    AdUsers {
        users: (0..n).map(|i| ad_user(&mut r, i)).collect(),
    }
}

/// The same `n` users as [`ad_users`] without `memberOf` and `attrs`.
pub fn ad_users_flat(n: usize) -> AdUsersFlat {
    AdUsersFlat {
        users: ad_users(n)
            .users
            .into_iter()
            .map(AdUserFlat::from)
            .collect(),
    }
}

fn ad_user(r: &mut Rng, i: usize) -> AdUser {
    let given_name = format!("{}{}", r.pick(&FIRST_A), r.pick(&FIRST_B));
    let sn = format!("{}{}", r.pick(&LAST_A), r.pick(&LAST_B));
    let initial = given_name
        .chars()
        .next()
        .expect("pools are non-empty")
        .to_lowercase();
    let sam = format!("{initial}{}{}", sn.to_lowercase(), i % 10_000);
    let upn = format!("{sam}@corp.contoso.com");
    let created = CREATED_FROM + r.int_n(SPAN_S);
    let last_logon = created + r.int_n(SPAN_S);
    let pwd_set = created + r.int_n(last_logon - created + 1);
    let groups = 2 + r.int_n(5);
    let member_of = (0..groups)
        .map(|_| {
            format!(
                "CN=SG-{:03},OU=Groups,DC=corp,DC=contoso,DC=com",
                r.int_n(400)
            )
        })
        .collect();
    let mut attrs = BTreeMap::new();
    let mut put = |k: &str, v: String| attrs.insert(k.to_owned(), v);
    put("employeeID", format!("E{:06}", r.int_n(900_000) + 100_000));
    put("costCenter", format!("CC-{:03}", r.int_n(60)));
    put(
        "manager",
        format!(
            "CN=Mgr-{:03},OU=Users,DC=corp,DC=contoso,DC=com",
            r.int_n(120)
        ),
    );
    put("co", r.pick(&COUNTRIES).to_owned());
    put("l", r.pick(&CITIES).to_owned());
    put(
        "telephoneNumber",
        format!("+1-{:03}-555-{:04}", r.int_n(900) + 100, r.int_n(10_000)),
    );
    AdUser {
        object_guid: r.hex(32),
        department: r.pick(&DEPARTMENTS).to_owned(),
        title: r.pick(&TITLES).to_owned(),
        company: r.pick(&COMPANIES).to_owned(),
        physical_delivery_office: r.pick(&OFFICES).to_owned(),
        enabled: r.int_n(100) < 92,
        logon_count: r.int_n(5000) as i32,
        sam_account_name: sam,
        user_principal_name: upn.clone(),
        mail: upn,
        display_name: format!("{given_name} {sn}"),
        given_name,
        sn,
        when_created: created as i64,
        last_logon_timestamp: last_logon as i64,
        pwd_last_set: pwd_set as i64,
        member_of,
        attrs,
    }
}

/// Builds `$ty { <the 16 scalar fields moved from $u>, $extra }`: the four user types (serde and
/// protobuf, with and without the multi-valued fields) share these field names.
macro_rules! with_scalars {
    ($u:ident => $ty:ident { $($extra:tt)* }) => {
        $ty {
            object_guid: $u.object_guid,
            sam_account_name: $u.sam_account_name,
            user_principal_name: $u.user_principal_name,
            mail: $u.mail,
            given_name: $u.given_name,
            sn: $u.sn,
            display_name: $u.display_name,
            department: $u.department,
            title: $u.title,
            company: $u.company,
            physical_delivery_office: $u.physical_delivery_office,
            enabled: $u.enabled,
            logon_count: $u.logon_count,
            when_created: $u.when_created,
            last_logon_timestamp: $u.last_logon_timestamp,
            pwd_last_set: $u.pwd_last_set,
            $($extra)*
        }
    };
}
use with_scalars;

impl From<AdUser> for AdUserFlat {
    fn from(u: AdUser) -> Self {
        with_scalars!(u => AdUserFlat {})
    }
}
