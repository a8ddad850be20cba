//! JSON as the browser reads it: the browser's own parser turns a reply or a live event into
//! objects, and these read them by key. Not serde: its error messages format floats, and that
//! alone was some 17 KB of wasm before compression. The live stream reads its events with these
//! too, so they are in the part of the wasm every page has, not in chunks a few pages share.

use js_sys::{Array, Reflect, JSON};
use wasm_bindgen::JsValue;

/// What can be read from a parsed JSON value.
pub trait FromJs: Sized {
    fn from_js(value: &JsValue) -> Option<Self>;
}

/// The value JSON `text` stands for.
pub fn parse<T: FromJs>(text: &str) -> Option<T> {
    T::from_js(&JSON::parse(text).ok()?)
}

/// The field `key` of `object`; None when it is missing or null.
pub fn get(object: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(object, &key.into()).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

pub fn string(object: &JsValue, key: &str) -> Option<String> {
    get(object, key)?.as_string()
}

pub fn number(object: &JsValue, key: &str) -> Option<f64> {
    get(object, key)?.as_f64()
}

pub fn whole(object: &JsValue, key: &str) -> Option<u64> {
    number(object, key).filter(|n| *n >= 0.0).map(|n| n as u64)
}

pub fn yes(object: &JsValue, key: &str) -> Option<bool> {
    get(object, key)?.as_bool()
}

pub fn list(object: &JsValue, key: &str) -> Vec<JsValue> {
    get(object, key).filter(Array::is_array).map(|a| Array::from(&a).to_vec()).unwrap_or_default()
}

/// Every value of the list `key`, read as `T`; None when one is not.
pub fn all<T: FromJs>(object: &JsValue, key: &str) -> Option<Vec<T>> {
    list(object, key).iter().map(T::from_js).collect()
}

pub fn strings(values: Vec<JsValue>) -> Vec<String> {
    values.iter().filter_map(JsValue::as_string).collect()
}

impl<T: FromJs> FromJs for Option<T> {
    fn from_js(value: &JsValue) -> Option<Self> {
        if value.is_null() {
            Some(None)
        } else {
            T::from_js(value).map(Some)
        }
    }
}
