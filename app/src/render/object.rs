//! `/object/{cid}`: what is known of a stored value.

use maud::html;

use breakroom_debugger::model::StoredValue;

use super::titled;
use crate::format::timestamp;

pub fn stored_value(v: &StoredValue) -> String {
    let body = html! {
        h1 { "Stored value" }
        dl.meta {
            dt { "CID" } dd.mono.cid { (v.cid) }
            dt { "format" } dd { (v.serialization_format) }
            dt { "size" } dd { (v.size) " bytes" }
            dt { "stored" } dd { (timestamp(v.stored_at)) }
        }
        pre.output.value { (v.display) }
    };
    titled(body, &format!("Stored value · {}", v.cid.get(..12).unwrap_or(&v.cid)))
}
