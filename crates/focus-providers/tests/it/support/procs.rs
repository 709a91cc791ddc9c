//! The processes `/proc` shows (Linux), for the tests that check that curl
//! leaves nothing behind and shows no key in any argument list.

/// One process, as its `/proc/<pid>/stat` line describes it.
#[derive(Debug)]
pub struct Proc {
    /// Its id.
    pub pid: u32,
    /// Its parent's id.
    pub ppid: u32,
    /// Its state letter (`R`, `S`, `Z` for a zombie, …).
    pub state: char,
    /// Its command name.
    pub comm: String,
}

/// Every process visible in `/proc`; one that ends meanwhile is left out.
pub fn processes() -> Vec<Proc> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue; // the process ended meanwhile
        };
        // "pid (comm) state ppid …"; comm may hold spaces, so split at the last ')'.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = tail.split_whitespace();
        let state = fields.next().and_then(|s| s.chars().next()).unwrap_or('?');
        let ppid = fields.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let comm = head.split_once('(').map_or("", |(_, c)| c).to_string();
        found.push(Proc {
            pid,
            ppid,
            state,
            comm,
        });
    }
    found
}

/// The children of this process.
pub fn children() -> Vec<Proc> {
    let me = std::process::id();
    processes().into_iter().filter(|p| p.ppid == me).collect()
}
