//! Content-addressed storage of serialized values. A CID is the lowercase hex SHA-512 of the
//! decoded bytes (pickle bytes for dill, UTF-8 text for json); entries are written once.

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha512};

use crate::error::{Error, Result};

/// A value as a client sends it: `{"cid", "client_ref", "data"?, "serialization_format"?, "repr"?}`.
/// `data` is left out when the client believes the server already has the CID.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
// Read through a JSON object, so that an array is refused (serde would take it as a tuple).
#[serde(try_from = "serde_json::Map<String, Value>")]
pub struct SerializedItem {
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{128}$"))]
    #[serde(default)]
    pub cid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_ref: Option<Value>,
    #[cfg_attr(feature = "openapi", schema(format = Byte))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[cfg_attr(feature = "openapi", schema(pattern = "^(dill|json)$"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serialization_format: Option<String>,
    /// Breakroom extension: the client's own repr of the value, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repr: Option<String>,
}

impl TryFrom<serde_json::Map<String, Value>> for SerializedItem {
    type Error = String;

    fn try_from(mut map: serde_json::Map<String, Value>) -> std::result::Result<Self, String> {
        let mut text = |field: &str| match map.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(format!("{field} must be a string, not {other}")),
        };
        Ok(SerializedItem {
            cid: text("cid")?,
            data: text("data")?,
            serialization_format: text("serialization_format")?,
            repr: text("repr")?,
            client_ref: map.remove("client_ref"),
        })
    }
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SerializationFormat {
    Dill,
    Json,
}

impl SerializationFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            SerializationFormat::Dill => "dill",
            SerializationFormat::Json => "json",
        }
    }

    pub fn parse(name: Option<&str>) -> Result<Self> {
        match name {
            None | Some("dill") => Ok(Self::Dill),
            Some("json") => Ok(Self::Json),
            Some(other) => Err(Error::invalid(
                "invalid_serialization_format",
                format!("serialization_format must be 'dill' or 'json', not {other:?}"),
            )),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct StoredObject {
    pub bytes: Vec<u8>,
    pub format: SerializationFormat,
    pub created_at: f64,
}

pub fn cid_of(bytes: &[u8]) -> String {
    let digest = Sha512::digest(bytes);
    let mut hex = String::with_capacity(128);
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// Decodes a client's `data` text and checks it against the claimed CID.
pub fn decode_verified(cid: &str, data: &str, format: Option<&str>) -> Result<(Vec<u8>, SerializationFormat)> {
    let format = SerializationFormat::parse(format)?;
    let bytes = match format {
        SerializationFormat::Dill => base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|e| Error::invalid("invalid_dill", format!("data is not valid base64: {e}")))?,
        SerializationFormat::Json => {
            serde_json::from_str::<Value>(data)
                .map_err(|e| Error::invalid("invalid_json", format!("data is not valid JSON: {e}")))?;
            data.as_bytes().to_vec()
        }
    };
    let expected = cid_of(&bytes);
    if !expected.eq_ignore_ascii_case(cid) {
        return Err(Error::CidMismatch { expected, provided: cid.to_string() });
    }
    Ok((bytes, format))
}

/// A client's value, decoded and checked against its CID: what the store keeps (write-once, in
/// `store::objects`; nothing is kept in memory).
#[derive(Clone, Debug, PartialEq)]
pub struct VerifiedObject {
    /// Lowercase, as stored and looked up.
    pub cid: String,
    pub object: StoredObject,
}

impl VerifiedObject {
    pub fn from_pair(cid: &str, data: &str, format: Option<&str>, now: f64) -> Result<Self> {
        let (bytes, format) = decode_verified(cid, data, format)?;
        Ok(VerifiedObject { cid: cid.to_ascii_lowercase(), object: StoredObject { bytes, format, created_at: now } })
    }

    /// An item that carries data; items without data or CID give None.
    pub fn from_item(item: &SerializedItem, now: f64) -> Result<Option<Self>> {
        match (&item.cid, &item.data) {
            (Some(cid), Some(data)) => Self::from_pair(cid, data, item.serialization_format.as_deref(), now).map(Some),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cid_is_sha512_of_decoded_bytes() {
        // int 1 pickled with protocol 4
        let cid = cid_of(&[0x80, 0x04, 0x4B, 0x01, 0x2E]);
        assert!(cid.starts_with("6941ca8d"), "{cid}");
        assert!(cid.ends_with("73b1afe0"), "{cid}");
        assert_eq!(decode_verified(&cid, "gARLAS4=", None).unwrap().0, vec![0x80, 0x04, 0x4B, 0x01, 0x2E]);
    }

    #[test]
    fn mismatched_cid_is_rejected() {
        let err = VerifiedObject::from_pair(&"0".repeat(128), "gARLAS4=", None, 0.0).unwrap_err();
        assert_eq!(err.code(), "cid_mismatch");
    }

    #[test]
    fn bad_base64_and_bad_json_and_bad_format_are_rejected() {
        let code = |data: &str, format: Option<&str>| {
            VerifiedObject::from_pair("ab", data, format, 0.0).unwrap_err().code().to_string()
        };
        assert_eq!(code("!!!", None), "invalid_dill");
        assert_eq!(code("{", Some("json")), "invalid_json");
        assert_eq!(code("e30=", Some("yaml")), "invalid_serialization_format");
    }

    #[test]
    fn an_uppercase_cid_is_kept_in_lowercase() {
        let cid = cid_of(&[0x80, 0x04, 0x4B, 0x01, 0x2E]).to_ascii_uppercase();
        assert_eq!(VerifiedObject::from_pair(&cid, "gARLAS4=", None, 0.0).unwrap().cid, cid.to_ascii_lowercase());
    }
}
