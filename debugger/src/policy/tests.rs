use super::*;

fn rules(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn default_rules_compile() {
    let policy = Policy::new(true, &[], &[], &[]).expect("the defaults are valid");
    assert_eq!(policy.wire().names.len(), DEFAULT_NAMES.len());
    assert_eq!(policy.wire().values.len(), DEFAULT_VALUES.len());
    assert!(policy.wire().cards);
}

#[test]
fn names_match_case_insensitively_anywhere() {
    let policy = Policy::default();
    for name in ["password", "DB_PASSWORD", "userPassword", "api_key", "APIKEY", "session_id", "X-Auth-Token"] {
        assert!(policy.name_matches(name), "{name}");
    }
    for name in ["user", "count", "amount"] {
        assert!(!policy.name_matches(name), "{name}");
    }
}

#[test]
fn card_numbers_are_redacted_only_when_luhn_passes() {
    let policy = Policy::default();
    let (text, n) = policy.redact_text("paid with 4111 1111 1111 1111 on tuesday");
    assert_eq!(text, "paid with [redacted] on tuesday");
    assert_eq!(n, 1);
    let (text, n) = policy.redact_text("order 4111-1111-1111-1112 shipped");
    assert_eq!(text, "order 4111-1111-1111-1112 shipped");
    assert_eq!(n, 0);
    assert!(luhn("5500 0000 0000 0004"));
    assert!(!luhn("1234"));
}

#[test]
fn jwt_aws_key_pem_and_bearer_are_redacted_inside_text() {
    let policy = Policy::default();
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    let (text, _) = policy.redact_text(&format!("token was {jwt}!"));
    assert_eq!(text, "token was [redacted]!");
    let (text, _) = policy.redact_text("key AKIAIOSFODNN7EXAMPLE used");
    assert_eq!(text, "key [redacted] used");
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END RSA PRIVATE KEY-----";
    let (text, _) = policy.redact_text(&format!("a{pem}b"));
    assert_eq!(text, "a[redacted]b");
    let (text, _) = policy.redact_text("Authorization header: Bearer abc.def-123");
    assert!(!text.contains("abc.def-123"), "{text}");
}

#[test]
fn key_value_text_keeps_the_name_and_hides_the_value() {
    let policy = Policy::default();
    let (text, n) = policy.redact_text("DB_PASSWORD=hunter2 USER=bob");
    assert_eq!(text, "DB_PASSWORD=[redacted] USER=bob");
    assert_eq!(n, 1);
    let (text, _) = policy.redact_text("{'user': 'bob', 'api_key': 'k-123'}");
    assert_eq!(text, "{'user': 'bob', 'api_key': '[redacted]'}");
    let (text, _) = policy.redact_text("User(name='bob', password=\"pw\")");
    assert_eq!(text, "User(name='bob', password=\"[redacted]\")");
}

#[test]
fn user_rules_add_to_the_defaults_and_can_replace_them() {
    let policy = Policy::new(true, &rules(&["pin_code,otp"]), &rules(&[r"ORDER-\d+"]), &[]).expect("valid");
    assert!(policy.name_matches("card_PIN_CODE"));
    assert!(policy.name_matches("password"));
    assert_eq!(policy.redact_text("ORDER-42 done").0, "[redacted] done");
    let only_mine = Policy::new(false, &rules(&["pin"]), &[], &[]).expect("valid");
    assert!(!only_mine.name_matches("password"));
    assert_eq!(only_mine.redact_text("4111 1111 1111 1111").1, 0);
}

#[test]
fn rules_outside_the_shared_dialect_are_refused_naming_the_rule() {
    for bad in ["(?i)secret", "(?P<x>a)", "a(?=b)", "[unclosed"] {
        let err = Policy::new(true, &rules(&[bad]), &[], &[]).expect_err(bad);
        assert_eq!(err.code(), "invalid_rule");
        assert!(err.to_string().contains(bad), "{err}");
    }
    assert!(Policy::new(true, &[], &rules(&[r"(?:ab)+\d"]), &[]).is_ok());
}

#[test]
fn no_debug_globs_cross_slashes_and_module_names_cover_their_files() {
    let policy = Policy::new(true, &[], &[], &rules(&["*/vault/*", "myapp.auth"])).expect("valid");
    assert_eq!(policy.blocked("/srv/app/vault/keys.py"), Some("*/vault/*"));
    assert_eq!(policy.blocked("/srv/app/vault/deep/er.py"), Some("*/vault/*"));
    assert_eq!(policy.blocked("/srv/app/myapp/auth.py"), Some("myapp.auth"));
    assert_eq!(policy.blocked("/srv/app/myapp/auth/tokens.py"), Some("myapp.auth"));
    assert_eq!(policy.blocked("myapp.auth.tokens"), Some("myapp.auth"));
    assert_eq!(policy.blocked("/srv/app/myapp/authors.py"), None);
    let err = policy.check_location("/srv/app/vault/keys.py").expect_err("blocked");
    assert_eq!(err.code(), "blocked_location");
    assert!(err.to_string().contains("*/vault/*"));
}

#[test]
fn json_keeps_its_shape_and_loses_its_secrets() {
    let policy = Policy::default();
    let mut value = serde_json::json!({"expr": "charge('4111 1111 1111 1111')", "password": "pw", "n": 3, "list": ["AKIAIOSFODNN7EXAMPLE"]});
    assert_eq!(policy.redact_json(&mut value), 3);
    assert_eq!(
        value,
        serde_json::json!({"expr": "charge('[redacted]')", "password": "[redacted]", "n": 3, "list": ["[redacted]"]})
    );
}

#[test]
fn every_default_value_rule_has_its_hints() {
    assert_eq!(DEFAULT_HINTS.len(), DEFAULT_VALUES.len());
    // A hint the rule's own match must contain, else the rule would be skipped where it matches.
    let samples = [
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
        "AKIAIOSFODNN7EXAMPLE",
        "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----",
        "Bearer abc.def",
    ];
    let policy = Policy::default();
    for sample in samples {
        assert_eq!(policy.redact_text(sample).0, REDACTED, "{sample}");
    }
}

#[test]
fn commas_separate_rules_but_not_inside_a_repetition_or_a_class() {
    let given = vec![r"pin_code, otp".to_string(), r"ORDER-\d{6,8},[a,b]x,a\,b".to_string()];
    assert_eq!(split_rules(&given), vec!["pin_code", "otp", r"ORDER-\d{6,8}", "[a,b]x", r"a\,b"]);
}
