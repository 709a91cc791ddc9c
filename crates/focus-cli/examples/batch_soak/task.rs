//! The soak's tasks: what each run is made to do, and what it must then say.

use focus_testkit::rng::Rng;
use std::path::{Path, PathBuf};

/// What the mock model makes a run do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A `bash` call that creates a file, then an answer.
    Finish,
    /// A `bash` call that needs approval (refused), then an answer.
    Refused,
    /// A tool call at every step, past the turn limit.
    TurnLimit,
    /// HTTP 500 to every try.
    ProviderError,
    /// A stream of keepalives, past the deadline.
    Deadline,
    /// A stream of keepalives, until SIGTERM.
    Sigterm,
}

/// Every kind, in the order the summary lists them.
pub const KINDS: [Kind; 6] = [
    Kind::Finish,
    Kind::Refused,
    Kind::TurnLimit,
    Kind::ProviderError,
    Kind::Deadline,
    Kind::Sigterm,
];

impl Kind {
    /// The word in the prompt's marker.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Finish => "finish",
            Kind::Refused => "refused",
            Kind::TurnLimit => "turn-limit",
            Kind::ProviderError => "provider-500",
            Kind::Deadline => "deadline",
            Kind::Sigterm => "sigterm",
        }
    }

    /// The kind a marker word names.
    pub fn parse(word: &str) -> Option<Kind> {
        KINDS.into_iter().find(|k| k.name() == word)
    }

    /// The exit code such a run must end with (docs/cli.md).
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::Finish => 0,
            Kind::Refused => 3,
            Kind::TurnLimit => 4,
            Kind::ProviderError => 1,
            Kind::Deadline => 6,
            Kind::Sigterm => 143,
        }
    }

    /// Whether the mock's answers to such a run end (a deadline or SIGTERM
    /// run waits on a stream that does not): only then is "wall time minus
    /// the answer time" defined.
    pub fn answer_ends(self) -> bool {
        !matches!(self, Kind::Deadline | Kind::Sigterm)
    }

    /// The record's `subtype` for it.
    pub fn subtype(self) -> &'static str {
        match self {
            Kind::Finish => "success",
            Kind::Refused => "refused",
            Kind::TurnLimit => "error_max_turns",
            Kind::ProviderError => "error_during_execution",
            Kind::Deadline => "error_deadline",
            Kind::Sigterm => "aborted",
        }
    }
}

/// One line of the task file.
pub struct Task {
    /// The id (the record's file name).
    pub id: String,
    /// What the run is made to do.
    pub kind: Kind,
    /// Its working directory.
    pub dir: PathBuf,
}

impl Task {
    /// The prompt, with the marker the mock model reads.
    pub fn prompt(&self) -> String {
        format!(
            "[soak {} {}] Do the task; the prompt has 'quotes', $dollars and `ticks`.",
            self.id,
            self.kind.name()
        )
    }
}

/// `n` tasks with kinds drawn from `seed`, each with a directory of its own
/// under `root/work`, and the task file `root/tasks.tsv`.
pub fn make_tasks(root: &Path, n: usize, seed: u64) -> std::io::Result<Vec<Task>> {
    let mut rng = Rng::new(seed);
    let mut tasks = Vec::with_capacity(n);
    let mut file = String::new();
    for i in 0..n {
        let task = Task {
            id: format!("t{i:04}"),
            kind: *rng.pick(&KINDS),
            dir: root.join("work").join(format!("t{i:04}")),
        };
        std::fs::create_dir_all(&task.dir)?;
        file.push_str(&format!(
            "{}\t{}\t{}\n",
            task.id,
            task.dir.display(),
            task.prompt()
        ));
        tasks.push(task);
    }
    std::fs::write(root.join("tasks.tsv"), file)?;
    Ok(tasks)
}
