//! Running a line of Python in another process (x86-64 Linux, CPython 3.11–3.13), with ptrace.
//!
//! Only the main thread is seized and interrupted; the program's other threads run on. Its
//! registers, and the whole extended register area at the size the kernel reports (gdb writes
//! a smaller one and fails on AMX machines), are saved and put back exactly. Then one of two
//! routes, chosen for safety:
//! - **blocked in a system call** (sleep, read, a lock, epoll, select…): it is in no
//!   allocator or interpreter code, so `PyGILState_Ensure` → `PyRun_SimpleString` →
//!   `PyGILState_Release` run on it directly, and the call is restarted as if nothing happened
//!   (a sleep keeps its deadline: the kernel restarts it with the time left);
//! - **anywhere else** (running bytecode, inside malloc, a long C call, or waiting for the GIL
//!   itself): only `Py_AddPendingCall(PyRun_SimpleString, code)` is called, which queues the code
//!   for the interpreter's next bytecode boundary. Calling into the interpreter from arbitrary
//!   code is what kills malloc-heavy programs under debugpy and pyrasite.
//!
//! The code run is a fixed wrapper whose body is inside `try/except BaseException`: a pending
//! call that raises kills the process on 3.11–3.13.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::ptrace;
use nix::sys::signal::Signal;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use super::target::Symbols;

/// How the code reached the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Run at once on the main thread, which was blocked in a system call.
    OnBlockedThread,
    /// Queued with `Py_AddPendingCall`: runs at the main thread's next bytecode boundary.
    PendingCall,
}

#[derive(Debug)]
pub enum InjectError {
    /// The process is gone (or was never there).
    NoProcess,
    /// ptrace refused: the reason to show is worked out by the caller.
    Denied(Errno),
    /// The interpreter lacks an entry point this needs.
    MissingSymbol(&'static str),
    /// Something failed on the way; the process was left as it was when possible.
    Failed(String),
}

/// System calls that block and leave the thread outside any library's critical section.
const BLOCKING: &[(i64, &str)] = &[
    (0, "read"),
    (7, "poll"),
    (23, "select"),
    (34, "pause"),
    (35, "nanosleep"),
    (43, "accept"),
    (45, "recvfrom"),
    (47, "recvmsg"),
    (61, "wait4"),
    (128, "rt_sigtimedwait"),
    (130, "rt_sigsuspend"),
    (202, "futex"),
    (230, "clock_nanosleep"),
    (232, "epoll_wait"),
    (247, "waitid"),
    (270, "pselect6"),
    (271, "ppoll"),
    (281, "epoll_pwait"),
    (288, "accept4"),
    (441, "epoll_pwait2"),
];
const FUTEX: i64 = 202;
/// A system call the interrupt cut short, which the kernel restarts (ERESTARTSYS,
/// ERESTARTNOINTR, ERESTARTNOHAND, ERESTART_RESTARTBLOCK).
const RESTARTING: std::ops::RangeInclusive<i64> = -516..=-512;
/// What a cut-short call that is never restarted returns (epoll_wait): the program sees it as
/// it would for a signal, and retries (PEP 475).
const EINTR: i64 = -4;

pub fn syscall_name(nr: i64) -> String {
    BLOCKING.iter().find(|(n, _)| *n == nr).map_or_else(|| format!("#{nr}"), |(_, name)| name.to_string())
}

/// NT_X86_XSTATE: the extended register area (x87, SSE, AVX, AVX-512, AMX...).
const NT_X86_XSTATE: libc::c_int = 0x202;
/// Larger than any xsave area the kernel reports today (11,008 bytes with AMX).
const XSTATE_MAX: usize = 64 * 1024;
const EFLAGS_TRAP: u64 = 1 << 8;
const EFLAGS_DIRECTION: u64 = 1 << 10;

/// The seized main thread, put back as it was when dropped.
struct Seized {
    pid: Pid,
    regs: libc::user_regs_struct,
    xstate: Vec<u8>,
    /// A signal the program was about to receive when it stopped: delivered on release.
    pending: Option<Signal>,
    restored: bool,
}

/// Runs `code` (one statement of Python, NUL-free) in process `pid`. Returns how.
pub fn run_python(pid: i32, symbols: &Symbols, code: &str, deadline: Instant) -> Result<Route, InjectError> {
    let need = |f: Option<u64>, name| f.ok_or(InjectError::MissingSymbol(name));
    let (ensure, release) =
        (need(symbols.gil_ensure, "PyGILState_Ensure")?, need(symbols.gil_release, "PyGILState_Release")?);
    let run = need(symbols.run_simple_string, "PyRun_SimpleString")?;
    let pending_call = need(symbols.add_pending_call, "Py_AddPendingCall")?;
    let (mmap, munmap) = (need(symbols.mmap, "mmap")?, need(symbols.munmap, "munmap")?);
    if code.contains('\0') {
        return Err(InjectError::Failed("the code holds a NUL byte".into()));
    }
    let mut thread = Seized::stop(Pid::from_raw(pid), deadline)?;
    let syscall = thread.regs.orig_rax as i64;
    let interrupted = RESTARTING.contains(&(thread.regs.rax as i64)) || thread.regs.rax as i64 == EINTR;
    let waits_for_gil = syscall == FUTEX
        && symbols.runtime.is_some_and(|(start, size)| (start..start + size.max(1)).contains(&thread.regs.rdi));
    let blocked = interrupted && BLOCKING.iter().any(|(nr, _)| *nr == syscall) && !waits_for_gil;

    // A private page for the code (PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS).
    let page = thread.call(mmap, &[0, 4096, 3, 0x22, u64::MAX, 0], deadline)?;
    if page > u64::MAX - 4096 {
        return Err(InjectError::Failed(format!("mmap in the target failed (errno {})", page.wrapping_neg())));
    }
    thread.write(page, code.as_bytes())?;
    let route = if blocked {
        let state = thread.call(ensure, &[], deadline)?;
        thread.call(run, &[page], deadline)?;
        thread.call(release, &[state & 0xffff_ffff], deadline)?;
        thread.call(munmap, &[page, 4096], deadline)?;
        Route::OnBlockedThread
    } else {
        // The page stays: the interpreter reads it later. One page per attach.
        let queued = thread.call(pending_call, &[run, page], deadline)? as i32;
        if queued != 0 {
            return Err(InjectError::Failed("the interpreter's queue of pending calls is full".into()));
        }
        Route::PendingCall
    };
    thread.release()?;
    Ok(route)
}

impl Seized {
    fn stop(pid: Pid, deadline: Instant) -> Result<Self, InjectError> {
        ptrace::seize(pid, ptrace::Options::empty()).map_err(|e| match e {
            Errno::ESRCH => InjectError::NoProcess,
            other => InjectError::Denied(other),
        })?;
        let mut seized =
            Seized { pid, regs: unsafe { std::mem::zeroed() }, xstate: vec![], pending: None, restored: true };
        if let Err(e) = ptrace::interrupt(pid) {
            let _ = ptrace::detach(pid, None);
            return Err(InjectError::Failed(format!("interrupt: {e}")));
        }
        loop {
            match wait(pid, deadline)? {
                WaitStatus::PtraceEvent(_, _, libc::PTRACE_EVENT_STOP) => break,
                // A signal arrived first: it is held, and given to the program when we leave.
                WaitStatus::Stopped(_, signal) => {
                    seized.pending = Some(signal);
                    break;
                }
                _ => {}
            }
        }
        seized.regs = ptrace::getregs(pid).map_err(|e| InjectError::Failed(format!("getregs: {e}")))?;
        seized.xstate = get_xstate(pid)?;
        seized.restored = false;
        Ok(seized)
    }

    /// Calls `function(args...)` on the stopped thread and returns `rax`. The return address
    /// is 0: returning faults there, which is the stop that says the call is done.
    fn call(&mut self, function: u64, args: &[u64], deadline: Instant) -> Result<u64, InjectError> {
        let mut regs = self.regs;
        // Below the red zone (128 bytes) with room to spare, 16-byte aligned before the push.
        let mut sp = (self.regs.rsp - 1024) & !0xf;
        sp -= 8;
        self.write(sp, &0u64.to_le_bytes())?;
        regs.rsp = sp;
        regs.rip = function;
        regs.rax = 0;
        // Not in a system call any more: the kernel must not restart one at our address.
        regs.orig_rax = u64::MAX;
        regs.eflags &= !(EFLAGS_TRAP | EFLAGS_DIRECTION);
        let slots = [&mut regs.rdi, &mut regs.rsi, &mut regs.rdx, &mut regs.rcx, &mut regs.r8, &mut regs.r9];
        for (slot, value) in slots.into_iter().zip(args) {
            *slot = *value;
        }
        ptrace::setregs(self.pid, regs).map_err(|e| InjectError::Failed(format!("setregs: {e}")))?;
        ptrace::cont(self.pid, None).map_err(|e| InjectError::Failed(format!("cont: {e}")))?;
        loop {
            match wait(self.pid, deadline_or_forever(deadline))? {
                WaitStatus::Stopped(_, Signal::SIGSEGV) => {
                    let now = ptrace::getregs(self.pid).map_err(|e| InjectError::Failed(format!("getregs: {e}")))?;
                    if now.rip == 0 {
                        return Ok(now.rax);
                    }
                    return Err(InjectError::Failed(format!("the injected call faulted at {:#x}", now.rip)));
                }
                // The program's own signals are delivered (its handlers only set flags).
                WaitStatus::Stopped(_, signal) => ptrace::cont(self.pid, signal).ok(),
                WaitStatus::PtraceEvent(..) => ptrace::cont(self.pid, None).ok(),
                _ => None,
            };
        }
    }

    fn write(&self, address: u64, bytes: &[u8]) -> Result<(), InjectError> {
        let mem = OpenOptions::new()
            .write(true)
            .open(format!("/proc/{}/mem", self.pid))
            .map_err(|e| InjectError::Failed(format!("/proc/{}/mem: {e}", self.pid)))?;
        let mut with_nul = bytes.to_vec();
        with_nul.push(0);
        mem.write_all_at(&with_nul, address).map_err(|e| InjectError::Failed(format!("writing memory: {e}")))
    }

    /// Puts the registers back and lets the thread go (a cut-short system call restarts).
    fn release(&mut self) -> Result<(), InjectError> {
        self.restored = true;
        set_xstate(self.pid, &mut self.xstate)?;
        ptrace::setregs(self.pid, self.regs).map_err(|e| InjectError::Failed(format!("setregs: {e}")))?;
        ptrace::detach(self.pid, self.pending).map_err(|e| InjectError::Failed(format!("detach: {e}")))
    }
}

impl Drop for Seized {
    fn drop(&mut self) {
        if !self.restored {
            let _ = self.release();
        }
    }
}

/// An injected call has started: it cannot be abandoned halfway (the thread would return to
/// address 0 and die), so it is waited for however long it takes.
fn deadline_or_forever(_deadline: Instant) -> Option<Instant> {
    None
}

fn wait(pid: Pid, deadline: impl Into<Option<Instant>>) -> Result<WaitStatus, InjectError> {
    let deadline = deadline.into();
    let mut nap = Duration::from_micros(50);
    loop {
        match waitpid(pid, Some(WaitPidFlag::__WALL | WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => {}
            Ok(WaitStatus::Exited(..) | WaitStatus::Signaled(..)) => return Err(InjectError::NoProcess),
            Ok(status) => return Ok(status),
            Err(Errno::EINTR) => {}
            Err(e) => return Err(InjectError::Failed(format!("waitpid: {e}"))),
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(InjectError::Failed("the main thread did not stop in time".into()));
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(2));
    }
}

fn get_xstate(pid: Pid) -> Result<Vec<u8>, InjectError> {
    let mut buf = vec![0u8; XSTATE_MAX];
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    // SAFETY: the iovec points into `buf`, which outlives the call; the kernel writes at most
    // iov_len bytes and sets iov_len to what it wrote.
    let rc = unsafe { libc::ptrace(libc::PTRACE_GETREGSET, pid.as_raw(), NT_X86_XSTATE, &mut iov as *mut libc::iovec) };
    if rc != 0 {
        return Err(InjectError::Failed(format!("reading the extended registers: {}", Errno::last())));
    }
    buf.truncate(iov.iov_len);
    Ok(buf)
}

fn set_xstate(pid: Pid, xstate: &mut [u8]) -> Result<(), InjectError> {
    let mut iov = libc::iovec { iov_base: xstate.as_mut_ptr().cast(), iov_len: xstate.len() };
    // SAFETY: as above; the kernel only reads the buffer.
    let rc = unsafe { libc::ptrace(libc::PTRACE_SETREGSET, pid.as_raw(), NT_X86_XSTATE, &mut iov as *mut libc::iovec) };
    if rc != 0 {
        return Err(InjectError::Failed(format!("restoring the extended registers: {}", Errno::last())));
    }
    Ok(())
}
