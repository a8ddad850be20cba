//! Just enough pickle to show and make plain values.
//!
//! [`repr`] reads pickles of None, bools, ints, floats, str, bytes, lists, tuples, dicts, sets,
//! frozensets and protocol 5's bytearrays (binary opcodes, memo included) and renders them as
//! Python's `repr` does. Anything else (classes, functions, dill's by-value objects, calls such as
//! protocol 4's `bytearray(...)`) is `None`: callers show a placeholder. [`from_json`] writes a
//! protocol-4 pickle of a JSON value, for values the server sends to a client (fake results, args).
//!
//! Why not the `serde-pickle` crate (tests/pickles.rs shows each point on CPython-made pickles):
//! its `Value` sorts dict keys, reads a bytearray as bytes, refuses a self-referencing list or
//! dict (or puts `None` in it), and reads an object as a plain dict of its state, so
//! `Point(x=1, y=2)` would show as `{"x": 1, "y": 2}` instead of a placeholder; its `Display` is
//! not Python's repr; and it writes protocols 2 and 3 only, which would change the bytes and CIDs
//! the server sends. What it reads and this does not (protocols 0 and 1, builtins called by
//! REDUCE such as protocol 2's sets) Breakroom's clients do not send, bytearrays aside.

use std::collections::HashMap;

use serde_json::Value;

/// A value node; containers refer to other nodes by index, so shared and self-referencing
/// objects come out as Python would show them.
#[derive(Clone, Debug)]
enum Node {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>, bool),
    List(Vec<usize>),
    Tuple(Vec<usize>),
    Dict(Vec<(usize, usize)>),
    Set(Vec<usize>, bool),
    Mark,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    nodes: Vec<Node>,
    stack: Vec<usize>,
    memo: HashMap<u32, usize>,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let slice = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(slice)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u32le(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64le(&mut self) -> Option<usize> {
        let b = self.take(8)?;
        usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok()
    }

    fn push(&mut self, node: Node) {
        self.nodes.push(node);
        self.stack.push(self.nodes.len() - 1);
    }

    fn pop(&mut self) -> Option<usize> {
        self.stack.pop()
    }

    /// Everything above the topmost mark, which is removed.
    fn pop_mark(&mut self) -> Option<Vec<usize>> {
        let at = self.stack.iter().rposition(|&i| matches!(self.nodes[i], Node::Mark))?;
        let items = self.stack.split_off(at + 1);
        self.stack.pop();
        Some(items)
    }

    fn top(&self) -> Option<usize> {
        self.stack.last().copied()
    }

    fn string(&mut self, len: usize) -> Option<()> {
        let bytes = self.take(len)?;
        self.push(Node::Str(String::from_utf8_lossy(bytes).into_owned()));
        Some(())
    }

    fn bytes(&mut self, len: usize, mutable: bool) -> Option<()> {
        let bytes = self.take(len)?.to_vec();
        self.push(Node::Bytes(bytes, mutable));
        Some(())
    }

    fn long(&mut self, len: usize) -> Option<()> {
        let bytes = self.take(len)?;
        if bytes.len() > 16 {
            return None;
        }
        let negative = bytes.last().is_some_and(|b| b & 0x80 != 0);
        let mut buf = [if negative { 0xff } else { 0 }; 16];
        buf[..bytes.len()].copy_from_slice(bytes);
        self.push(Node::Int(i128::from_le_bytes(buf)));
        Some(())
    }

    fn extend(&mut self, container: usize, items: Vec<usize>) -> Option<()> {
        match &mut self.nodes[container] {
            Node::List(list) => list.extend(items),
            Node::Set(set, false) => set.extend(items),
            _ => return None,
        }
        Some(())
    }

    fn set_items(&mut self, dict: usize, items: Vec<usize>) -> Option<()> {
        if !items.len().is_multiple_of(2) {
            return None;
        }
        let Node::Dict(pairs) = &mut self.nodes[dict] else {
            return None;
        };
        for pair in items.chunks(2) {
            pairs.push((pair[0], pair[1]));
        }
        Some(())
    }

    fn run(&mut self) -> Option<usize> {
        loop {
            let op = self.byte()?;
            match op {
                0x80 => {
                    self.byte()?;
                } // PROTO
                0x95 => {
                    self.take(8)?;
                } // FRAME
                b'.' => return self.pop(), // STOP
                b'N' => self.push(Node::None),
                0x88 => self.push(Node::Bool(true)),
                0x89 => self.push(Node::Bool(false)),
                b'K' => {
                    let v = self.byte()?;
                    self.push(Node::Int(v.into()));
                }
                b'M' => {
                    let b = self.take(2)?;
                    self.push(Node::Int(u16::from_le_bytes([b[0], b[1]]).into()));
                }
                b'J' => {
                    let b = self.take(4)?;
                    self.push(Node::Int(i32::from_le_bytes([b[0], b[1], b[2], b[3]]).into()));
                }
                0x8a => {
                    let n = self.byte()?;
                    self.long(n.into())?;
                }
                0x8b => {
                    let n = self.u32le()?;
                    self.long(n as usize)?;
                }
                b'G' => {
                    let b = self.take(8)?;
                    self.push(Node::Float(f64::from_be_bytes(b.try_into().ok()?)));
                }
                0x8c => {
                    let n = self.byte()?;
                    self.string(n.into())?;
                }
                b'X' => {
                    let n = self.u32le()?;
                    self.string(n as usize)?;
                }
                0x8d => {
                    let n = self.u64le()?;
                    self.string(n)?;
                }
                b'C' => {
                    let n = self.byte()?;
                    self.bytes(n.into(), false)?;
                }
                b'B' => {
                    let n = self.u32le()?;
                    self.bytes(n as usize, false)?;
                }
                0x8e => {
                    let n = self.u64le()?;
                    self.bytes(n, false)?;
                }
                0x96 => {
                    let n = self.u64le()?;
                    self.bytes(n, true)?;
                }
                b']' => self.push(Node::List(vec![])),
                b')' => self.push(Node::Tuple(vec![])),
                b'}' => self.push(Node::Dict(vec![])),
                0x8f => self.push(Node::Set(vec![], false)),
                b'(' => self.push(Node::Mark),
                b'a' => {
                    let item = self.pop()?;
                    let list = self.top()?;
                    self.extend(list, vec![item])?;
                }
                b'e' | 0x90 => {
                    let items = self.pop_mark()?;
                    let container = self.top()?;
                    self.extend(container, items)?;
                }
                b's' => {
                    let value = self.pop()?;
                    let key = self.pop()?;
                    let dict = self.top()?;
                    self.set_items(dict, vec![key, value])?;
                }
                b'u' => {
                    let items = self.pop_mark()?;
                    let dict = self.top()?;
                    self.set_items(dict, items)?;
                }
                b't' => {
                    let items = self.pop_mark()?;
                    self.push(Node::Tuple(items));
                }
                0x85..=0x87 => {
                    let n = usize::from(op - 0x84);
                    if self.stack.len() < n {
                        return None;
                    }
                    let items = self.stack.split_off(self.stack.len() - n);
                    self.push(Node::Tuple(items));
                }
                0x91 => {
                    let items = self.pop_mark()?;
                    self.push(Node::Set(items, true));
                }
                0x94 => {
                    let top = self.top()?;
                    let key = self.memo.len() as u32;
                    self.memo.insert(key, top);
                }
                b'q' => {
                    let key = self.byte()?.into();
                    let top = self.top()?;
                    self.memo.insert(key, top);
                }
                b'r' => {
                    let key = self.u32le()?;
                    let top = self.top()?;
                    self.memo.insert(key, top);
                }
                b'h' => {
                    let key: u32 = self.byte()?.into();
                    let node = *self.memo.get(&key)?;
                    self.stack.push(node);
                }
                b'j' => {
                    let key = self.u32le()?;
                    let node = *self.memo.get(&key)?;
                    self.stack.push(node);
                }
                // Globals, reduce, build, persistent ids...: not a plain value.
                _ => return None,
            }
        }
    }
}

/// Python's `repr` of a plain pickled value, or `None` when the pickle holds anything else.
pub fn repr(data: &[u8]) -> Option<String> {
    let mut reader = Reader { data, pos: 0, nodes: vec![], stack: vec![], memo: HashMap::new() };
    let root = reader.run()?;
    let mut out = String::new();
    let mut active = vec![];
    write_repr(&reader.nodes, root, &mut active, &mut out);
    Some(out)
}

fn write_repr(nodes: &[Node], at: usize, active: &mut Vec<usize>, out: &mut String) {
    let container = matches!(nodes[at], Node::List(_) | Node::Dict(_) | Node::Set(..) | Node::Tuple(_));
    if container && active.contains(&at) {
        out.push_str(match nodes[at] {
            Node::Dict(_) => "{...}",
            _ => "[...]",
        });
        return;
    }
    if out.len() > 100_000 {
        out.push('…');
        return;
    }
    active.push(at);
    let seq = |items: &[usize], active: &mut Vec<usize>, out: &mut String| {
        for (i, &item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_repr(nodes, item, active, out);
        }
    };
    match &nodes[at] {
        Node::None => out.push_str("None"),
        Node::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Node::Int(i) => out.push_str(&i.to_string()),
        Node::Float(f) => out.push_str(&float_repr(*f)),
        Node::Str(s) => out.push_str(&str_repr(s)),
        Node::Bytes(b, mutable) => {
            if *mutable {
                out.push_str("bytearray(");
            }
            out.push_str(&bytes_repr(b));
            if *mutable {
                out.push(')');
            }
        }
        Node::List(items) => {
            out.push('[');
            seq(items, active, out);
            out.push(']');
        }
        Node::Tuple(items) => {
            out.push('(');
            seq(items, active, out);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Node::Dict(pairs) => {
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(nodes, *k, active, out);
                out.push_str(": ");
                write_repr(nodes, *v, active, out);
            }
            out.push('}');
        }
        Node::Set(items, frozen) => match (items.is_empty(), frozen) {
            (true, false) => out.push_str("set()"),
            (true, true) => out.push_str("frozenset()"),
            (false, frozen) => {
                out.push_str(if *frozen { "frozenset({" } else { "{" });
                seq(items, active, out);
                out.push_str(if *frozen { "})" } else { "}" });
            }
        },
        Node::Mark => out.push_str("<mark>"),
    }
    active.pop();
}

fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-4..1e16).contains(&abs) {
        // Python switches to exponent form outside [1e-4, 1e16): 1e+16, 1.5e-05.
        let text = format!("{f:e}");
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        return format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    format!("{f:?}")
}

/// A str as Python's `repr` writes it (also how the client compiles a logpoint's f-string).
pub(crate) fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') { b'"' } else { b'\'' };
    let mut out = String::from("b");
    out.push(quote as char);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote as char);
    out
}

/// A protocol-4 pickle of a JSON value: null, booleans, numbers, strings, arrays (as lists) and
/// objects (as dicts). Loads with pickle and with dill.
pub fn from_json(value: &Value) -> Vec<u8> {
    let mut out = vec![0x80, 4];
    write_json(value, &mut out);
    out.push(b'.');
    out
}

fn write_json(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(b'N'),
        Value::Bool(true) => out.push(0x88),
        Value::Bool(false) => out.push(0x89),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                write_int(i.into(), out);
            } else if let Some(u) = n.as_u64() {
                write_int(u.into(), out);
            } else {
                out.push(b'G');
                out.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_be_bytes());
            }
        }
        Value::String(s) => {
            if s.len() < 256 {
                out.push(0x8c);
                out.push(s.len() as u8);
            } else {
                out.push(b'X');
                out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            }
            out.extend_from_slice(s.as_bytes());
        }
        Value::Array(items) => {
            out.push(b']');
            if !items.is_empty() {
                out.push(b'(');
                items.iter().for_each(|i| write_json(i, out));
                out.push(b'e');
            }
        }
        Value::Object(map) => {
            out.push(b'}');
            if !map.is_empty() {
                out.push(b'(');
                for (k, v) in map {
                    write_json(&Value::String(k.clone()), out);
                    write_json(v, out);
                }
                out.push(b'u');
            }
        }
    }
}

fn write_int(i: i128, out: &mut Vec<u8>) {
    if (0..256).contains(&i) {
        out.extend_from_slice(&[b'K', i as u8]);
    } else if (i128::from(i32::MIN)..=i128::from(i32::MAX)).contains(&i) {
        out.push(b'J');
        out.extend_from_slice(&(i as i32).to_le_bytes());
    } else {
        // LONG1: the shortest little-endian two's complement.
        let bytes = i.to_le_bytes();
        let mut len = 16;
        while len > 1 {
            let (last, prev) = (bytes[len - 1], bytes[len - 2]);
            if (last == 0 && prev & 0x80 == 0) || (last == 0xff && prev & 0x80 != 0) {
                len -= 1;
            } else {
                break;
            }
        }
        out.extend_from_slice(&[0x8a, len as u8]);
        out.extend_from_slice(&bytes[..len]);
    }
}
