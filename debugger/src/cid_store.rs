//! Content-addressed storage of serialized values. A CID is the lowercase hex SHA-512 of the
//! decoded bytes (pickle bytes for dill, UTF-8 text for json); entries are written once.

use std::collections::HashMap;

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

#[derive(Default)]
pub struct CidStore {
    objects: HashMap<String, StoredObject>,
}

impl CidStore {
    pub fn contains(&self, cid: &str) -> bool {
        self.objects.contains_key(cid)
    }

    pub fn get(&self, cid: &str) -> Option<&StoredObject> {
        self.objects.get(cid)
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Write-once: a CID already stored keeps its first bytes (they are equal by construction).
    /// Returns the (lowercase) CID when it was new.
    pub fn insert(&mut self, cid: &str, bytes: Vec<u8>, format: SerializationFormat, now: f64) -> Option<String> {
        let cid = cid.to_ascii_lowercase();
        if self.objects.contains_key(&cid) {
            return None;
        }
        self.objects.insert(cid.clone(), StoredObject { bytes, format, created_at: now });
        Some(cid)
    }

    /// Verifies and stores an item that carries data; items without data or CID are left alone.
    /// Returns the CID when it was new.
    pub fn store_item(&mut self, item: &SerializedItem, now: f64) -> Result<Option<String>> {
        match (&item.cid, &item.data) {
            (Some(cid), Some(data)) => self.store_pair(cid, data, item.serialization_format.as_deref(), now),
            _ => Ok(None),
        }
    }

    /// Returns the CID when it was new.
    pub fn store_pair(&mut self, cid: &str, data: &str, format: Option<&str>, now: f64) -> Result<Option<String>> {
        let (bytes, format) = decode_verified(cid, data, format)?;
        Ok(self.insert(cid, bytes, format, now))
    }

    /// Whether an item refers to a CID the store cannot resolve (it has a CID but no data).
    pub fn is_missing(&self, item: &SerializedItem) -> bool {
        match (&item.cid, &item.data) {
            (Some(cid), None) => !self.contains(&cid.to_ascii_lowercase()),
            _ => false,
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
    fn mismatched_cid_is_rejected_and_not_stored() {
        let mut store = CidStore::default();
        let err = store.store_pair(&"0".repeat(128), "gARLAS4=", None, 0.0).unwrap_err();
        assert_eq!(err.code(), "cid_mismatch");
        assert!(store.is_empty());
    }

    #[test]
    fn bad_base64_and_bad_json_and_bad_format_are_rejected() {
        let mut store = CidStore::default();
        assert_eq!(store.store_pair("ab", "!!!", None, 0.0).unwrap_err().code(), "invalid_dill");
        assert_eq!(store.store_pair("ab", "{", Some("json"), 0.0).unwrap_err().code(), "invalid_json");
        assert_eq!(
            store.store_pair("ab", "e30=", Some("yaml"), 0.0).unwrap_err().code(),
            "invalid_serialization_format"
        );
    }

    #[test]
    fn store_is_write_once() {
        let mut store = CidStore::default();
        let cid = cid_of(b"x");
        store.insert(&cid, b"x".to_vec(), SerializationFormat::Dill, 1.0);
        store.insert(&cid, b"y".to_vec(), SerializationFormat::Dill, 2.0);
        assert_eq!(store.get(&cid).unwrap().bytes, b"x");
        assert_eq!(store.get(&cid).unwrap().created_at, 1.0);
    }
}
