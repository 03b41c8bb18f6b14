// Night radio: an audio template that plays only while it is in focus in the
// feed (onPlaybackStateChanged), with a horizontal slider that keeps its own
// gesture: a touch on it calls requestCancelTouch(), so the feed stops
// following that finger and does not swipe to the next template.
import { InstantRemixing } from 'platform-kit/guest';
import { joinFeed } from '../shared/feed.js';
import { mountRemixControls } from '../shared/remix-controls.js';

const remix = new InstantRemixing();
const $ = <T extends Element>(selector: string): T => document.querySelector<T>(selector)!;
const audio = $<HTMLAudioElement>('audio');
const scrub = $<HTMLElement>('.scrub');
const toggle = $<HTMLButtonElement>('.toggle');
/** What the viewer or the feed wants: the audio follows it. */
let wantPlaying = false;

const text = (path: [string, string], fallback: string): string => {
  const value = remix.get(path);
  return typeof value === 'string' ? value : fallback;
};

function render(): void {
  $<HTMLElement>('h1').textContent = text(['station', 'name'], 'Radio');
  $<HTMLElement>('.tagline').textContent = text(['station', 'tagline'], '');
  document.body.style.setProperty('--background', text(['station', 'background'], '#14142b'));
  document.body.style.setProperty('--accent', text(['station', 'accent'], '#ffb703'));
  audio.loop = remix.get(['station', 'loop']) !== false;
  const track = text(['station', 'track'], '');
  if (track !== '' && audio.getAttribute('src') !== track) {
    audio.src = track;
    if (wantPlaying) play();
  }
}

function play(): void {
  wantPlaying = true;
  // Autoplay needs the viewer to have touched the feed at least once; otherwise the Play button does it.
  audio.play().catch(() => {
    if (wantPlaying) document.body.dataset['state'] = 'blocked';
  });
}

function pause(): void {
  wantPlaying = false;
  audio.pause();
}

const clock = (seconds: number): string => (Number.isFinite(seconds) ? `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}` : '0:00');
function showPosition(): void {
  const fraction = audio.duration > 0 ? audio.currentTime / audio.duration : 0;
  $<HTMLElement>('.fill').style.width = `${fraction * 100}%`;
  $<HTMLElement>('.thumb').style.left = `${fraction * 100}%`;
  scrub.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
  $<HTMLElement>('.elapsed').textContent = clock(audio.currentTime);
  $<HTMLElement>('.duration').textContent = clock(audio.duration);
}

audio.addEventListener('playing', () => {
  document.body.dataset['state'] = 'playing';
  toggle.textContent = 'Pause';
});
audio.addEventListener('pause', () => {
  document.body.dataset['state'] = 'paused';
  toggle.textContent = 'Play';
});
audio.addEventListener('timeupdate', showPosition);
audio.addEventListener('loadedmetadata', showPosition);
toggle.addEventListener('click', () => (audio.paused ? play() : pause()));

// ─── the slider ──────────────────────────────────────────────────────────────

function seekTo(clientX: number): void {
  const rect = scrub.getBoundingClientRect();
  const fraction = Math.min(1, Math.max(0, (clientX - rect.left) / rect.width));
  if (audio.duration > 0) audio.currentTime = fraction * audio.duration;
  showPosition();
}

// Touch: a finger that lands on the slider scrubs, wherever it drifts. The feed has
// already seen the touchstart (FeedSdk forwards every touch), so the template takes
// the gesture back at once with requestCancelTouch(): the feed stops following this
// finger, even when the drag turns vertical, and does not swipe to the next template.
let touchId: number | null = null;
scrub.addEventListener(
  'touchstart',
  (event) => {
    const touch = event.changedTouches[0];
    if (!touch || remixing()) return;
    touchId = touch.identifier;
    document.body.dataset['scrubbing'] = 'true';
    void feed.requestCancelTouch();
    seekTo(touch.clientX);
  },
  { passive: true },
);
scrub.addEventListener(
  'touchmove',
  (event) => {
    const touch = [...event.changedTouches].find((item) => item.identifier === touchId);
    if (touch) seekTo(touch.clientX);
  },
  { passive: true },
);
scrub.addEventListener('touchend', () => {
  touchId = null;
  delete document.body.dataset['scrubbing'];
});
// Mouse and pen: no feed gesture to take.
scrub.addEventListener('pointerdown', (event) => {
  if (event.pointerType === 'touch' || remixing()) return;
  scrub.setPointerCapture(event.pointerId);
  seekTo(event.clientX);
});
scrub.addEventListener('pointermove', (event) => {
  if (event.pointerType !== 'touch' && scrub.hasPointerCapture(event.pointerId)) seekTo(event.clientX);
});
scrub.addEventListener('keydown', (event) => {
  const step = event.key === 'ArrowRight' ? 5 : event.key === 'ArrowLeft' ? -5 : 0;
  if (step === 0 || !(audio.duration > 0)) return;
  event.preventDefault();
  audio.currentTime = Math.min(audio.duration, Math.max(0, audio.currentTime + step));
  showPosition();
});

// ─── remixing and the feed ───────────────────────────────────────────────────

remix.onValueChanged(render);
const remixing = mountRemixControls(remix);
const feed = joinFeed({
  onPlaybackStateChanged: (isPlaying) => {
    document.body.dataset['focus'] = String(isPlaying);
    if (isPlaying) play();
    else pause();
  },
});
render();
void remix.ready().then(render);
void feed.load();
