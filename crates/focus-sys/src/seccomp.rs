//! seccomp: a hand-written classic BPF filter over a tool's system calls.
//!
//! Landlock governs paths; a handful of dangers are not paths. The filter
//! built here (in the parent, [`Filter::new`]) and installed by the child just
//! before `exec` ([`Filter::install`], one `prctl`) answers `EPERM` to:
//!
//! - `socket(AF_UNIX, …)` unless Unix sockets are allowed: a connection to the
//!   user's tmux, docker, D-Bus or ssh-agent server would let a program outside
//!   the sandbox act for the tool. seccomp cannot read the address a
//!   `connect` names, so the socket is refused at creation (as Claude Code
//!   does); `socketpair` stays, a pair joins two processes of the sandbox;
//! - with the network off, `socket` of every other family (TCP, UDP, raw,
//!   netlink…): no packet leaves, DNS included;
//! - `mknod`/`mknodat` of a character or block device;
//! - `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)`: typing into a terminal;
//! - `ptrace`, `process_vm_readv`/`writev`: reading or steering another process;
//! - `kexec_*`, module loading and unloading, `swapon`/`swapoff`, `acct`;
//! - `mount`, `umount2`, `pivot_root`, `chroot`, the new mount API
//!   (`open_tree`, `move_mount`, `fs*`, `mount_setattr`) and `setns`: the
//!   read-only mounts of protected paths stay where they are;
//! - `unshare` and `clone` asking for a new user namespace (whose root would
//!   have every capability again inside it); `clone3`, whose flags live in
//!   memory a filter cannot read, answers `ENOSYS` so the C library falls
//!   back to `clone`;
//! - `io_uring_*`: its operations (open, connect, socket) bypass seccomp;
//! - `bpf`, `perf_event_open`, `userfaultfd` and the kernel keyring
//!   (`add_key`, `request_key`, `keyctl`).
//!
//! The filter first checks the architecture: a system call made through
//! another ABI (32-bit `int 0x80` on x86-64, x32, AArch32) kills the process,
//! since its numbers mean other calls. Arguments are compared on their low 32
//! bits, which is all the kernel reads of an `int` domain, an `unsigned int`
//! ioctl request or a mode (comparing 64 bits would let a caller set a high bit
//! the kernel ignores and slip past).
//!
//! Only x86-64 and AArch64 carry the numbers; elsewhere [`supported`] is false
//! and tools run under Landlock alone.

use std::io;

/// What the filter lets through beyond the safe default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Allow `socket(AF_UNIX, …)` (settings list Unix sockets to reach).
    pub allow_unix_sockets: bool,
    /// Allow sockets of every other family (the network setting).
    pub network: bool,
}

/// One classic BPF instruction (`struct sock_filter`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SockFilter {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

/// `struct sock_fprog`.
#[repr(C)]
struct SockFprog {
    len: u16,
    filter: *const SockFilter,
}

/// A compiled filter, ready to install in a child.
#[derive(Clone, Debug)]
pub struct Filter {
    program: Vec<SockFilter>,
}

/// Whether focus has system call numbers for this target.
pub fn supported() -> bool {
    arch::AUDIT_ARCH != 0
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_003E;
    /// x32 system calls carry this bit; refused.
    pub const X32_BIT: Option<u32> = Some(0x4000_0000);
    pub const SOCKET: u32 = 41;
    pub const MKNOD: Option<u32> = Some(133);
    pub const MKNODAT: u32 = 259;
    pub const IOCTL: u32 = 16;
    pub const UNSHARE: u32 = 272;
    pub const CLONE: u32 = 56;
    pub const CLONE3: u32 = 435;
    /// Refused outright with `EPERM`.
    pub const DENIED: &[u32] = &[
        101, // ptrace
        310, 311, // process_vm_readv, process_vm_writev
        246, 320, // kexec_load, kexec_file_load
        175, 313, 176, // init_module, finit_module, delete_module
        165, 166, 155, 161, // mount, umount2, pivot_root, chroot
        428, 429, 430, 431, 432, 433, 442, // open_tree … fspick, mount_setattr
        308, // setns
        425, 426, 427, // io_uring_setup, io_uring_enter, io_uring_register
        321, 298, 323, // bpf, perf_event_open, userfaultfd
        248, 249, 250, // add_key, request_key, keyctl
        167, 168, 163, // swapon, swapoff, acct
    ];
}

#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_00B7;
    pub const X32_BIT: Option<u32> = None;
    pub const SOCKET: u32 = 198;
    pub const MKNOD: Option<u32> = None;
    pub const MKNODAT: u32 = 33;
    pub const IOCTL: u32 = 29;
    pub const UNSHARE: u32 = 97;
    pub const CLONE: u32 = 220;
    pub const CLONE3: u32 = 435;
    /// Refused outright with `EPERM`.
    pub const DENIED: &[u32] = &[
        117, // ptrace
        270, 271, // process_vm_readv, process_vm_writev
        104, 294, // kexec_load, kexec_file_load
        105, 273, 106, // init_module, finit_module, delete_module
        40, 39, 41, 51, // mount, umount2, pivot_root, chroot
        428, 429, 430, 431, 432, 433, 442, // open_tree … fspick, mount_setattr
        268, // setns
        425, 426, 427, // io_uring_setup, io_uring_enter, io_uring_register
        280, 241, 282, // bpf, perf_event_open, userfaultfd
        217, 218, 219, // add_key, request_key, keyctl
        224, 225, 89, // swapon, swapoff, acct
    ];
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod arch {
    pub const AUDIT_ARCH: u32 = 0;
    pub const X32_BIT: Option<u32> = None;
    pub const SOCKET: u32 = 0;
    pub const MKNOD: Option<u32> = None;
    pub const MKNODAT: u32 = 0;
    pub const IOCTL: u32 = 0;
    pub const UNSHARE: u32 = 0;
    pub const CLONE: u32 = 0;
    pub const CLONE3: u32 = 0;
    pub const DENIED: &[u32] = &[];
}

// `struct seccomp_data`: nr (u32), arch (u32), ip (u64), args (6 × u64).
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
/// Where the low 32 bits of argument `i` are.
const fn arg_low(i: u32) -> u32 {
    if cfg!(target_endian = "little") {
        16 + 8 * i
    } else {
        16 + 8 * i + 4
    }
}

// Classic BPF opcodes.
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const JSET_K: u16 = 0x45;
const AND_K: u16 = 0x54;
const RET_K: u16 = 0x06;

const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const RET_ALLOW: u32 = 0x7fff_0000;
const EPERM: u32 = 1;
const ENOSYS: u32 = 38;

const AF_UNIX: u32 = 1;
const S_IFMT: u32 = 0o170000;
const S_IFCHR: u32 = 0o020000;
const S_IFBLK: u32 = 0o060000;
const TIOCSTI: u32 = 0x5412;
const TIOCLINUX: u32 = 0x541C;
const CLONE_NEWUSER: u32 = 0x1000_0000;

/// Where a jump goes: the next instruction, or a label.
#[derive(Clone, Copy, PartialEq, Eq)]
enum To {
    Next,
    Label(Label),
}

/// The places a jump may name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Allow,
    Deny,
    NoSys,
    Kill,
    Socket,
    Mknod,
    Mknodat,
    Ioctl,
    Namespaces,
}

enum Item {
    Insn(u16, u32, To, To),
    Here(Label),
}

/// A tiny assembler: instructions with symbolic forward jumps.
#[derive(Default)]
struct Asm {
    items: Vec<Item>,
}

impl Asm {
    fn load(&mut self, offset: u32) {
        self.items
            .push(Item::Insn(LD_W_ABS, offset, To::Next, To::Next));
    }
    fn jump(&mut self, code: u16, k: u32, yes: To, no: To) {
        self.items.push(Item::Insn(code, k, yes, no));
    }
    fn ret(&mut self, value: u32) {
        self.items
            .push(Item::Insn(RET_K, value, To::Next, To::Next));
    }
    fn and(&mut self, mask: u32) {
        self.items.push(Item::Insn(AND_K, mask, To::Next, To::Next));
    }
    fn label(&mut self, label: Label) {
        self.items.push(Item::Here(label));
    }

    /// Resolves the labels; every jump is forward and fits in 8 bits.
    fn finish(self) -> Vec<SockFilter> {
        let mut at = Vec::new();
        let mut count = 0usize;
        for item in &self.items {
            match item {
                Item::Here(label) => at.push((*label, count)),
                Item::Insn(..) => count += 1,
            }
        }
        let place = |label: Label| {
            at.iter()
                .find(|(l, _)| *l == label)
                .map(|(_, i)| *i)
                .expect("every label is placed")
        };
        let mut out = Vec::with_capacity(count);
        for item in self.items {
            if let Item::Insn(code, k, yes, no) = item {
                let here = out.len();
                let offset = |to: To| match to {
                    To::Next => 0u8,
                    To::Label(label) => {
                        let target = place(label);
                        assert!(target > here, "seccomp jumps go forward");
                        u8::try_from(target - here - 1).expect("a jump of at most 255")
                    }
                };
                out.push(SockFilter {
                    code,
                    jt: offset(yes),
                    jf: offset(no),
                    k,
                });
            }
        }
        out
    }
}

impl Filter {
    /// Compiles the filter for `policy` (see the module docs).
    pub fn new(policy: Policy) -> Filter {
        use Label::*;
        let go = To::Label;
        let mut a = Asm::default();
        a.load(OFFSET_ARCH);
        a.jump(JEQ_K, arch::AUDIT_ARCH, To::Next, go(Kill));
        a.load(OFFSET_NR);
        if let Some(bit) = arch::X32_BIT {
            a.jump(JGE_K, bit, go(Kill), To::Next);
        }
        for &nr in arch::DENIED {
            a.jump(JEQ_K, nr, go(Deny), To::Next);
        }
        a.jump(JEQ_K, arch::CLONE3, go(NoSys), To::Next);
        a.jump(JEQ_K, arch::SOCKET, go(Socket), To::Next);
        if let Some(nr) = arch::MKNOD {
            a.jump(JEQ_K, nr, go(Mknod), To::Next);
        }
        a.jump(JEQ_K, arch::MKNODAT, go(Mknodat), To::Next);
        a.jump(JEQ_K, arch::IOCTL, go(Ioctl), To::Next);
        a.jump(JEQ_K, arch::UNSHARE, go(Namespaces), To::Next);
        a.jump(JEQ_K, arch::CLONE, go(Namespaces), To::Next);
        a.ret(RET_ALLOW);

        // socket(domain, …): domain is argument 0.
        a.label(Socket);
        a.load(arg_low(0));
        let unix = if policy.allow_unix_sockets {
            go(Allow)
        } else {
            go(Deny)
        };
        let other = if policy.network { go(Allow) } else { go(Deny) };
        a.jump(JEQ_K, AF_UNIX, unix, other);

        // mknod(path, mode, dev) and mknodat(dirfd, path, mode, dev).
        a.label(Mknod);
        a.load(arg_low(1));
        a.and(S_IFMT);
        a.jump(JEQ_K, S_IFCHR, go(Deny), To::Next);
        a.jump(JEQ_K, S_IFBLK, go(Deny), go(Allow));
        a.label(Mknodat);
        a.load(arg_low(2));
        a.and(S_IFMT);
        a.jump(JEQ_K, S_IFCHR, go(Deny), To::Next);
        a.jump(JEQ_K, S_IFBLK, go(Deny), go(Allow));

        // ioctl(fd, request, …): the request is an unsigned int.
        a.label(Ioctl);
        a.load(arg_low(1));
        a.jump(JEQ_K, TIOCSTI, go(Deny), To::Next);
        a.jump(JEQ_K, TIOCLINUX, go(Deny), go(Allow));

        // unshare(flags) and clone(flags, …): no new user namespace.
        a.label(Namespaces);
        a.load(arg_low(0));
        a.jump(JSET_K, CLONE_NEWUSER, go(Deny), go(Allow));

        a.label(Allow);
        a.ret(RET_ALLOW);
        a.label(Deny);
        a.ret(RET_ERRNO | EPERM);
        a.label(NoSys);
        a.ret(RET_ERRNO | ENOSYS);
        a.label(Kill);
        a.ret(RET_KILL_PROCESS);
        Filter {
            program: a.finish(),
        }
    }

    /// How many instructions the program has.
    pub fn len(&self) -> usize {
        self.program.len()
    }

    /// Whether the program is empty (never: it always ends in returns).
    pub fn is_empty(&self) -> bool {
        self.program.is_empty()
    }

    /// Installs the filter on the calling thread, for good: it is inherited by
    /// every child and survives `exec`. Needs `no_new_privs` (or
    /// `CAP_SYS_ADMIN`). Async-signal-safe: one `prctl`, no allocation, so it
    /// may run between `fork` and `exec`.
    ///
    /// # Errors
    ///
    /// `Unsupported` where seccomp is not built for this target, else the system error of the
    /// `prctl`.
    pub fn install(&self) -> io::Result<()> {
        if !supported() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "focus has no seccomp numbers for this architecture",
            ));
        }
        let fprog = SockFprog {
            len: self.program.len() as u16,
            filter: self.program.as_ptr(),
        };
        crate::ffi::set_seccomp_filter(&fprog as *const SockFprog as *const std::ffi::c_void)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_jump_lands_inside_the_program_and_it_ends_in_returns() {
        for policy in [
            Policy::default(),
            Policy {
                allow_unix_sockets: true,
                network: true,
            },
        ] {
            let filter = Filter::new(policy);
            let len = filter.len();
            assert!(len < u16::MAX as usize);
            for (i, insn) in filter.program.iter().enumerate() {
                if insn.code == RET_K {
                    continue;
                }
                assert!(i + 1 + (insn.jt as usize) < len, "{i}: {insn:?}");
                assert!(i + 1 + (insn.jf as usize) < len, "{i}: {insn:?}");
            }
            assert_eq!(filter.program.last().unwrap().code, RET_K);
        }
    }

    /// A tiny interpreter of the subset the filter uses, to check decisions
    /// without installing anything.
    fn run(filter: &Filter, nr: u32, arch_id: u32, args: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_ne_bytes());
        data[4..8].copy_from_slice(&arch_id.to_ne_bytes());
        for (i, a) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_ne_bytes());
        }
        let (mut acc, mut pc) = (0u32, 0usize);
        loop {
            let insn = filter.program[pc];
            pc += 1;
            match insn.code {
                LD_W_ABS => {
                    let o = insn.k as usize;
                    acc = u32::from_ne_bytes(data[o..o + 4].try_into().unwrap());
                }
                AND_K => acc &= insn.k,
                RET_K => return insn.k,
                code => {
                    let hit = match code {
                        JEQ_K => acc == insn.k,
                        JGE_K => acc >= insn.k,
                        JSET_K => acc & insn.k != 0,
                        _ => panic!("unknown opcode {code:#x}"),
                    };
                    pc += if hit { insn.jt } else { insn.jf } as usize;
                }
            }
        }
    }

    #[test]
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn decisions_follow_the_policy() {
        let closed = Filter::new(Policy::default());
        let open = Filter::new(Policy {
            allow_unix_sockets: true,
            network: true,
        });
        let a = arch::AUDIT_ARCH;
        let deny = RET_ERRNO | EPERM;
        assert_eq!(run(&closed, arch::SOCKET, a, [1, 1, 0, 0, 0, 0]), deny);
        assert_eq!(run(&closed, arch::SOCKET, a, [2, 1, 0, 0, 0, 0]), deny);
        assert_eq!(run(&open, arch::SOCKET, a, [1, 1, 0, 0, 0, 0]), RET_ALLOW);
        assert_eq!(run(&open, arch::SOCKET, a, [2, 1, 0, 0, 0, 0]), RET_ALLOW);
        // A high bit the kernel ignores changes nothing.
        assert_eq!(
            run(&closed, arch::SOCKET, a, [1 | 1 << 40, 1, 0, 0, 0, 0]),
            deny
        );
        assert_eq!(
            run(
                &open,
                arch::IOCTL,
                a,
                [0, TIOCSTI as u64 | 1 << 33, 0, 0, 0, 0]
            ),
            deny
        );
        assert_eq!(
            run(&open, arch::IOCTL, a, [0, 0x5401, 0, 0, 0, 0]),
            RET_ALLOW
        );
        assert_eq!(
            run(&open, arch::MKNODAT, a, [0, 0, 0o020644, 0, 0, 0]),
            deny
        );
        assert_eq!(
            run(&open, arch::MKNODAT, a, [0, 0, 0o060644, 0, 0, 0]),
            deny
        );
        assert_eq!(
            run(&open, arch::MKNODAT, a, [0, 0, 0o010644, 0, 0, 0]),
            RET_ALLOW
        );
        assert_eq!(
            run(
                &open,
                arch::UNSHARE,
                a,
                [CLONE_NEWUSER as u64, 0, 0, 0, 0, 0]
            ),
            deny
        );
        assert_eq!(
            run(&open, arch::UNSHARE, a, [0x0002_0000, 0, 0, 0, 0, 0]),
            RET_ALLOW
        );
        assert_eq!(
            run(&open, arch::CLONE, a, [0x1120_0011, 0, 0, 0, 0, 0]),
            deny
        );
        assert_eq!(
            run(&open, arch::CLONE, a, [0x0120_0011, 0, 0, 0, 0, 0]),
            RET_ALLOW
        );
        assert_eq!(run(&open, arch::CLONE3, a, [0; 6]), RET_ERRNO | ENOSYS);
        for &nr in arch::DENIED {
            assert_eq!(run(&open, nr, a, [0; 6]), deny, "{nr}");
        }
        assert_eq!(
            run(&open, arch::SOCKET, a ^ 1, [2, 1, 0, 0, 0, 0]),
            RET_KILL_PROCESS
        );
        if let Some(bit) = arch::X32_BIT {
            assert_eq!(run(&open, bit | 41, a, [0; 6]), RET_KILL_PROCESS);
        }
    }
}
