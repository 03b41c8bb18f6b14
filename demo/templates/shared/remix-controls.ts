/**
 * The editor side of a demo template: while it is being remixed the body has
 * the class `remixing`, and a click on an element with `data-path="scope.key"`
 * opens that VCC's control (onPresentControl) instead of doing what it does
 * for a viewer.
 */
import type { InstantRemixing } from 'platform-kit/guest';

/** Wires the page's `[data-path]` elements; returns whether the template is being remixed now. */
export function mountRemixControls(remix: InstantRemixing, onSetRemixing?: (isRemixing: boolean) => void): () => boolean {
  let remixing = false;
  remix.onSetRemixing((isRemixing) => {
    remixing = isRemixing;
    document.body.classList.toggle('remixing', isRemixing);
    onSetRemixing?.(isRemixing);
  });
  for (const element of document.querySelectorAll<HTMLElement>('[data-path]')) {
    element.addEventListener('click', (event) => {
      if (!remixing) return;
      event.stopPropagation();
      void remix.onPresentControl(element.dataset['path']!.split('.'));
    });
  }
  return () => remixing;
}
