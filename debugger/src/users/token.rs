//! Tokens: 256 random bits from the operating system, URL-safe, and the SHA-256 that is kept.

use base64::Engine;
use sha2::{Digest, Sha256};

pub type TokenHash = [u8; 32];

/// Tokens start with this, so that secret scanners and people can tell one when they see it.
pub const PREFIX: &str = "brk_";

/// A new token: `brk_` and 43 URL-safe characters (32 bytes from the OS's random source).
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    // The OS random source failing is no state to hand out credentials in.
    getrandom::fill(&mut bytes).expect("the operating system's random source works");
    format!("{PREFIX}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// What is stored and compared: a token is random, so a fast hash is enough (a slow password
/// hash would cost milliseconds on every request and buy nothing).
pub fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_url_safe_and_different() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), PREFIX.len() + 43);
        assert!(a[PREFIX.len()..].chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'), "{a}");
        assert_ne!(hash_token(&a), hash_token(&b));
    }
}
