// The host page of one member of the players-meet swipe part: the kit's own
// TemplateFrame, told it speaks for a feed (focusByPlayback, as
// <platform-feed> sets it), holds the member page on the other origin and
// tells it when it plays (playbackStateChanged), which is what a feed sends a
// template at the end of a swipe. Node calls play() and reads the wall-clock
// time it was called at.
import { TemplateFrame } from '../../host/template-frame.js';

declare global {
  interface Window {
    __host?: { play(isPlaying: boolean): number; linked(): boolean };
  }
}

const member = new URLSearchParams(location.search).get('member') ?? '';
const frame = new TemplateFrame({
  src: member,
  container: document.body,
  // Peer connections in a cross-origin frame need these (TESTING.md), as a feed's `allow` gives them.
  allow: 'camera; microphone',
  projectId: 'bench',
  focusByPlayback: true,
  title: 'players-meet member',
});
let isLinked = false;
frame.whenLinked().then(
  () => (isLinked = true),
  () => undefined,
);

window.__host = {
  play(isPlaying: boolean): number {
    const at = performance.timeOrigin + performance.now();
    void frame.notify('playbackStateChanged', isPlaying).catch(() => undefined);
    return at;
  },
  linked: () => isLinked,
};
