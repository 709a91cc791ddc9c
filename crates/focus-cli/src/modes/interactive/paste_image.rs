//! Ctrl+V: the clipboard's image attached to the next message, as pi does. The
//! terminal pastes text itself (bracketed paste); an image it cannot, so focus
//! reads it through a clipboard program ([`super::clipboard::read_image`]) on a
//! thread of its own, and the input shows a label, `[image #1]`, where the
//! image goes. Deleting the label drops the image; sending attaches those whose
//! label is still there.

use super::input::Input;
use super::ui::Ui;
use focus_core::message::Content;

impl Ui<'_> {
    /// Ctrl+V: starts reading the clipboard's image.
    pub(super) fn paste_image(&mut self) {
        let inputs = self.inputs.clone();
        let started = super::clipboard::read_image(move |result| {
            let _ = inputs.send(Input::PastedImage(result));
        });
        self.notice = Some(match started {
            Ok(()) => "reading the clipboard's image…".into(),
            Err(why) => why.to_string(),
        });
    }

    /// The clipboard's bytes came back: an image is attached and its label put
    /// in the input at the cursor; anything else is said in the notice.
    pub(super) fn pasted_image(&mut self, result: Result<Vec<u8>, String>) {
        let bytes = match result {
            Ok(bytes) => bytes,
            Err(why) => {
                self.notice = Some(why);
                return;
            }
        };
        // Recognized by its first bytes, as `@FILE` and the read tool do.
        let Some(mime_type) = focus_tools::read::image_mime_type(&bytes) else {
            self.notice =
                Some("the clipboard holds no PNG, JPEG, GIF or WebP image to attach".into());
            return;
        };
        let label = format!("[image #{}]", self.pasted_images.len() + 1);
        let image = Content::Image {
            data: focus_tools::read::base64_encode(&bytes).into(),
            mime_type: mime_type.to_string(),
        };
        self.pasted_images.push((label.clone(), image));
        let at = self.editor.cursor();
        self.editor.replace_range(at, at, &format!("{label} "));
        self.notice = Some(format!(
            "{label} attached ({} KB {mime_type}); it goes with your next message",
            bytes.len().div_ceil(1024)
        ));
    }

    /// The pasted images whose label `text` still holds, in the order pasted;
    /// the list is emptied.
    pub(super) fn take_pasted_images(&mut self, text: &str) -> Vec<Content> {
        std::mem::take(&mut self.pasted_images)
            .into_iter()
            .filter(|(label, _)| text.contains(label.as_str()))
            .map(|(_, image)| image)
            .collect()
    }
}
