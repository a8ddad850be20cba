//! Query-string values read into what the manager takes. They arrive as text (so that a bad
//! value gets a precise 400 instead of axum's generic one); blank means "not given".

use crate::error::ApiError;

fn given(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// A count (page, page size, limit): an integer from 0 up to the 64-bit range the API describes.
pub fn count(name: &str, value: Option<&str>) -> Result<Option<usize>, ApiError> {
    match given(value) {
        None => Ok(None),
        Some(v) => v.parse::<i64>().ok().filter(|n| *n >= 0).map(|n| Some(n as usize)).ok_or_else(|| {
            ApiError::bad_request(
                "invalid_pagination",
                format!("{name} must be an integer from 0 to {}, not {v:?}", i64::MAX),
            )
        }),
    }
}

/// A number a program sends about itself (its pid, start time, thread ident). Absent is not
/// given; present, even blank, it must be one.
pub fn number<T: std::str::FromStr>(name: &str, value: Option<&str>) -> Result<Option<T>, ApiError> {
    match value {
        None => Ok(None),
        Some(v) => v.trim().parse::<T>().map(Some).map_err(|_| {
            ApiError::bad_request("invalid_process_identity", format!("{name} must be a number, not {v:?}"))
        }),
    }
}

/// Epoch seconds.
pub fn timestamp(name: &str, value: Option<&str>) -> Result<Option<f64>, ApiError> {
    match given(value) {
        None => Ok(None),
        Some(v) => v.parse::<f64>().ok().filter(|f| f.is_finite()).map(Some).ok_or_else(|| {
            ApiError::bad_request("invalid_timestamp", format!("{name} must be epoch seconds, not {v:?}"))
        }),
    }
}

/// An event-log sequence number.
pub fn sequence(name: &str, value: Option<&str>) -> Result<Option<i64>, ApiError> {
    match given(value) {
        None => Ok(None),
        Some(v) => v
            .parse::<i64>()
            .map(Some)
            .map_err(|_| ApiError::bad_request("invalid_sequence", format!("{name} must be an integer, not {v:?}"))),
    }
}

/// Free text; blank is not given.
pub fn text(value: Option<String>) -> Option<String> {
    value.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_values_are_not_given() {
        assert_eq!(count("page", Some("  ")).unwrap(), None);
        assert_eq!(timestamp("from", None).unwrap(), None);
        assert_eq!(sequence("from_sequence", Some("")).unwrap(), None);
        assert_eq!(text(Some(" \t".into())), None);
    }

    #[test]
    fn counts_past_the_64_bit_range_are_refused() {
        assert_eq!(count("limit", Some("99999999999999999999999")).unwrap_err().code(), "invalid_pagination");
        assert_eq!(count("limit", Some("9223372036854775807")).unwrap(), Some(i64::MAX as usize));
        assert_eq!(count("limit", Some(" 7 ")).unwrap(), Some(7));
        assert_eq!(count("page", Some("-1")).unwrap_err().code(), "invalid_pagination");
    }

    #[test]
    fn a_program_s_numbers_must_be_numbers_when_given() {
        assert_eq!(number::<f64>("process_start_time", None).unwrap(), None);
        assert_eq!(number::<f64>("process_start_time", Some("1795331833.5")).unwrap(), Some(1795331833.5));
        assert_eq!(number::<f64>("process_start_time", Some("")).unwrap_err().code(), "invalid_process_identity");
        assert_eq!(number::<i64>("process_pid", Some("12x")).unwrap_err().code(), "invalid_process_identity");
    }

    #[test]
    fn timestamps_must_be_finite_seconds() {
        assert_eq!(timestamp("to", Some("1795331833.5")).unwrap(), Some(1795331833.5));
        assert_eq!(timestamp("to", Some("inf")).unwrap_err().code(), "invalid_timestamp");
        assert_eq!(sequence("from_sequence", Some("x")).unwrap_err().code(), "invalid_sequence");
    }
}
