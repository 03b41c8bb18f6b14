/**
 * Small media files made in code (no binary files in the repository): a WAV
 * melody and a PNG picture. The demo uploads them to the project CDN at start,
 * so templates can show signed media URLs.
 */
import { deflateSync } from 'node:zlib';

/** A mono 16-bit PCM WAV of `notes` (frequencies in Hz, 0 for a rest), each `noteSeconds` long. */
export function melodyWav(notes: readonly number[], noteSeconds: number, sampleRate = 22_050): Buffer {
  const perNote = Math.round(noteSeconds * sampleRate);
  const samples = new Int16Array(perNote * notes.length);
  notes.forEach((frequency, index) => {
    for (let i = 0; i < perNote; i++) {
      const t = i / sampleRate;
      // A soft bell: the note, an octave above, quick attack, exponential decay.
      const envelope = Math.min(1, i / 200) * Math.exp(-3 * (i / perNote));
      const tone = frequency === 0 ? 0 : Math.sin(2 * Math.PI * frequency * t) + 0.3 * Math.sin(4 * Math.PI * frequency * t);
      samples[index * perNote + i] = Math.round(tone * envelope * 0.35 * 32_767);
    }
  });
  const data = Buffer.from(samples.buffer);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGB PNG of `width` × `height` whose pixels `paint(x, y)` gives as [r, g, b]. */
export function png(width: number, height: number, paint: (x: number, y: number) => readonly [number, number, number]): Buffer {
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    rows[row] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const [r, g, b] = paint(x, y);
      rows.set([r, g, b], row + 1 + x * 3);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolor, deflate, no filter set, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** The vault's treasure: a gold coin on a dark ground, 96 × 96. */
export function treasurePng(): Buffer {
  return png(96, 96, (x, y) => {
    const dx = x - 48;
    const dy = y - 48;
    const d = Math.sqrt(dx * dx + dy * dy);
    if (d < 30) {
      const shine = Math.max(0, 1 - Math.hypot(dx + 10, dy + 10) / 30);
      return [Math.min(255, 220 + 35 * shine), Math.min(255, 170 + 60 * shine), 40 + 80 * shine];
    }
    if (d < 34) return [150, 105, 20];
    return [24 + ((x + y) % 12 === 0 ? 10 : 0), 28, 48];
  });
}

/** A's and C's of a slow tune: the radio's default track (about 8 s). */
export function radioWav(): Buffer {
  const tune = [220, 262, 330, 392, 330, 262, 294, 349, 440, 349, 294, 0, 247, 294, 392, 494, 392, 294, 262, 330, 392, 523, 0, 0];
  return melodyWav(tune, 0.34);
}

/** A three-note chime: the greeting card's default sound. */
export function chimeWav(): Buffer {
  return melodyWav([784, 988, 1175], 0.18);
}
