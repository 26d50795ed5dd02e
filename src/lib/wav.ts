// WAV (RIFF, PCM) written by hand: 16-bit little-endian mono samples behind the 44-byte
// header; and the reader of a WAV's format and length that tests and upstream checks use.

/** A WAV of `samples` (−1..1, clipped) at `sampleRate` Hz, 16-bit PCM, mono. */
export function encodeWav(samples: Float32Array, sampleRate: number): Buffer {
  const data = samples.length * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii');
  b.writeUInt32LE(16, 16); // fmt chunk size
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * 2, 28); // bytes per second
  b.writeUInt16LE(2, 32); // block align
  b.writeUInt16LE(16, 34); // bits per sample
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(data, 40);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    b.writeInt16LE(Math.round(s * 32767), 44 + i * 2);
  }
  return b;
}

export interface WavInfo {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  dataBytes: number;
  durationS: number;
}

/** The format of a RIFF/WAVE file (chunks walked to `fmt ` and `data`), or undefined when it is not one. */
export function wavInfo(b: Uint8Array): WavInfo | undefined {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  let fmt: Omit<WavInfo, 'dataBytes' | 'durationS'> | undefined;
  for (let at = 12; at + 8 <= buf.length;) {
    const id = buf.toString('ascii', at, at + 4);
    let size = buf.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 24 <= buf.length) {
      fmt = { format: buf.readUInt16LE(at + 8), channels: buf.readUInt16LE(at + 10), sampleRate: buf.readUInt32LE(at + 12), bitsPerSample: buf.readUInt16LE(at + 22) };
    }
    if (id === 'data' && fmt) {
      // a stream writer (espeak-ng --stdout) may not know the length: 0 or 0xffffffff means "to the end"
      if (size === 0 || size === 0xffffffff || at + 8 + size > buf.length) size = buf.length - at - 8;
      const bytesPerS = fmt.sampleRate * fmt.channels * (fmt.bitsPerSample / 8);
      return { ...fmt, dataBytes: size, durationS: bytesPerS ? size / bytesPerS : 0 };
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}
