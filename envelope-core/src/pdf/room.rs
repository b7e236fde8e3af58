//! Room for a text tag's signature: a signature drawn in the box of `{{signature:Client}}` alone
//! is as tall as one line of text, and inside its "Signed by" frame smaller still, so a signer
//! sees a footnote where their signature should be. The box grows upward into the free space
//! the page has above the tag (up to [`GROW_LINES`] lines, [`MAX_ROOM_HEIGHT`] points), stopping
//! short of any text above it, so that the signature is at least a line tall and never covers
//! the page's words. The page's text positions come from the same extraction that finds tags.
//!
//! Only tags grow: an explicit field's box is the sender's choice, and a form field has its own
//! widget.

use super::draw::Rect;

/// How many of the tag's lines its signature may take, grown upward.
pub const GROW_LINES: f64 = 3.0;
/// The tallest a grown box gets, in points.
pub const MAX_ROOM_HEIGHT: f64 = 48.0;
/// The space kept under text above, as a share of the tag's line.
const GAP: f64 = 0.25;

/// The box a signature or initials of the tag in `tag` is drawn in: `tag` grown upward into free
/// space, never past text in `text` (boxes of the page's other glyphs) whose horizontal span meets
/// the tag's, nor the page's top edge (`page_height`). Display space, origin at the bottom left.
pub fn signature_room(tag: Rect, text: &[Rect], page_height: f64) -> Rect {
    let top = tag.y + tag.h;
    let want = (tag.h * GROW_LINES).min(MAX_ROOM_HEIGHT).max(tag.h);
    let mut limit = (tag.y + want).min(page_height - tag.h * GAP);
    for t in text {
        let meets_x = t.x < tag.x + tag.w && t.x + t.w > tag.x;
        if !meets_x || t.y + t.h <= top {
            continue;
        }
        // Text that reaches above the tag's top: the box stops under its bottom (or does not grow
        // at all when it starts at the tag's own line).
        limit = limit.min(t.y - tag.h * GAP);
    }
    Rect {
        h: (limit - tag.y).max(tag.h),
        ..tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    #[test]
    fn grows_into_free_space_and_stops_under_text() {
        let tag = r(150.0, 600.0, 90.0, 10.0);
        // Nothing above: three lines.
        assert_eq!(signature_room(tag, &[], 792.0).h, 30.0);
        // A tall line: at most MAX_ROOM_HEIGHT.
        let tall = r(150.0, 600.0, 90.0, 24.0);
        assert_eq!(signature_room(tall, &[], 792.0).h, MAX_ROOM_HEIGHT);
        // Text 12 points above the tag's top, over its span: stops 2.5 points under it.
        let above = r(100.0, 622.0, 80.0, 10.0);
        assert_eq!(signature_room(tag, &[above], 792.0).h, 19.5);
        // Text above but beside the tag, and text on the tag's own line: no limit.
        let beside = r(300.0, 615.0, 50.0, 10.0);
        let same_line = r(60.0, 600.0, 85.0, 10.0);
        assert_eq!(signature_room(tag, &[beside, same_line], 792.0).h, 30.0);
        // Text right on top of the tag (a tight cell): the tag's own line, no less.
        let tight = r(150.0, 611.0, 90.0, 10.0);
        assert_eq!(signature_room(tag, &[tight], 792.0).h, 10.0);
        // The page's top edge.
        let high = r(150.0, 770.0, 90.0, 10.0);
        assert_eq!(signature_room(high, &[], 792.0).h, 19.5);
        // Width and the bottom edge never change.
        let grown = signature_room(tag, &[above], 792.0);
        assert_eq!((grown.x, grown.y, grown.w), (tag.x, tag.y, tag.w));
    }
}
