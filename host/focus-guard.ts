/**
 * Keeps the viewer's focus where the viewer put it: a template's iframe takes
 * the focus only from a gesture aimed at it.
 *
 * Why: any document, also a cross-origin one in an iframe, may call focus()
 * on its own elements, and Chromium moves the page's focus into the frame
 * whether or not the viewer touched it (no user activation is needed). A
 * template that calls focus() in a loop then receives every key the viewer
 * types into the host page's own inputs.
 *
 * What Chromium (156) lets a host do about it, as tried: `inert` on the iframe
 * or an ancestor, `visibility: hidden` and `pointer-events: none` do not stop
 * a cross-origin frame's focus(); focusing a host element from inside the
 * window's blur listener is ignored; only `display: none` stops it, and a
 * focus() from a later task takes the focus back. The host cannot see a
 * gesture inside the frame either (none of its pointer events reach the
 * host, and the user activation it spreads to the host looks like the host's
 * own). So:
 *   - When the frame takes the focus (the host window's blur, with the frame
 *     as the active element), it may keep it after Tab (sequential
 *     navigation into it), after a pointer the host saw at the frame's place
 *     (see below), or when the page has a user activation that no gesture of
 *     the host's own explains: no key and no press in the host for
 *     `HOST_GESTURE_MS` (a click in the frame spreads its activation to the
 *     host; a thief that steals while the viewer types in the host finds
 *     the host's own keys there).
 *   - Otherwise the focus goes back, in the next task, to the host element
 *     that had it. A frame that does it again is a thief: from then on it is
 *     held (`display: none`) whenever it has not the focus and no pointer is
 *     at its place. A pointer that comes there (which the host sees, the
 *     frame being gone: a mouse on its way to a click, a first tap) shows it
 *     again, and counts as aimed at it.
 *
 * What it cannot tell apart: a template that waits `HOST_GESTURE_MS` after
 * the viewer's last key in the host and steals while the page still has
 * the activation (5 s in Chromium); a mouse resting on the template; keys
 * typed within the few milliseconds of its first two steals; and a click
 * into a frame made less than `HOST_GESTURE_MS` after a host key (a feed's
 * k brings a template up, and the viewer clicks it at once), which looks
 * like a template taking the focus at its load: that first click's focus
 * goes back, the next one stays.
 */

/** How long after Tab the frame may take the focus (the one move of sequential navigation). */
export const TAB_FOCUS_MS = 1_000;

/** How long after a key or a press in the host the page's user activation may be the host's own. */
export const HOST_GESTURE_MS = 1_000;

/** Steals undone before the frame counts as a thief and is held (hidden) whenever it is not aimed at. */
export const STEALS_BEFORE_HOLD = 2;

/** The element that has the focus, through open shadow roots. */
function deepActiveElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/** True when `element` takes typed text: the keys a thief wants. */
function takesText(element: Element | null): boolean {
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) return !['button', 'submit', 'reset', 'checkbox', 'radio', 'range', 'color', 'file', 'image'].includes(element.type);
  return element instanceof HTMLElement && element.isContentEditable;
}

/** True when `node` is `iframe` or one of its ancestors in the flat tree (shadow hosts included). */
function containsFrame(node: EventTarget | undefined, iframe: HTMLIFrameElement): boolean {
  if (!(node instanceof Node)) return false;
  for (let at: Node | null = iframe; at; at = at.parentNode ?? (at instanceof ShadowRoot ? at.host : null)) {
    if (at === node) return true;
  }
  return false;
}

/**
 * Guards one iframe's focus (see the file's comment). Returns the function
 * that removes every listener and leaves the iframe as it found it.
 */
export function guardFrameFocus(iframe: HTMLIFrameElement): () => void {
  /**
   * True from a pointer the host saw at the frame's place until it sees one elsewhere or a key in
   * the host: once the pointer is over the frame the host sees nothing of it, so this is a state.
   */
  let pointerOnFrame = false;
  /** performance.now() of the last Tab, and of the last key or press of the host's own. */
  let tabAt = -Infinity;
  // An activation the page has before the frame exists is the host's own.
  // Older browsers have no userActivation (the DOM types say otherwise): none reads as no gesture.
  let hostGestureAt = (navigator.userActivation?.isActive ?? false) ? performance.now() : -Infinity;
  /** The host element the viewer's focus was last on (not the frame), for giving it back. */
  let viewerFocus: Element | null = null;
  /** Steals undone over the frame's life; from STEALS_BEFORE_HOLD on, the frame is a thief. */
  let steals = 0;
  /** The iframe's own inline display while held, undefined when not held. */
  let heldDisplay: { value: string; priority: string } | undefined;

  const release = (): void => {
    if (!heldDisplay) return;
    iframe.style.setProperty('display', heldDisplay.value, heldDisplay.priority);
    heldDisplay = undefined;
  };
  /** Holds a thief that nothing aims at and that has not the focus; shows it otherwise. */
  const settle = (): void => {
    const hold = steals >= STEALS_BEFORE_HOLD && !pointerOnFrame && deepActiveElement() !== iframe;
    if (!hold) return release();
    if (heldDisplay) return;
    heldDisplay = { value: iframe.style.getPropertyValue('display'), priority: iframe.style.getPropertyPriority('display') };
    iframe.style.setProperty('display', 'none', 'important');
  };
  /** performance.now() of the host page's own `iframe.focus()`: the host may always give its frame the focus. */
  let hostFocusAt = -Infinity;
  const aimedAt = (): boolean => pointerOnFrame || performance.now() - tabAt <= TAB_FOCUS_MS || performance.now() - hostFocusAt <= TAB_FOCUS_MS;
  // The host's own focus() of the frame is no theft: a call on this element can only come from the
  // host page (the template has no reference to it). An own property, removed when the guard goes.
  // Called with the frame as `this` (below), as the browser's own method expects.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const nativeFocus = iframe.focus;
  iframe.focus = function focus(this: HTMLIFrameElement, options?: FocusOptions): void {
    hostFocusAt = performance.now();
    release();
    nativeFocus.call(this, options);
  };

  // A pointer at the frame's place that the host sees: the frame is held (gone), or the pointer
  // is on the way to it. The element under it must hold the frame (not a control drawn over it,
  // as the editor's overlay is), and the point must be inside the frame's box (or the held
  // frame's place: its parent's box).
  const onPointer = (event: PointerEvent | TouchEvent): void => {
    const point = 'touches' in event ? event.touches[0] : event;
    if (!point) return;
    const box = heldDisplay ? iframe.parentElement : iframe;
    const rect = box?.getBoundingClientRect();
    const inside = rect !== undefined && point.clientX >= rect.left && point.clientX < rect.right && point.clientY >= rect.top && point.clientY < rect.bottom;
    const onFrame = inside && containsFrame(event.composedPath()[0], iframe);
    if (event.type !== 'pointermove' && !onFrame && takesText(event.composedPath()[0] as Element)) hostGestureAt = performance.now();
    if (onFrame === pointerOnFrame) return;
    pointerOnFrame = onFrame;
    // Shown before the press that follows the move, so the press lands in the frame.
    if (onFrame) release();
  };
  const onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Tab') {
      tabAt = performance.now();
      // A held frame shows for the move, so that Tab may reach it.
      release();
      setTimeout(settle, TAB_FOCUS_MS + 10);
      return;
    }
    if (takesText(deepActiveElement())) hostGestureAt = performance.now();
    // The viewer types into the host with the pointer resting on the template: not aimed at it.
    if (pointerOnFrame) {
      pointerOnFrame = false;
      settle();
    }
  };
  const onFocusIn = (event: FocusEvent): void => {
    const target = event.composedPath()[0];
    if (target === iframe || !(target instanceof Element) || target === document.body) return;
    viewerFocus = target;
    // Tab moved the focus within the host: the frame's chance ends with it.
    tabAt = -Infinity;
    pointerOnFrame = false;
    settle();
  };
  const onFocusOut = (): void => {
    // The focus may be on its way to nothing (a click on the page's background): look once it landed.
    setTimeout(() => {
      const active = deepActiveElement();
      if (active === null || active === document.body || active === document.documentElement) viewerFocus = null;
    }, 0);
  };
  // The host window's blur is the host's one sign that the focus went into a frame.
  const onWindowBlur = (): void => {
    if (deepActiveElement() !== iframe) return;
    if (aimedAt()) return;
    const activated = navigator.userActivation?.isActive ?? false;
    if (activated && performance.now() - hostGestureAt > HOST_GESTURE_MS) return;
    // Taken without a gesture aimed at the frame: give the focus back to where the viewer put it,
    // from a task of its own (a focus() inside this listener is ignored).
    steals++;
    const back = viewerFocus;
    setTimeout(() => {
      if (deepActiveElement() === iframe) {
        if (back?.isConnected && back instanceof HTMLElement) back.focus({ preventScroll: true });
        else iframe.blur();
      }
      settle();
    }, 0);
  };

  const capture = { capture: true, passive: true } as const;
  window.addEventListener('pointermove', onPointer, capture);
  window.addEventListener('pointerdown', onPointer, capture);
  window.addEventListener('touchstart', onPointer, capture);
  window.addEventListener('keydown', onKeydown, capture);
  document.addEventListener('focusin', onFocusIn, capture);
  document.addEventListener('focusout', onFocusOut, capture);
  window.addEventListener('blur', onWindowBlur);
  const active = deepActiveElement();
  if (active && active !== document.body && active !== iframe) viewerFocus = active;
  return () => {
    window.removeEventListener('pointermove', onPointer, capture);
    window.removeEventListener('pointerdown', onPointer, capture);
    window.removeEventListener('touchstart', onPointer, capture);
    window.removeEventListener('keydown', onKeydown, capture);
    document.removeEventListener('focusin', onFocusIn, capture);
    document.removeEventListener('focusout', onFocusOut, capture);
    window.removeEventListener('blur', onWindowBlur);
    delete (iframe as { focus?: unknown }).focus;
    release();
  };
}
