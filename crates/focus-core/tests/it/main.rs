//! Integration tests of focus-core, in one binary (one link instead of many).
//!
//! Modules: `agent*` (the loop against a scripted provider: calls, waves,
//! hostile calls and schemas, pi's JSON events, seeded random runs), `json_*`
//! (the codec: conformance, conversions, depth, fuzzing, partial and pull
//! parsing, the `json_check` example, and that it stands alone), and
//! `docs_cite_real_names` with its source index `docs_cite` (the documents name
//! things that exist).

mod agent;
mod agent_hostile_calls;
mod agent_json;
mod agent_observe;
mod agent_property;
mod agent_schema_hostile;
mod agent_waves;
mod docs_cite;
mod docs_cite_real_names;
mod json_check_cli;
mod json_conformance;
mod json_convert;
mod json_deep;
mod json_fuzz;
mod json_partial;
mod json_pull_hostile;
mod json_stands_alone;
