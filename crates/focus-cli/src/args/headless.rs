//! The flags of a headless run (print and JSON modes): what the run's outcome
//! means for the exit code, the result record, where the final answer goes,
//! the turn limit, the deadline and the permission rules given on the command line. Parsed apart from the other flags, into [`Headless`].

use super::UsageError;
use std::path::PathBuf;

/// How a headless run reports and bounds itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Headless {
    /// `--denials ok`: a run with refused tool calls exits 0 when it
    /// otherwise finished (`--denials fail`, the default, gives them their own code).
    pub denials_ok: bool,
    /// `--output-format json`: print mode writes one result record at the end
    /// instead of the answer.
    pub result_json: bool,
    /// `--output-last-message FILE`: the final answer is written there.
    pub last_message: Option<PathBuf>,
    /// `--output-diff FILE`: the run's `git diff` against the starting tree
    /// is written there ([`crate::modes::output_diff`]).
    pub output_diff: Option<PathBuf>,
    /// `--max-turns N`: model calls allowed per prompt.
    pub max_turns: Option<usize>,
    /// `--deadline DURATION`: how long the whole run may take.
    pub deadline: Option<std::time::Duration>,
    /// `--output-schema FILE`: the JSON Schema the final answer must validate against.
    pub output_schema: Option<PathBuf>,
    /// `--output-schema-retries N`: how often the model is asked again (default 2).
    pub output_schema_retries: Option<u32>,
    /// `--max-cost USD`: the run's cost budget (estimated usage counts).
    pub max_cost_usd: Option<f64>,
    /// `--allow RULE` (repeatable): permission rules added to the settings'
    /// `permissions.allow`, in their syntax (`bash(cargo test:*)`).
    pub allow: Vec<String>,
    /// `--deny RULE` (repeatable): added to `permissions.deny`.
    pub deny: Vec<String>,
    /// `--events deltas`: JSON mode writes the linear event stream (each delta
    /// once, the message only at its end) instead of pi's shape (`--events pi`,
    /// the default). See docs/json-events.md.
    pub deltas_events: bool,
}

/// Takes `flag` (with its value from `value`) when it is a headless flag:
/// `None` when it is not one.
pub fn take(
    headless: &mut Headless,
    flag: &str,
    value: &mut dyn FnMut(&str) -> Result<String, UsageError>,
) -> Option<Result<(), UsageError>> {
    let result = match flag {
        "--denials" => match value("ok|fail") {
            Ok(v) if v == "ok" => {
                headless.denials_ok = true;
                Ok(())
            }
            Ok(v) if v == "fail" => {
                headless.denials_ok = false;
                Ok(())
            }
            Ok(other) => Err(UsageError(format!(
                "unknown value {other:?} for --denials; use ok or fail"
            ))),
            Err(e) => Err(e),
        },
        "--output-format" => match value("text|json") {
            Ok(v) if v == "json" => {
                headless.result_json = true;
                Ok(())
            }
            Ok(v) if v == "text" => {
                headless.result_json = false;
                Ok(())
            }
            Ok(other) => Err(UsageError(format!(
                "unknown output format {other:?} for --output-format; use text or json"
            ))),
            Err(e) => Err(e),
        },
        "--events" => match value("pi|deltas") {
            Ok(v) if v == "deltas" || v == "pi" => {
                headless.deltas_events = v == "deltas";
                Ok(())
            }
            Ok(other) => Err(UsageError(format!(
                "unknown event shape {other:?} for --events; use pi or deltas"
            ))),
            Err(e) => Err(e),
        },
        "--output-last-message" => value("FILE").and_then(|v| {
            if v.is_empty() {
                return Err(UsageError("--output-last-message needs a file name".into()));
            }
            headless.last_message = Some(PathBuf::from(v));
            Ok(())
        }),
        "--output-diff" => value("FILE").and_then(|v| {
            if v.is_empty() {
                return Err(UsageError("--output-diff needs a file name".into()));
            }
            headless.output_diff = Some(PathBuf::from(v));
            Ok(())
        }),
        "--max-turns" => value("N").and_then(|v| match v.parse::<usize>() {
            Ok(n) if n > 0 => {
                headless.max_turns = Some(n);
                Ok(())
            }
            _ => Err(UsageError(format!(
                "--max-turns takes a whole number of model calls above 0, not {v:?}"
            ))),
        }),
        "--output-schema" => value("FILE").and_then(|v| {
            if v.is_empty() {
                return Err(UsageError("--output-schema needs a file name".into()));
            }
            headless.output_schema = Some(PathBuf::from(v));
            Ok(())
        }),
        "--output-schema-retries" => value("N").and_then(|v| match v.parse::<u32>() {
            Ok(n) => {
                headless.output_schema_retries = Some(n);
                Ok(())
            }
            Err(_) => Err(UsageError(format!(
                "--output-schema-retries takes a whole number such as 2, not {v:?}"
            ))),
        }),
        "--max-cost" => value("USD").and_then(|v| match v.parse::<f64>() {
            Ok(usd) if usd.is_finite() && usd > 0.0 => {
                headless.max_cost_usd = Some(usd);
                Ok(())
            }
            _ => Err(UsageError(format!(
                "--max-cost takes an amount of US dollars above 0 such as 0.50, not {v:?}"
            ))),
        }),
        "--deadline" => value("DURATION").and_then(|v| {
            headless.deadline = Some(parse_duration(&v).ok_or_else(|| {
                UsageError(format!(
                    "--deadline takes a duration like 90s, 15m, 2h or 500ms, not {v:?}"
                ))
            })?);
            Ok(())
        }),
        "--allow" | "--deny" => value("RULE").and_then(|v| {
            focus_tools::gates::rules::Rule::parse(&v)
                .map_err(|e| UsageError(format!("{flag} {v:?}: {e}")))?;
            let list = if flag == "--allow" {
                &mut headless.allow
            } else {
                &mut headless.deny
            };
            list.push(v);
            Ok(())
        }),
        _ => return None,
    };
    Some(result)
}

/// A duration as `--deadline` takes it: a whole number with `ms`, `s`, `m`
/// or `h` (a bare number is seconds), above zero.
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let number: u64 = digits.parse().ok().filter(|n| *n > 0)?;
    let millis = match &text[digits.len()..] {
        "ms" => number,
        "" | "s" => number.checked_mul(1000)?,
        "m" => number.checked_mul(60_000)?,
        "h" => number.checked_mul(3_600_000)?,
        _ => return None,
    };
    Some(std::time::Duration::from_millis(millis))
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use crate::args::parse;

    #[test]
    fn headless_flags_parse_and_refuse_nonsense() {
        let args = parse([
            "-p",
            "--denials",
            "ok",
            "--output-format=json",
            "--output-last-message",
            "out.txt",
            "--max-turns",
            "3",
            "--allow",
            "bash(cargo test:*)",
            "--deny=write",
            "--events",
            "deltas",
            "hi",
        ])
        .unwrap();
        assert_eq!(args.headless.allow, ["bash(cargo test:*)"]);
        assert_eq!(args.headless.deny, ["write"]);
        assert!(args.headless.denials_ok && args.headless.result_json);
        assert!(args.headless.deltas_events);
        assert_eq!(args.headless.max_turns, Some(3));
        assert_eq!(
            args.headless.last_message.as_deref(),
            Some(std::path::Path::new("out.txt"))
        );
        assert!(!parse(["-p", "hi"]).unwrap().headless.denials_ok);
        let err = |a: &[&str]| parse(a.iter().copied()).unwrap_err().0;
        assert!(err(&["--denials", "maybe"]).contains("use ok or fail"));
        assert!(err(&["--output-format", "xml"]).contains("use text or json"));
        assert!(err(&["--max-turns", "0"]).contains("above 0"));
        let ms = |t: &str| parse_duration(t).map(|d| d.as_millis());
        assert_eq!(ms("90s"), Some(90_000));
        assert_eq!(ms("15m"), Some(900_000));
        assert_eq!(ms("2h"), Some(7_200_000));
        assert_eq!(ms("500ms"), Some(500));
        assert_eq!(ms("7"), Some(7_000));
        for bad in ["", "0s", "-1s", "1d", "s", "1.5s"] {
            assert_eq!(ms(bad), None, "{bad}");
        }
        assert!(err(&["--deadline", "soon"]).contains("like 90s"));
        assert!(err(&["--max-turns", "x"]).contains("\"x\""));
        assert!(err(&["--allow", "bash(unclosed"]).starts_with("--allow \"bash(unclosed\": "));
    }
}
