//! What the soak checks after a pass: GNU parallel's job log, each task's
//! result record against its exit code and its outcome, and the session files.

use super::task::{Kind, Task};
use focus_core::json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// One line of parallel's `--joblog`.
#[derive(Clone, Debug)]
pub struct Job {
    /// The task's line number in the task file (1-based).
    pub seq: usize,
    /// The job's run time in seconds (parallel writes milliseconds).
    pub runtime: f64,
    /// Its exit code.
    pub exitval: i32,
    /// The signal that killed it (0: none).
    pub signal: i32,
}

/// The job log's lines, in order.
pub fn read_joblog(path: &Path) -> Result<Vec<Job>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut jobs = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |i: usize| fields.get(i).copied().unwrap_or("");
        let bad = || format!("joblog line {}: {line:?}", n + 1);
        jobs.push(Job {
            seq: field(0).trim().parse().map_err(|_| bad())?,
            runtime: field(3).trim().parse().map_err(|_| bad())?,
            exitval: field(6).trim().parse().map_err(|_| bad())?,
            signal: field(7).trim().parse().map_err(|_| bad())?,
        });
    }
    Ok(jobs)
}

/// Checks every task's record against `jobs` (the last job of each task):
/// the exit codes agree and are the outcome's, the subtype matches, the
/// outcome's details are there, the session file is valid and its own.
/// `expect` gives the outcome each task must have had. Returns the problems
/// (empty: all good) and each task's record.
pub fn check_records(
    tasks: &[Task],
    jobs: &[Job],
    results: &Path,
    sessions: &Path,
    expect: &dyn Fn(&Task) -> Kind,
) -> (Vec<String>, HashMap<String, Value>) {
    let mut problems = Vec::new();
    let mut records = HashMap::new();
    let mut last: BTreeMap<usize, &Job> = BTreeMap::new();
    for job in jobs {
        last.insert(job.seq, job);
    }
    for (i, task) in tasks.iter().enumerate() {
        let kind = expect(task);
        let mut fail =
            |what: String| problems.push(format!("{} ({}): {what}", task.id, kind.name()));
        let Some(job) = last.get(&(i + 1)) else {
            fail("no job in the job log".into());
            continue;
        };
        let path = results.join(format!("{}.json", task.id));
        let record = match read_record(&path) {
            Ok(record) => record,
            Err(error) => {
                fail(error);
                continue;
            }
        };
        let code = record["exit_code"].as_i64().unwrap_or(-1) as i32;
        if job.signal != 0 || job.exitval != code {
            fail(format!(
                "parallel saw exit {} (signal {}), the record says {code}",
                job.exitval, job.signal
            ));
        }
        if code != kind.exit_code() {
            fail(format!("exit {code}, expected {}", kind.exit_code()));
        }
        let subtype = record["subtype"].as_str().unwrap_or("");
        if subtype != kind.subtype() {
            fail(format!(
                "subtype {subtype:?}, expected {:?}",
                kind.subtype()
            ));
        }
        match kind {
            Kind::Finish => {
                let made = format!("made-{}.txt", task.id);
                let listed = record["files_changed"]
                    .as_array()
                    .is_some_and(|files| files.iter().any(|f| f.as_str() == Some(made.as_str())));
                if !listed || !task.dir.join(&made).exists() {
                    fail(format!(
                        "{made} not made or not in files_changed: {}",
                        record["files_changed"].to_json_string()
                    ));
                }
            }
            Kind::Refused if record["denied"][0]["tool_name"].as_str() != Some("bash") => {
                fail(format!(
                    "the refused call is not named: {}",
                    record["denied"].to_json_string()
                ));
            }
            _ => {}
        }
        records.insert(task.id.clone(), record);
    }
    problems.extend(check_sessions(&records, sessions));
    (problems, records)
}

/// The record in `path`: one JSON object of type `result`.
fn read_record(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("no record: {e}"))?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() != 1 {
        return Err(format!("the record file holds {} lines", lines.len()));
    }
    let record = focus_core::json::parse_str(lines[0]).map_err(|e| format!("record: {e}"))?;
    if record["type"].as_str() != Some("result") {
        return Err(format!("not a result record: {}", lines[0]));
    }
    Ok(record)
}

/// Every record names a session of its own, whose file is valid; no file is
/// left that no record names... of this pass's records (earlier passes' files
/// stay, named by their own records).
fn check_sessions(records: &HashMap<String, Value>, sessions: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let files = session_files(sessions);
    let mut seen: HashSet<&str> = HashSet::new();
    for (id, record) in records {
        let session = record["session_id"].as_str().unwrap_or("");
        if session.is_empty() {
            problems.push(format!("{id}: the record names no session"));
            continue;
        }
        if !seen.insert(session) {
            problems.push(format!("{id}: session {session} is another record's too"));
        }
        let named: Vec<&PathBuf> = files
            .iter()
            .filter(|f| f.to_string_lossy().contains(session))
            .collect();
        match named[..] {
            [file] => {
                if let Err(error) = valid_session(file, session) {
                    problems.push(format!("{id}: {}: {error}", file.display()));
                }
            }
            _ => problems.push(format!(
                "{id}: {} session files named {session}",
                named.len()
            )),
        }
    }
    problems
}

/// The `.jsonl` files in `dir`.
pub fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
}

/// A session file as docs/sessions.md describes it: every line JSON, line 1
/// the header with the session's id, every entry with an id of its own and a
/// parent before it; and the session reader finds no problem in it.
pub fn valid_session(file: &Path, session_id: &str) -> Result<(), String> {
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let text = std::str::from_utf8(&bytes).map_err(|_| "not UTF-8".to_string())?;
    if !text.ends_with('\n') {
        return Err("the last line is not complete".into());
    }
    let mut ids: HashSet<String> = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let value =
            focus_core::json::parse_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        if n == 0 {
            if value["type"].as_str() != Some("session") || value["id"].as_str() != Some(session_id)
            {
                return Err(format!("line 1 is not this session's header: {line}"));
            }
            continue;
        }
        let id = value["id"]
            .as_str()
            .ok_or(format!("line {}: no id", n + 1))?;
        let parent = &value["parentId"];
        if !parent.is_null() && !parent.as_str().is_some_and(|p| ids.contains(p)) {
            return Err(format!(
                "line {}: parent {} not before it",
                n + 1,
                parent.to_json_string()
            ));
        }
        if !ids.insert(id.to_string()) {
            return Err(format!("line {}: id {id} twice", n + 1));
        }
    }
    let parsed = focus_harness::session::reader::parse_session(&bytes)
        .map_err(|e| format!("the session reader refuses it: {e:?}"))?;
    match parsed.problems.first() {
        Some(problem) => Err(format!("the session reader: {problem}")),
        None => Ok(()),
    }
}
