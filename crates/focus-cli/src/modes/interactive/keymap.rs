//! The keymap is focus-tui's ([`focus_tui::keymap`]); this file re-exports it for
//! the interactive mode and holds what only focus's own docs concern: the
//! check that docs/cli.md shows the kit's key and keybindings tables.

pub use focus_tui::keymap::*;

/// docs/cli.md, as the tests check it against the code.
#[cfg(test)]
pub(crate) const CLI_DOC: &str = include_str!("../../../../../docs/cli.md");

/// Fails unless docs/cli.md holds `table` (the `what` table) exactly.
#[cfg(test)]
pub(crate) fn assert_cli_doc_shows(table: &str, what: &str) {
    assert!(
        CLI_DOC.contains(table),
        "docs/cli.md must contain the {what} table:\n{table}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/cli.md shows exactly the kit's key table.
    #[test]
    fn the_document_shows_the_table() {
        assert_cli_doc_shows(&markdown_table(), "keys");
    }

    /// docs/cli.md shows exactly the kit's keybindings (actions) table.
    #[test]
    fn the_document_shows_the_actions() {
        assert_cli_doc_shows(&focus_tui::keybindings::markdown_table(), "keybindings");
    }
}
