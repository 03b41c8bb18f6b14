/**
 * Where a control overlay goes: pure placement math, no DOM, so it is unit
 * tested in Node (test/node/editor-overlay-position.test.ts).
 *
 * The guest gives a point in template coordinates (CSS pixels of the iframe's
 * viewport). {@link templateToViewport} maps it to the host page's viewport
 * through the iframe's content box; {@link placeOverlay} then puts the overlay
 * next to that point and keeps it on screen: it opens below and to the right
 * of the point, flips to the other side when that side has no room, and
 * clamps to the viewport's margin when neither side has (a small viewport).
 */

/** A point in CSS pixels. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** A size in CSS pixels. */
export interface Size {
  readonly width: number;
  readonly height: number;
}

/** A rectangle in CSS pixels, like a DOMRect's own fields. */
export interface Rect extends Point, Size {}

/** Where the iframe's content (the template's viewport) sits in the page's viewport. */
export interface FrameBox {
  /** The iframe's getBoundingClientRect(). */
  readonly rect: Rect;
  /** The iframe's clientLeft and clientTop: its border, which the template's viewport starts after. */
  readonly borderLeft: number;
  readonly borderTop: number;
  /** The iframe's clientWidth and clientHeight: the template's viewport size. */
  readonly contentWidth: number;
  readonly contentHeight: number;
}

/** Options of {@link placeOverlay}. */
export interface PlacementInput {
  /** The point the overlay belongs to, in viewport coordinates. */
  readonly anchor: Point;
  /** The overlay's measured size. */
  readonly size: Size;
  /** The page's viewport size. */
  readonly viewport: Size;
  /** Distance kept from the viewport's edges. Default 8. */
  readonly marginPx?: number;
  /** Distance between the anchor and the overlay. Default 8. */
  readonly gapPx?: number;
}

/** Where the overlay goes. */
export interface Placement {
  /** Left and top of the overlay, in viewport coordinates (for `position: fixed`). */
  readonly left: number;
  readonly top: number;
  /** The overlay opens to the left of the anchor (no room to its right). */
  readonly flippedX: boolean;
  /** The overlay opens above the anchor (no room below). */
  readonly flippedY: boolean;
  /** The overlay did not fit on either side on this axis and was pushed inside the margins. */
  readonly clampedX: boolean;
  readonly clampedY: boolean;
}

/**
 * Maps a template point to the page's viewport. A point outside the template
 * (a guest may send any finite numbers) is brought to the template's edge
 * first: a control never opens for a place the user cannot see.
 */
export function templateToViewport(point: Point, frame: FrameBox): Point {
  const x = clamp(point.x, 0, Math.max(0, frame.contentWidth));
  const y = clamp(point.y, 0, Math.max(0, frame.contentHeight));
  return { x: frame.rect.x + frame.borderLeft + x, y: frame.rect.y + frame.borderTop + y };
}

/** The centre of the template, where a control opens when there is neither a position nor a click. */
export function templateCentre(frame: FrameBox): Point {
  return { x: frame.contentWidth / 2, y: frame.contentHeight / 2 };
}

/** Places an overlay of `size` next to `anchor`, inside `viewport`. See the module comment. */
export function placeOverlay(input: PlacementInput): Placement {
  const margin = input.marginPx ?? 8;
  const gap = input.gapPx ?? 8;
  const x = placeAxis(input.anchor.x, input.size.width, input.viewport.width, margin, gap);
  const y = placeAxis(input.anchor.y, input.size.height, input.viewport.height, margin, gap);
  return { left: x.start, top: y.start, flippedX: x.flipped, flippedY: y.flipped, clampedX: x.clamped, clampedY: y.clamped };
}

function placeAxis(anchor: number, length: number, viewport: number, margin: number, gap: number): { start: number; flipped: boolean; clamped: boolean } {
  const low = margin;
  const high = viewport - margin;
  const after = anchor + gap;
  if (after + length <= high) return { start: Math.max(low, after), flipped: false, clamped: after < low };
  const before = anchor - gap - length;
  // The anchor itself may lie past the far edge (a template scrolled partly out of view): then flipping is not enough.
  if (before >= low && before + length <= high) return { start: before, flipped: true, clamped: false };
  // Neither side has room: keep as much of it on screen as we can, its start always visible.
  const start = Math.max(low, Math.min(high - length, after));
  return { start, flipped: false, clamped: true };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
