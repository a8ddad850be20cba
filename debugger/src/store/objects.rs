//! The CID store on disk: values clients sent, by the SHA-512 of their bytes, written once.

use rusqlite::{params, OptionalExtension};

use super::{storage, Store};
use crate::cid_store::{SerializationFormat, StoredObject, VerifiedObject};
use crate::error::{Error, Result};

impl Store {
    /// Write-once: a CID already stored keeps its first bytes (equal by construction). Returns
    /// whether it was new.
    pub fn put_object(&self, verified: &VerifiedObject) -> Result<bool> {
        let VerifiedObject { cid, object } = verified;
        let inserted = self
            .conn
            .prepare_cached("INSERT OR IGNORE INTO objects (cid, format, bytes, created_at) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut s| s.execute(params![cid, object.format.as_str(), object.bytes, object.created_at]))
            .map_err(storage)?;
        Ok(inserted == 1)
    }

    /// `cid` in lowercase, as stored.
    pub fn object(&self, cid: &str) -> Result<Option<StoredObject>> {
        let row: Option<(String, Vec<u8>, f64)> = self
            .conn
            .prepare_cached("SELECT format, bytes, created_at FROM objects WHERE cid = ?1")
            .and_then(|mut s| s.query_row(params![cid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional())
            .map_err(storage)?;
        let Some((format, bytes, created_at)) = row else {
            return Ok(None);
        };
        let format = SerializationFormat::parse(Some(&format))
            .map_err(|_| Error::storage(format!("stored value {cid} has an unknown format {format:?}")))?;
        Ok(Some(StoredObject { bytes, format, created_at }))
    }

    pub fn has_object(&self, cid: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM objects WHERE cid = ?1", cid)
    }
}
