//! The CID store on disk: values clients sent, by the SHA-512 of their bytes, written once.

use super::{values, Store};
use crate::cid_store::{SerializationFormat, StoredObject, VerifiedObject};
use crate::error::{Error, Result};

impl Store {
    /// Write-once: a CID already stored keeps its first bytes (equal by construction). Returns
    /// whether it was new.
    pub fn put_object(&self, verified: &VerifiedObject) -> Result<bool> {
        let VerifiedObject { cid, object } = verified;
        let inserted = self.execute(
            "INSERT INTO objects (cid, format, bytes, created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (cid) DO NOTHING",
            values![cid, object.format.as_str(), &object.bytes, object.created_at],
        )?;
        Ok(inserted == 1)
    }

    /// `cid` in lowercase, as stored.
    pub fn object(&self, cid: &str) -> Result<Option<StoredObject>> {
        let Some(row) = self.row("SELECT format, bytes, created_at FROM objects WHERE cid = ?1", values![cid])? else {
            return Ok(None);
        };
        let format = row.text(0)?;
        let format = SerializationFormat::parse(Some(&format))
            .map_err(|_| Error::storage(format!("stored value {cid} has an unknown format {format:?}")))?;
        Ok(Some(StoredObject { bytes: row.blob(1)?, format, created_at: row.real(2)? }))
    }

    pub fn has_object(&self, cid: &str) -> Result<bool> {
        self.exists("SELECT 1 FROM objects WHERE cid = ?1", cid)
    }
}
