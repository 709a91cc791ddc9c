//! Session load, focus against pi, measured in pairs.
//!
//! The host this runs on is shared: its speed moves by a third from one minute to
//! the next, and a 15 ms load can land in a fast moment or a slow one. Medians taken
//! minutes apart compare the minutes as much as the programs. So the loads are
//! *paired*: one focus load, then one pi load straight after (the order flips every
//! pair), and each pair gives its own ratio. The median of those ratios is the
//! figure; the spread of the ratios is printed beside it.
//!
//! - focus: `SessionManager::open_read_only` + `context`, in this process.
//! - pi: `SessionManager.open` + `buildSessionContext`, in one node process kept
//!   running and asked for one load per line on its stdin (node's start-up and the
//!   import of pi's module are not timed, as focus's process start-up is not).
//!
//! A first load in a fresh process is paired too: a child of this benchmark that
//! loads once, against a fresh node process whose first load is timed.
//!
//! Neither tool's clean-up may run into the other's timing: focus frees the session
//! after its clock stops, node collects its garbage (`gc()`) after its clock stops
//! and before it answers, and each load starts after a short pause ([`SETTLE`]) in
//! which the other tool's background threads (node's concurrent collector) finish.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Warm-up loads of each tool before the pairs are timed.
const WARM_UP: usize = 2;
/// Timed pairs of warm loads.
const WARM_PAIRS: usize = 31;
/// Pairs of first loads in fresh processes.
const FIRST_PAIRS: usize = 7;
/// The pause before each timed load.
const SETTLE: Duration = Duration::from_millis(100);

/// One tool's load times and the per-pair ratios pi / focus, in ms.
#[derive(Default)]
pub struct Paired {
    /// focus's load times.
    pub focus: Vec<f64>,
    /// pi's load times (empty without pi).
    pub pi: Vec<f64>,
    /// For first loads: the page faults each of focus's took.
    pub focus_faults: Vec<f64>,
}

impl Paired {
    /// Adds one pair: focus's sample and, when pi takes part (`with_pi`), pi's. A
    /// pair with a half missing (a failed load) is dropped whole.
    fn record(&mut self, focus: Option<f64>, with_pi: bool, pi: Option<f64>) {
        match (focus, with_pi, pi) {
            (Some(f), false, _) => self.focus.push(f),
            (Some(f), true, Some(p)) => {
                self.focus.push(f);
                self.pi.push(p);
            }
            _ => {}
        }
    }

    /// The ratio pi / focus of each pair.
    pub fn ratios(&self) -> Vec<f64> {
        self.focus
            .iter()
            .zip(&self.pi)
            .filter(|(f, _)| **f > 0.0)
            .map(|(f, p)| p / f)
            .collect()
    }

    /// `"12.3× (quartiles 10.1–13.9×, all 7.8–19.0×, 31 pairs)"`: the median
    /// ratio, the middle half of the ratios and all of them.
    pub fn ratio_summary(&self) -> Option<String> {
        let mut ratios = self.ratios();
        ratios.sort_by(f64::total_cmp);
        let at = |fraction: f64| ratios[((ratios.len() - 1) as f64 * fraction).round() as usize];
        let median = *ratios.get(ratios.len() / 2)?;
        Some(format!(
            "{median:.1}× (quartiles {:.1}–{:.1}×, all {:.1}–{:.1}×, {} pairs)",
            at(0.25),
            at(0.75),
            at(0.0),
            at(1.0),
            ratios.len()
        ))
    }
}

/// Warm loads, paired (focus alone when `pi` is `None`).
pub fn warm_pairs(session: &Path, pi: Option<&Path>) -> Paired {
    let mut pi = pi.and_then(|pi| PiLoader::start(pi, session));
    let focus_load = || {
        std::thread::sleep(SETTLE);
        focus_load_ms(session)
    };
    for _ in 0..WARM_UP {
        focus_load();
        pi.as_mut().map(PiLoader::load_ms);
    }
    let mut paired = Paired::default();
    for pair in 0..WARM_PAIRS {
        let (focus, pi_sample) = if pair % 2 == 0 {
            let focus = focus_load();
            (focus, pi.as_mut().and_then(PiLoader::load_ms))
        } else {
            let pi_sample = pi.as_mut().and_then(PiLoader::load_ms);
            (focus_load(), pi_sample)
        };
        paired.record(focus, pi.is_some(), pi_sample);
    }
    paired
}

/// First loads in fresh processes, paired: `me --load-once FILE` against a new node
/// process's first load.
pub fn first_pairs(me: &Path, session: &Path, pi: Option<&Path>) -> Paired {
    let mut paired = Paired::default();
    for _ in 0..FIRST_PAIRS {
        let out = Command::new(me)
            .arg("--load-once")
            .arg(session)
            .output()
            .ok();
        let text = out.map_or(String::new(), |o| {
            String::from_utf8_lossy(&o.stdout).into_owned()
        });
        let mut numbers = text.split_whitespace().map(str::parse::<f64>);
        let focus = numbers.next().and_then(Result::ok);
        if let Some(Ok(faults)) = numbers.next() {
            paired.focus_faults.push(faults);
        }
        let pi_sample = pi
            .and_then(|pi| PiLoader::start(pi, session))
            .and_then(|mut loader| loader.load_ms());
        paired.record(focus, pi.is_some(), pi_sample);
    }
    paired
}

/// This process's minor page faults so far (`/proc/self/stat`, Linux): each is a
/// page of memory touched for the first time. `None` where that file is missing.
pub fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command name (in parentheses, may hold spaces): state is field 3,
    // minflt field 10.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(7)?.parse().ok()
}

/// One load + context of `path` in this process, in ms.
pub fn focus_load_ms(path: &Path) -> Option<f64> {
    focus_load_split_ms(path).map(|(load, context)| load + context)
}

/// [`focus_load_ms`] in its two steps: the load, then building the context.
pub fn focus_load_split_ms(path: &Path) -> Option<(f64, f64)> {
    let start = Instant::now();
    let manager = focus_harness::session::SessionManager::open_read_only(path).ok()?;
    let loaded = start.elapsed();
    let context = manager.context();
    std::hint::black_box(context.messages.len());
    let total = start.elapsed();
    // Freed after the clock stops, as pi's garbage is collected outside its timing.
    drop((context, manager));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    Some((ms(loaded), ms(total - loaded)))
}

/// A node process holding pi's `SessionManager`, loading the session once for
/// each line it reads and answering with the time in ms.
struct PiLoader {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    script: std::path::PathBuf,
}

impl PiLoader {
    fn start(pi: &Path, session: &Path) -> Option<PiLoader> {
        let real = std::fs::canonicalize(pi).ok()?;
        let package = real.parent()?.parent()?; // dist/cli.js → package root
        let script_text = format!(
            r#"import {{ SessionManager }} from "{}/dist/index.js";
import {{ createInterface }} from "node:readline";
const lines = createInterface({{ input: process.stdin }});
for await (const _ of lines) {{
  const t = performance.now();
  const sm = SessionManager.open({:?});
  const ctx = sm.buildSessionContext();
  if (!ctx.messages.length) throw new Error("empty context");
  const ms = performance.now() - t;
  globalThis.gc();
  console.log(ms);
}}"#,
            package.display(),
            session.display().to_string()
        );
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let script = std::env::temp_dir().join(format!(
            "focus-bench-pi-load-{}-{}.mjs",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&script, script_text).ok()?;
        let mut child = Command::new("node")
            .arg("--expose-gc")
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let input = child.stdin.take()?;
        let output = BufReader::new(child.stdout.take()?);
        Some(PiLoader {
            child,
            input,
            output,
            script,
        })
    }

    /// One load, timed inside node, after a pause of [`SETTLE`].
    fn load_ms(&mut self) -> Option<f64> {
        std::thread::sleep(SETTLE);
        self.input.write_all(b"load\n").ok()?;
        self.input.flush().ok()?;
        let mut line = String::new();
        self.output.read_line(&mut line).ok()?;
        line.trim().parse().ok()
    }
}

impl Drop for PiLoader {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.script);
    }
}
