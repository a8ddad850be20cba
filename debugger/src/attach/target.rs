//! Reading a local process without stopping it: which Python it runs (`Py_Version`), where the
//! interpreter's and libc's functions are loaded (the ELF dynamic symbol tables of its mapped
//! files: no debug symbols needed), and its owner and command line.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::PathBuf;

use object::{Object, ObjectSegment, ObjectSymbol};

/// The functions and data an attach uses, with their addresses in the target.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    pub gil_ensure: Option<u64>,
    pub gil_release: Option<u64>,
    pub run_simple_string: Option<u64>,
    pub add_pending_call: Option<u64>,
    /// `Py_Version` (3.11+): PY_VERSION_HEX as an `unsigned long`.
    pub py_version: Option<u64>,
    /// `_PyRuntime` and its size: the main interpreter's GIL lives inside it (3.11–3.13), so a
    /// futex wait there is a wait for the GIL.
    pub runtime: Option<(u64, u64)>,
    pub mmap: Option<u64>,
    pub munmap: Option<u64>,
}

const WANTED: &[&str] = &[
    "PyGILState_Ensure",
    "PyGILState_Release",
    "PyRun_SimpleString",
    "Py_AddPendingCall",
    "Py_Version",
    "_PyRuntime",
    "mmap",
    "munmap",
];

impl Symbols {
    fn note(&mut self, name: &str, address: u64, size: u64) {
        let slot = match name {
            "PyGILState_Ensure" => &mut self.gil_ensure,
            "PyGILState_Release" => &mut self.gil_release,
            "PyRun_SimpleString" => &mut self.run_simple_string,
            "Py_AddPendingCall" => &mut self.add_pending_call,
            "Py_Version" => &mut self.py_version,
            "mmap" => &mut self.mmap,
            "munmap" => &mut self.munmap,
            "_PyRuntime" => {
                self.runtime.get_or_insert((address, size));
                return;
            }
            _ => return,
        };
        slot.get_or_insert(address);
    }

    /// Whether this is a Python interpreter at all.
    pub fn is_python(&self) -> bool {
        self.run_simple_string.is_some() && self.gil_ensure.is_some()
    }
}

/// One file mapped into the target, where its first byte is loaded.
struct Mapped {
    path: String,
    /// Address of the mapping of file offset 0.
    start: u64,
}

/// The files a Python process has mapped that can hold the interpreter or libc: the executable,
/// `libpython3.*`, and `libc.so.6` (each once, at its offset-0 mapping).
fn mapped_files(pid: i32) -> std::io::Result<Vec<Mapped>> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let mut found: Vec<Mapped> = vec![];
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(_perms), Some(offset), Some(_dev), Some(_inode)) =
            (fields.next(), fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let path = fields.collect::<Vec<_>>().join(" ");
        if !path.starts_with('/') || offset.trim_start_matches('0') != "" {
            continue;
        }
        let name = path.rsplit('/').next().unwrap_or("");
        let wanted = name.starts_with("libpython3") || name.starts_with("libc.so") || name.starts_with("python");
        if !wanted || found.iter().any(|m| m.path == path) {
            continue;
        }
        let Some(start) = range.split('-').next().and_then(|s| u64::from_str_radix(s, 16).ok()) else { continue };
        found.push(Mapped { path, start });
    }
    Ok(found)
}

/// Parsed symbol tables, per file (by device and inode): listing many processes of the same
/// Python reads its ELF once.
type SymbolCache = HashMap<(u64, u64), Vec<(String, u64, u64)>>;

fn symbol_cache() -> &'static std::sync::Mutex<SymbolCache> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<SymbolCache>> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The wanted dynamic symbols of one file, as offsets from its load address (value minus the
/// vaddr of its first segment), with sizes.
fn file_symbols(path: &PathBuf) -> Option<Vec<(String, u64, u64)>> {
    let file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    let key = (meta.dev(), meta.ino());
    if let Some(found) = symbol_cache().lock().ok()?.get(&key) {
        return Some(found.clone());
    }
    // Read in pieces as the parser asks: a libpython is tens of megabytes, its tables are not.
    let cache = object::read::ReadCache::new(file);
    let elf = object::File::parse(&cache).ok()?;
    let first_vaddr = elf.segments().filter(|s| s.file_range().0 == 0).map(|s| s.address()).min().unwrap_or(0) & !0xfff;
    let symbols: Vec<(String, u64, u64)> = elf
        .dynamic_symbols()
        .filter(|s| s.is_definition())
        .filter_map(|s| {
            let name = s.name().ok()?;
            WANTED.contains(&name).then(|| (name.to_string(), s.address().wrapping_sub(first_vaddr), s.size()))
        })
        .collect();
    if let Ok(mut cache) = symbol_cache().lock() {
        cache.insert(key, symbols.clone());
    }
    Some(symbols)
}

/// Where the interpreter's entry points and libc's `mmap` are in the target. Files are read
/// through `/proc/{pid}/root`, so a process in a container is read from its own filesystem.
pub fn symbols(pid: i32) -> std::io::Result<Symbols> {
    let mut found = Symbols::default();
    for mapped in mapped_files(pid)? {
        let path = PathBuf::from(format!("/proc/{pid}/root{}", mapped.path));
        let Some(symbols) = file_symbols(&path) else { continue };
        for (name, offset, size) in symbols {
            found.note(&name, mapped.start.wrapping_add(offset), size);
        }
    }
    Ok(found)
}

/// Reads `len` bytes of the target's memory (no stop needed; the same permission as ptrace).
pub fn read_memory(pid: i32, address: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mem = File::open(format!("/proc/{pid}/mem"))?;
    let mut buf = vec![0u8; len];
    mem.read_exact_at(&mut buf, address)?;
    Ok(buf)
}

/// A Python version as `Py_Version` holds it (PY_VERSION_HEX).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PythonVersion {
    pub major: u8,
    pub minor: u8,
    pub micro: u8,
}

impl PythonVersion {
    pub fn from_hex(hex: u64) -> Self {
        PythonVersion { major: (hex >> 24) as u8, minor: (hex >> 16) as u8, micro: (hex >> 8) as u8 }
    }
}

impl std::fmt::Display for PythonVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.micro)
    }
}

/// The running interpreter's version, read from its `Py_Version` without stopping it.
pub fn python_version(pid: i32, symbols: &Symbols) -> Option<PythonVersion> {
    let bytes = read_memory(pid, symbols.py_version?, 8).ok()?;
    let hex = u64::from_le_bytes(bytes.try_into().ok()?);
    Some(PythonVersion::from_hex(hex)).filter(|v| v.major == 3)
}

/// The version named by the interpreter's file (`python3.10`, `libpython3.9.so`), for Pythons
/// older than `Py_Version`.
pub fn version_from_files(pid: i32) -> Option<String> {
    let files = mapped_files(pid).ok()?;
    files.iter().find_map(|m| {
        let name = m.path.rsplit('/').next()?;
        let rest = name.strip_prefix("libpython").or_else(|| name.strip_prefix("python"))?;
        let version: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let version = version.trim_end_matches('.').to_string();
        version.contains('.').then_some(version)
    })
}

/// The command line (`/proc/{pid}/cmdline`, readable for every process).
pub fn argv(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|b| *b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into_owned()).collect()
        })
        .unwrap_or_default()
}

/// The real uid of the process.
pub fn uid(pid: i32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub fn user_name(uid: u32) -> String {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map(|u| u.name)
        .unwrap_or_else(|| uid.to_string())
}

/// Where the main thread is, in words: for an attach that timed out.
pub fn main_thread_whereabouts(pid: i32) -> String {
    let syscall = std::fs::read_to_string(format!("/proc/{pid}/syscall")).unwrap_or_default();
    let wchan = std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_default();
    let first = syscall.split_whitespace().next().unwrap_or("");
    match first {
        "running" => "the main thread is running machine code (a long C call, or a call that holds the GIL): \
                      the client starts when it returns to Python code"
            .to_string(),
        "" => "where the main thread is could not be read".to_string(),
        nr => {
            let name = super::inject::syscall_name(nr.parse().unwrap_or(-1));
            let wchan = if wchan.is_empty() || wchan == "0" { String::new() } else { format!(", in {wchan}") };
            format!("the main thread is blocked in the system call {name}{wchan}")
        }
    }
}
