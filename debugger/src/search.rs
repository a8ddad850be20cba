//! What a `/repls` search looks in and how a term matches: the session's function name and every
//! input, output and printed text of its transcript, lowercased, matched as a substring inside
//! one field. Closed sessions are searched through SQLite's trigram index, or PostgreSQL's
//! (`sessions::store`),
//! open ones in memory (`session.rs`); both use the text built here, so they agree.

use crate::model::{ReplSession, TranscriptEntry};

/// Between fields, so that a match stays inside one. A term containing it matches nothing.
const FIELD_SEPARATOR: char = '\u{1f}';

/// The trigram index answers terms of at least this many characters; shorter ones are answered
/// by the index of each session's one- and two-character grams.
const TRIGRAM: usize = 3;

/// A session's searchable text, lowercased once.
#[derive(Clone, Debug, Default)]
pub struct SearchText(String);

impl SearchText {
    pub fn new(function_name: &str) -> Self {
        SearchText(function_name.to_lowercase())
    }

    pub fn of(session: &ReplSession) -> Self {
        let mut text = SearchText::new(&session.function_name);
        for entry in &session.transcript {
            text.push_entry(entry);
        }
        text
    }

    pub fn push_entry(&mut self, entry: &TranscriptEntry) {
        for field in [&entry.input, &entry.output, &entry.stdout] {
            self.0.push(FIELD_SEPARATOR);
            self.0.push_str(&field.to_lowercase());
        }
    }

    /// A text read back from the search index, already lowercased and joined.
    pub(crate) fn from_indexed(text: String) -> Self {
        SearchText(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Every distinct one- and two-character substring inside a field, as index tokens
    /// ([`short_gram_token`]): the document that answers terms the trigram index cannot.
    pub fn short_grams(&self) -> String {
        let mut grams = std::collections::BTreeSet::new();
        for field in self.0.split(FIELD_SEPARATOR) {
            let mut previous: Option<char> = None;
            for c in field.chars() {
                grams.insert(short_gram_token(&[c]));
                if let Some(p) = previous {
                    grams.insert(short_gram_token(&[p, c]));
                }
                previous = Some(c);
            }
        }
        grams.into_iter().collect::<Vec<_>>().join(" ")
    }

    pub fn contains(&self, needle: &Needle) -> bool {
        needle.can_match() && memchr::memmem::find(self.0.as_bytes(), needle.0.as_bytes()).is_some()
    }
}

/// A search term, trimmed and lowercased.
#[derive(Clone, Debug, PartialEq)]
pub struct Needle(String);

impl Needle {
    /// None when there is nothing to search for (no term, or only blanks).
    pub fn parse(search: Option<&str>) -> Option<Needle> {
        search.map(str::trim).filter(|s| !s.is_empty()).map(|s| Needle(s.to_lowercase()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// False for a term that spans fields: it cannot match anything.
    pub fn can_match(&self) -> bool {
        !self.0.contains(FIELD_SEPARATOR)
    }

    /// Whether the trigram index can answer this term (shorter terms use the short-gram index).
    pub fn uses_index(&self) -> bool {
        self.0.chars().count() >= TRIGRAM
    }

    /// For a term the trigram index cannot answer: its token in the short-gram index.
    pub fn short_gram_phrase(&self) -> String {
        format!("\"{}\"", short_gram_token(&self.0.chars().collect::<Vec<_>>()))
    }

    /// The term as a `LIKE` pattern matching it anywhere (PostgreSQL's search, with pg_trgm).
    pub fn like_pattern(&self) -> String {
        let mut pattern = String::from("%");
        for c in self.0.chars() {
            if matches!(c, '\\' | '%' | '_') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('%');
        pattern
    }

    /// The term as an FTS5 phrase: with the trigram tokenizer, a substring match.
    pub fn fts_phrase(&self) -> String {
        format!("\"{}\"", self.0.replace('"', "\"\""))
    }
}

/// One or two characters as a single ASCII token (`g` and the hex of their UTF-8 bytes), so any
/// text, punctuation and spaces included, survives FTS5's `ascii` tokenizer intact.
fn short_gram_token(chars: &[char]) -> String {
    let mut token = String::from("g");
    for c in chars {
        let mut buf = [0u8; 4];
        for byte in c.encode_utf8(&mut buf).as_bytes() {
            token.push_str(&format!("{byte:02x}"));
        }
    }
    token
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(input: &str, output: &str) -> TranscriptEntry {
        TranscriptEntry {
            index: 0,
            input: input.into(),
            output: output.into(),
            stdout: String::new(),
            is_error: false,
            result_cid: None,
            timestamp: 0.0,
            outputs: vec![],
        }
    }

    #[test]
    fn a_term_matches_inside_one_field_whatever_its_case() {
        let mut text = SearchText::new("Compute_Total");
        text.push_entry(&entry("Order.Items", "42"));
        let found = |term: &str| text.contains(&Needle::parse(Some(term)).unwrap());
        assert!(found("compute_t"));
        assert!(found("  ITEMS "));
        assert!(!found("items42"), "fields are separate");
        assert!(Needle::parse(Some("   ")).is_none());
    }

    #[test]
    fn short_terms_are_found_through_the_grams_of_one_field() {
        let mut text = SearchText::new("f");
        text.push_entry(&entry("ab = 9", "é"));
        let grams = text.short_grams();
        let has = |term: &str| {
            let phrase = Needle::parse(Some(term)).unwrap().short_gram_phrase();
            grams.split(' ').any(|g| format!("\"{g}\"") == phrase)
        };
        assert!(has("9") && has("ab") && has(" = ") && has("É") && has("f"));
        assert!(!has("9é"), "a gram never spans two fields");
        assert!(!has("ba") && !has("a9"));
    }

    #[test]
    fn short_terms_skip_the_trigram_index_and_quotes_are_escaped_for_the_index() {
        assert!(!Needle::parse(Some("ab")).unwrap().uses_index());
        assert!(Needle::parse(Some("abc")).unwrap().uses_index());
        assert_eq!(Needle::parse(Some("say \"hi\"")).unwrap().fts_phrase(), "\"say \"\"hi\"\"\"");
    }
}
