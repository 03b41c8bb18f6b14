// A sound or video control says its clip's length: the browser's own controls round a clip under
// a second down to "0:00 / 0:00" (a 0.54 s sound, seen on a phone), which reads as empty.
import { expect } from '@esm-bundle/chai';
import { defineHostElements } from '../../host/index.js';
import { formatDuration } from '../../host/editor/controls/media-control.js';
import { waitUntil } from './support/probe.js';

describe('media controls: the length of a short clip', () => {
  it('formats lengths in tenths of a second under ten seconds, minutes and seconds above', () => {
    expect(formatDuration(0.54)).to.equal('0.5 s');
    expect(formatDuration(9.96)).to.equal('10.0 s');
    expect(formatDuration(65.4)).to.equal('1:05');
  });

  it("a 0.54 s sound's control shows 0.5 s once its metadata is in", async () => {
    defineHostElements();
    const control = document.createElement('platform-sound-control') as HTMLElement & Record<string, unknown>;
    Object.assign(control, {
      path: ['content', 'chime'],
      vccType: { kind: 'sound', accept: ['audio/wav'], maxBytes: 1_000_000 },
      value: '/test/fixtures/editor/short-chime.wav',
      label: 'Chime',
    });
    document.body.append(control);
    try {
      const duration = (): string | undefined => control.shadowRoot?.querySelector('#duration')?.textContent ?? undefined;
      await waitUntil(() => duration() !== undefined, 'the clip length');
      expect(duration()).to.equal('0.5 s');
    } finally {
      control.remove();
    }
  });
});
