//! Why `pickle.rs` reads and writes pickles itself instead of using `serde-pickle` (issue 15).
//!
//! Each test feeds the same pickle, made by CPython 3.11 (`pickle.dumps(v, protocol=4)`, or dill
//! 0.3.8 with `recurse=True` as Breakroom's client does), to `pickle::repr` and to serde-pickle 1.2
//! (a dev-dependency, only for these tests), and shows what a user would see from each. In short:
//! serde-pickle's `Value` sorts dicts, cannot hold a self-reference, turns bytearrays into bytes
//! and object instances into plain dicts, and its `Display` is Rust's `Debug`, not Python's repr;
//! its writer only knows protocols 2 and 3. What it does better, old protocols (0-2), Breakroom's
//! clients never send: they pickle with protocol 4.

use base64::Engine;
use breakroom_debugger::pickle;
use serde_json::json;

fn b64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

/// What Breakroom shows (before `display::pickled_text` swaps `None` for its placeholder).
fn ours(pickled: &str) -> Option<String> {
    pickle::repr(&b64(pickled))
}

/// What serde-pickle shows, with its default options.
fn theirs(pickled: &str) -> Result<String, String> {
    serde_pickle::value_from_slice(&b64(pickled), serde_pickle::DeOptions::new())
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

/// serde-pickle told to put `None` where it meets a global it does not know or a cycle.
fn theirs_lax(pickled: &str) -> String {
    let options = serde_pickle::DeOptions::new().replace_unresolved_globals().replace_recursive_structures();
    serde_pickle::value_from_slice(&b64(pickled), options).map(|v| v.to_string()).unwrap()
}

// {'b': 1, 'a': 2}
const DICT_B_A: &str = "gASVEQAAAAAAAAB9lCiMAWKUSwGMAWGUSwJ1Lg==";

#[test]
fn dicts_keep_their_insertion_order_which_serde_pickle_sorts() {
    assert_eq!(ours(DICT_B_A).as_deref(), Some("{'b': 1, 'a': 2}"));
    assert_eq!(theirs(DICT_B_A).as_deref(), Ok(r#"{"a": 2, "b": 1}"#));
    // Not only its Display: its Value is a BTreeMap, so the order is gone before any repr of ours
    // could be written from it.
    let Ok(serde_pickle::Value::Dict(map)) = serde_pickle::value_from_slice(&b64(DICT_B_A), Default::default()) else {
        panic!("a dict");
    };
    let keys: Vec<String> = map.keys().map(|k| k.to_string()).collect();
    assert_eq!(keys, [r#""a""#, r#""b""#]);
}

#[test]
fn recursive_structures_render_as_python_does_which_serde_pickle_cannot() {
    // rec = [1]; rec.append(rec)
    let list = "gASVCQAAAAAAAABdlChLAWgAZS4=";
    assert_eq!(ours(list).as_deref(), Some("[1, [...]]"));
    assert_eq!(theirs(list), Err("decoding error: recursive structure found".into()));
    assert_eq!(theirs_lax(list), "[1, None]", "a None that is not in the value");
    // d = {'k': 1}; d['self'] = d
    let dict = "gASVFAAAAAAAAAB9lCiMAWuUSwGMBHNlbGaUaAB1Lg==";
    assert_eq!(ours(dict).as_deref(), Some("{'k': 1, 'self': {...}}"));
    assert_eq!(theirs_lax(dict), r#"{"k": 1, "self": None}"#);
}

#[test]
fn shared_references_render_alike_in_both() {
    // s = [1, 2]; [s, s]: the second is a memo GET. No reason to keep pickle.rs here.
    let shared = "gASVDwAAAAAAAABdlChdlChLAUsCZWgBZS4=";
    assert_eq!(ours(shared).as_deref(), Some("[[1, 2], [1, 2]]"));
    assert_eq!(theirs(shared).as_deref(), Ok("[[1, 2], [1, 2]]"));
}

#[test]
fn objects_are_placeholders_where_serde_pickle_shows_a_plain_dict_or_none() {
    // @dataclass class Point: x: int; y: int -- Point(1, 2), pickled by reference.
    let point = "gASVKgAAAAAAAACMCF9fbWFpbl9flIwFUG9pbnSUk5QpgZR9lCiMAXiUSwGMAXmUSwJ1Yi4=";
    assert_eq!(ours(point), None);
    assert_eq!(theirs(point).as_deref(), Ok(r#"{"x": 1, "y": 2}"#), "looks like a dict, is a Point");
    // An instance of a class defined in a function, pickled by value with dill.
    let instance = "gASVrwEAAAAAAACMCmRpbGwuX2RpbGyUjAxfY3JlYXRlX3R5cGWUk5QoaACMCl9sb2FkX3R5cGWUk5SMBHR5cGWUhZRSlIwFTG9jYWyUaASMBm9iamVjdJSFlFKUhZR9lCiMCl9fbW9kdWxlX1+UjAhfX21haW5fX5SMCF9faW5pdF9flGgAjBBfY3JlYXRlX2Z1bmN0aW9ulJOUKGgAjAxfY3JlYXRlX2NvZGWUk5QoQwCUSwFLAEsASwFLAksDQxSXAGQBfABfAAAAAAAAAAAAZABTAJROSwOGlIwBdpSFlIwEc2VsZpSFlIwLL3RtcC9nZW4ucHmUaBCMDkxvY2FsLl9faW5pdF9flEsjQwyAAKARmAScBpgGmAaUaBUpKXSUUpR9lIwIX19uYW1lX1+UaA9zaBBOTnSUUpR9lH2UKIwPX19hbm5vdGF0aW9uc19flH2UjAxfX3F1YWxuYW1lX1+UaB11hpRijAdfX2RvY19flE6MDV9fc2xvdG5hbWVzX1+UXZR1dJRSlIwIYnVpbHRpbnOUjAdzZXRhdHRylJOUaC9oKWgIh5RSMCmBlH2UaBhLA3NiLg==";
    assert_eq!(ours(instance), None);
    assert_eq!(theirs(instance).as_deref(), Ok(r#"{"v": 3}"#));
    // dill.dumps(lambda x: x + 1)
    let function = "gASVzgAAAAAAAACMCmRpbGwuX2RpbGyUjBBfY3JlYXRlX2Z1bmN0aW9ulJOUKGgAjAxfY3JlYXRlX2NvZGWUk5QoQwCUSwFLAEsASwFLAksDQwyXAHwAZAF6AAAAUwCUTksBhpQpjAF4lIWUjAsvdG1wL2dlbi5weZSMCDxsYW1iZGE+lGgLSyFDCoAAoBGgUaEVgACUaAUpKXSUUpRjX19idWlsdGluX18KX19tYWluX18KaAtOTnSUUpR9lH2UjA9fX2Fubm90YXRpb25zX1+UfZRzhpRiLg==";
    assert_eq!(ours(function), None);
    assert_eq!(theirs(function).as_deref(), Ok(r#"({}, {"__annotations__": {}})"#));
    // datetime.date(2020, 1, 1): an error by default, a bare None when told to go on.
    let date = "gASVIAAAAAAAAACMCGRhdGV0aW1llIwEZGF0ZZSTlEMEB+QBAZSFlFKULg==";
    assert_eq!(ours(date), None);
    assert_eq!(theirs(date), Err("decoding error: unresolved global reference".into()));
    assert_eq!(theirs_lax(date), "None");
}

#[test]
fn bytearrays_stay_bytearrays_which_serde_pickle_reads_as_bytes() {
    // bytearray(b'ab'), protocol 5 (BYTEARRAY8).
    let protocol_5 = "gAWVDQAAAAAAAACWAgAAAAAAAABhYpQu";
    assert_eq!(ours(protocol_5).as_deref(), Some("bytearray(b'ab')"));
    assert_eq!(theirs(protocol_5).as_deref(), Ok("b[97, 98]"));
    // Protocol 4 pickles a bytearray as a call of builtins.bytearray, which pickle.rs does not
    // read (a placeholder); serde-pickle does, but as bytes.
    let protocol_4 = "gASVIwAAAAAAAACMCGJ1aWx0aW5zlIwJYnl0ZWFycmF5lJOUQwJhYpSFlFKULg==";
    assert_eq!(ours(protocol_4), None);
    assert_eq!(theirs(protocol_4).as_deref(), Ok("b[97, 98]"));
}

#[test]
fn plain_values_render_as_python_repr_which_serde_pickle_display_does_not() {
    // (pickle, Python's repr, serde-pickle's Display)
    let cases = [
        (
            "gASVJQAAAAAAAABdlCiMBGl0J3OUjANhImKUjAZhJ2IiYwqUjAIAf5SMAsOplGUu",
            r#"["it's", 'a"b', 'a\'b"c\n', '\x00\x7f', 'é']"#,
            r#"["it's", "a\"b", "a'b\"c\n", "\0\u{7f}", "é"]"#,
        ),
        ("gASVCAAAAAAAAABDBABhJ/+ULg==", r#"b"\x00a'\xff""#, "b[0, 97, 39, 255]"),
        (
            "gASVMgAAAAAAAABdlChHP/AAAAAAAABHRBWvHXi1jEBHPu91EE1VHWlHP7mZmZmZmZpHf/AAAAAAAABlLg==",
            "[1.0, 1e+20, 1.5e-05, 0.1, inf]",
            "[1, 100000000000000000000, 0.000015, 0.1, inf]",
        ),
        ("gASVBgAAAAAAAAAoSwGRlC4=", "frozenset({1})", "frozenset([1])"),
        ("gASVBQAAAAAAAABLAYWULg==", "(1,)", "(1, )"),
        ("gASVDAAAAAAAAACKCQAAAAAAAAAAQC4=", "1180591620717411303424", "1180591620717411303424"),
    ];
    for (pickled, python, serde_pickle) in cases {
        assert_eq!(ours(pickled).as_deref(), Some(python));
        assert_eq!(theirs(pickled).as_deref(), Ok(serde_pickle));
    }
}

#[test]
fn containers_read_from_any_binary_protocol() {
    // {'a': [1, 2.5, 'x'], 'b': (None, True), 'c': b'\x00'}
    let data = "gASVLAAAAAAAAAB9lCiMAWGUXZQoSwFHQAQAAAAAAACMAXiUZYwBYpROiIaUjAFjlEMBAJR1Lg==";
    assert_eq!(ours(data).as_deref(), Some(r"{'a': [1, 2.5, 'x'], 'b': (None, True), 'c': b'\x00'}"));
    // ({1, 2}, frozenset(), -300, 2**70)
    let data = "gASVHwAAAAAAAAAoj5QoSwFLApAokZRK1P7//4oJAAAAAAAAAABAdJQu";
    assert_eq!(ours(data).as_deref(), Some("({1, 2}, frozenset(), -300, 1180591620717411303424)"));
    // {'b': 1, 'a': 2} with protocols 5 and 2 (BINPUT memo, BINUNICODE).
    assert_eq!(ours("gAWVEQAAAAAAAAB9lCiMAWKUSwGMAWGUSwJ1Lg==").as_deref(), Some("{'b': 1, 'a': 2}"));
    assert_eq!(ours("gAJ9cQAoWAEAAABicQFLAVgBAAAAYXECSwJ1Lg==").as_deref(), Some("{'b': 1, 'a': 2}"));
    assert_eq!(pickle::repr(&[0x80, 4, b'K', 1, b'.']).as_deref(), Some("1"));
    assert_eq!(pickle::repr(&[0x80, 4, b'N', b'.']).as_deref(), Some("None"));
    assert_eq!(pickle::repr(&[0x80, 4, 0x88, b'.']).as_deref(), Some("True"));
}

#[test]
fn protocol_2_sets_are_placeholders_as_clients_send_protocol_4() {
    // {1, 2} with protocol 2 is `builtins.set([1, 2])`, a global pickle.rs does not read; the one
    // thing serde-pickle reads that pickle.rs does not. client/breakroom/protocol/serialize.py pickles
    // with protocol=4, where a set is EMPTY_SET + ADDITEMS.
    assert_eq!(ours("gAJjX19idWlsdGluX18Kc2V0CnEAXXEBKEsBSwJlhXECUnEDLg=="), None);
    assert_eq!(theirs("gAJjX19idWlsdGluX18Kc2V0CnEAXXEBKEsBSwJlhXECUnEDLg==").as_deref(), Ok("{1, 2}"));
}

#[test]
fn not_pickles_are_none() {
    assert_eq!(pickle::repr(b"garbage"), None);
    assert_eq!(pickle::repr(&[]), None);
    assert_eq!(pickle::repr(&[0x80, 4, b'K']), None);
}

#[test]
fn fake_results_are_cpython_protocol_4_bytes_which_serde_pickle_cannot_write() {
    // The server pickles a bare JSON fake result or argument itself (pause.rs) and sends its CID,
    // the SHA-512 of the bytes. Ours are CPython's `pickle.dumps(42, protocol=4)`, byte for byte.
    use base64::engine::general_purpose::STANDARD;
    assert_eq!(STANDARD.encode(pickle::from_json(&json!(42))), "gARLKi4=");
    // serde-pickle writes protocol 3 (or 2) only, and a 4-byte BININT: same value, other bytes,
    // another CID than the one the wire has always carried.
    let theirs = serde_pickle::to_vec(&json!(42), serde_pickle::SerOptions::new()).unwrap();
    assert_eq!(STANDARD.encode(&theirs), "gANKKgAAAC4=");
}

#[test]
fn json_values_round_trip_through_pickle() {
    let value = json!({"n": [1, -1, 300, -70000, 1u64 << 40, 2.5, null, true, "s"], "e": {}, "l": []});
    assert_eq!(
        pickle::repr(&pickle::from_json(&value)).as_deref(),
        Some("{'n': [1, -1, 300, -70000, 1099511627776, 2.5, None, True, 's'], 'e': {}, 'l': []}")
    );
    // Large unsigned and negative numbers take LONG1; strings of 256 bytes and more, BINUNICODE.
    let value = json!([u64::MAX, i64::MIN, "x".repeat(300)]);
    let text = pickle::repr(&pickle::from_json(&value)).unwrap();
    assert!(text.starts_with("[18446744073709551615, -9223372036854775808, 'xxx"), "{text}");
}
