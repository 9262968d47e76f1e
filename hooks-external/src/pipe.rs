//! The pipes to a hook's process: non-blocking reads and writes with a deadline, and writes that
//! never raise `SIGPIPE`.
//!
//! # The rules it keeps
//!
//! - **Nothing blocks without a deadline.** The transports put their pipe ends in non-blocking
//!   mode ([`set_nonblocking`]) and wait for them with `poll(2)` ([`poll`], [`wait_writable`]),
//!   so a firing can always stop waiting, drop its pipes and return — whoever holds the other
//!   end (a hook that hangs, a process it left behind with `setsid`).
//! - **No `SIGPIPE`.** Writing to a pipe whose reader is gone raises `SIGPIPE`, which kills a
//!   host that keeps the signal's default action (C and C++ programs, FFI embeddings; Rust
//!   programs ignore it). [`write`] blocks `SIGPIPE` in the calling thread around the `write(2)`
//!   (`pthread_sigmask`), and when the write raised one — it is then pending for the thread —
//!   takes it off (`sigtimedwait` with a zero timeout; on macOS, which lacks it, `sigwait`,
//!   called only once `sigpending` shows the signal pending) before the old mask is put
//!   back. The write fails with `EPIPE` instead, which the transports read as "the hook does not
//!   read its stdin". A `SIGPIPE` that was already pending before the write (the host blocks it
//!   and has one waiting) is left alone.

use std::io::{self, Write};
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// Puts `fd` in non-blocking mode.
pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns, with integer arguments only.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// `poll(2)` on `fds` for at most `timeout` (rounded up to a millisecond). An interrupted call
/// counts as a timeout (the caller loops); returns how many descriptors have events.
pub(crate) fn poll(fds: &mut [libc::pollfd], timeout: Duration) -> io::Result<usize> {
    let millis = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
    // SAFETY: `fds` is a valid, writable slice of pollfd for the duration of the call, and its
    // length is what is passed.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
    if ready >= 0 {
        return Ok(ready as usize);
    }
    let e = io::Error::last_os_error();
    if e.kind() == io::ErrorKind::Interrupted {
        Ok(0)
    } else {
        Err(e)
    }
}

/// A pollfd waiting for `events` on `fd`.
pub(crate) fn pollfd(fd: RawFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd {
        fd,
        events,
        revents: 0,
    }
}

/// Waits until `fd` can be written to (or has an error to report); `false` when `deadline` passed
/// first.
#[cfg_attr(not(feature = "process"), allow(dead_code))]
pub(crate) fn wait_writable(fd: RawFd, deadline: Instant) -> bool {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        let mut fds = [pollfd(fd, libc::POLLOUT)];
        match poll(&mut fds, deadline - now) {
            Ok(0) => {}
            // Ready, or an error the write will report.
            Ok(_) | Err(_) => return true,
        }
    }
}

/// Writes what `to` accepts of `buf` in one `write(2)`, without raising `SIGPIPE` (see the
/// [module docs](self)): a reader that is gone is an `EPIPE` error.
pub(crate) fn write(mut to: impl Write, buf: &[u8]) -> io::Result<usize> {
    let _blocked = SigpipeBlocked::new();
    to.write(buf)
}

/// `SIGPIPE` blocked in this thread until drop, which takes off a `SIGPIPE` raised meanwhile and
/// puts the old mask back.
struct SigpipeBlocked {
    old: libc::sigset_t,
    /// A `SIGPIPE` was pending already: it is the host's, not ours to take.
    was_pending: bool,
}

/// The set holding `SIGPIPE` only.
fn sigpipe_set() -> libc::sigset_t {
    // SAFETY: an all-zero sigset_t is a valid value to hand to sigemptyset, which initializes it.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable sigset_t; SIGPIPE is a valid signal number.
    unsafe {
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
    }
    set
}

/// Whether a `SIGPIPE` is pending for this thread or the process.
fn sigpipe_pending() -> bool {
    // SAFETY: an all-zero sigset_t is a valid value; sigpending only writes into it.
    let mut pending: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `pending` is a valid, writable sigset_t for the duration of both calls.
    unsafe {
        libc::sigpending(&mut pending) == 0 && libc::sigismember(&pending, libc::SIGPIPE) == 1
    }
}

impl SigpipeBlocked {
    fn new() -> SigpipeBlocked {
        let set = sigpipe_set();
        // SAFETY: an all-zero sigset_t is a valid value; pthread_sigmask writes the old mask in.
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` and `old` are valid sigset_t values for the duration of the call;
        // SIG_BLOCK only adds SIGPIPE to this thread's mask.
        unsafe {
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        }
        SigpipeBlocked {
            old,
            was_pending: sigpipe_pending(),
        }
    }
}

impl Drop for SigpipeBlocked {
    fn drop(&mut self) {
        if !self.was_pending && sigpipe_pending() {
            take_pending_sigpipe();
        }
        // SAFETY: `self.old` is the mask pthread_sigmask returned in `new`; putting it back
        // unblocks SIGPIPE only if it was not blocked before.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}

/// Takes a pending `SIGPIPE` off (it is blocked in this thread): `sigtimedwait` with a zero
/// timeout, which never waits.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn take_pending_sigpipe() {
    let set = sigpipe_set();
    let zero = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `set` and `zero` are valid for the duration of the call; a null siginfo pointer is
    // allowed. With a zero timeout the call returns at once, with the signal or EAGAIN.
    unsafe {
        libc::sigtimedwait(&set, std::ptr::null_mut(), &zero);
    }
}

/// Takes a pending `SIGPIPE` off (it is blocked in this thread): `sigwait`, where
/// `sigtimedwait` is missing (macOS). It was seen pending just before, so it returns at once —
/// unless another thread took a process-wide `SIGPIPE` in between, which only a `kill(2)` from
/// outside raises.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn take_pending_sigpipe() {
    let set = sigpipe_set();
    let mut signal = 0;
    // SAFETY: `set` and `signal` are valid for the duration of the call; SIGPIPE is blocked in
    // this thread and pending.
    unsafe {
        libc::sigwait(&set, &mut signal);
    }
}
