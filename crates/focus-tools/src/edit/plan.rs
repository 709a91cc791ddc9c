//! All the edits of one call placed at once ([`plan`]): each located against
//! the original text (edits do not see each other's results), put in file
//! order and checked for overlap, so that either every edit applies or none
//! does; and the text they make together ([`apply`]).

use crate::edit::locate::{line_of, locate, Located};
use crate::edit::request::Replacement;

/// One edit placed in the file.
pub(super) struct Planned {
    /// Which edit of the call it is (0-based), for messages.
    pub index: usize,
    /// Where it applies in the LF-normalised text.
    pub located: Located,
    /// The text put there, with LF line endings.
    pub new_text: String,
}

/// Places every edit in `text` (the file with LF line endings), in file order.
///
/// # Errors
///
/// An edit that cannot be located (see [`locate`]), or two edits that overlap;
/// the message names them and says that no edit was applied.
pub(super) fn plan(text: &str, edits: &[Replacement], shown: &str) -> Result<Vec<Planned>, String> {
    let mut planned: Vec<Planned> = Vec::new();
    for (i, edit) in edits.iter().enumerate() {
        let label = edit_label(i, edits.len());
        let old = edit.old_text.replace("\r\n", "\n");
        let located = locate(text, &old, &label, shown)?;
        planned.push(Planned {
            index: i,
            located,
            new_text: edit.new_text.replace("\r\n", "\n"),
        });
    }
    planned.sort_by_key(|p| p.located.range.start);
    for pair in planned.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.located.range.end > b.located.range.start {
            return Err(format!(
                "{} and {} overlap in {shown} (both touch line {}). Merge them into one edit. \
                 No edits were applied.",
                edit_label(a.index, edits.len()),
                edit_label(b.index, edits.len()).to_lowercase(),
                line_of(text, b.located.range.start)
            ));
        }
    }
    Ok(planned)
}

/// `text` with every planned replacement made (`planned` in file order, as
/// [`plan`] returns it).
pub(super) fn apply(text: &str, planned: &[Planned]) -> String {
    let mut updated = String::with_capacity(text.len());
    let mut cursor = 0;
    for p in planned {
        updated.push_str(&text[cursor..p.located.range.start]);
        updated.push_str(&p.new_text);
        cursor = p.located.range.end;
    }
    updated.push_str(&text[cursor..]);
    updated
}

/// "Edit 2" when there are several, "The edit" when there is one.
fn edit_label(index: usize, count: usize) -> String {
    if count == 1 {
        "The edit".to_string()
    } else {
        format!("Edit {}", index + 1)
    }
}
