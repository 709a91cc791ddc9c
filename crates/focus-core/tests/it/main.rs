//! Integration tests of focus-core, in one binary (one link instead of many).
//!
//! Modules: `agent*` (the loop against a scripted provider: calls, waves,
//! hostile calls and schemas, pi's JSON events, seeded random runs), `json_*`
//! (the codec: conformance, conversions, depth, fuzzing, partial and pull
//! parsing, the `json_check` example, and that it stands alone). The check
//! that the documents name things that exist reads the whole workspace, so it
//! lives with the other whole-tree checks (focus-testkit's `tests/tidy`): these
//! tests read nothing outside the crate.

mod agent;
mod agent_execute_one;
mod agent_hostile_calls;
mod agent_json;
mod agent_observe;
mod agent_property;
mod agent_schema_hostile;
mod agent_waves;
mod json_check_cli;
mod json_conformance;
mod json_convert;
mod json_deep;
mod json_fuzz;
mod json_partial;
mod json_pull_hostile;
mod json_stands_alone;
