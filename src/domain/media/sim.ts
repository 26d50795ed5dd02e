// The built-in media simulator: real files, no model. txt2img renders a PNG of the requested
// size that depends only on the seed (a gradient between two colours with soft discs); text to
// speech speaks through espeak-ng when it is installed, else with a plain synthetic voice
// (voiced tones for letters, noise for sibilants, pauses at spaces and punctuation). Its
// duration follows the text's length and the speed.
import { spawn } from 'node:child_process';
import { encodePng } from '../../lib/png.ts';
import { encodeWav, wavInfo } from '../../lib/wav.ts';
import { rng } from '../../lib/prng.ts';


export async function simImage(width: number, height: number, seed: number): Promise<Buffer> {
  return encodePng(width, height, simPixels(width, height, seed));
}

/** The simulator's picture for `seed` as RGB bytes (what image edits draw new content from). */
export function simPixels(width: number, height: number, seed: number): Uint8Array {
  const rnd = rng(seed); // the same seed, the same image
  const c0 = [rnd() * 255, rnd() * 255, rnd() * 255];
  const c1 = [rnd() * 255, rnd() * 255, rnd() * 255];
  const angle = rnd() * Math.PI * 2;
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const discs = Array.from({ length: 3 + Math.floor(rnd() * 5) }, () => ({
    x: rnd() * width, y: rnd() * height, r: (0.05 + rnd() * 0.25) * Math.min(width, height),
    c: [rnd() * 255, rnd() * 255, rnd() * 255], a: 0.35 + rnd() * 0.5,
  }));
  const rgb = new Uint8Array(width * height * 3);
  const span = Math.abs(dx) * width + Math.abs(dy) * height || 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = Math.min(1, Math.max(0, ((x * dx + y * dy) + (dx < 0 ? -dx * width : 0) + (dy < 0 ? -dy * height : 0)) / span));
      let r = c0[0]! + (c1[0]! - c0[0]!) * t;
      let g = c0[1]! + (c1[1]! - c0[1]!) * t;
      let b = c0[2]! + (c1[2]! - c0[2]!) * t;
      for (const d of discs) {
        const dist = Math.hypot(x - d.x, y - d.y);
        if (dist < d.r) {
          const k = d.a * (1 - dist / d.r);
          r += (d.c[0]! - r) * k;
          g += (d.c[1]! - g) * k;
          b += (d.c[2]! - b) * k;
        }
      }
      const i = (y * width + x) * 3;
      rgb[i] = r;
      rgb[i + 1] = g;
      rgb[i + 2] = b;
    }
  }
  return rgb;
}

export interface SpeechOptions {
  language: string;
  /** 0.5–2 */
  speed: number;
  /** 0–2 */
  volume: number;
  /** the espeak-ng program, or 'off' */
  espeak: string;
  signal?: AbortSignal | undefined;
}

const SAMPLE_RATE = 22_050;
/** characters per second of the synthetic voice at speed 1 (about 150 words a minute) */
export const SIM_CHARS_PER_S = 14;

/** Text to a WAV: espeak-ng when it runs, else the synthetic voice. */
export async function simSpeech(text: string, o: SpeechOptions): Promise<Buffer> {
  if (o.espeak !== 'off') {
    // the language as given (en-us), then its primary subtag (de-DE → de)
    const tag = o.language.toLowerCase() || 'en';
    for (const voice of new Set([tag, tag.split('-')[0]!])) {
      const spoken = await espeak(text, voice, o).catch(() => undefined);
      if (spoken) return spoken;
    }
  }
  return syntheticSpeech(text, o);
}

/** espeak-ng's WAV on stdout; undefined when it is not installed or fails. */
function espeak(text: string, voice: string, o: SpeechOptions): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const args = ['--stdout', '-s', String(Math.round(160 * o.speed)), '-a', String(Math.round(Math.min(200, 100 * o.volume))),
      '-v', voice, '--', text];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(o.espeak, args, { stdio: ['ignore', 'pipe', 'ignore'], ...(o.signal ? { signal: o.signal } : {}) });
    } catch {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => {
      const out = Buffer.concat(chunks);
      resolve(code === 0 && wavInfo(out) ? fixStreamedWav(out) : undefined);
    });
  });
}

/** A WAV written to a pipe carries placeholder lengths: write the real ones. */
function fixStreamedWav(b: Buffer): Buffer {
  const out = Buffer.from(b);
  out.writeUInt32LE(out.length - 8, 4);
  const data = out.indexOf('data', 12, 'ascii');
  if (data > 0) out.writeUInt32LE(out.length - data - 8, data + 4);
  return out;
}

const VOWELS = new Set('aeiouyàáâäèéêëìíîïòóôöùúûü');
const SIBILANTS = new Set('szfhxcj');

/** The synthetic voice: each character a short segment; its length is the text's length over the speed. */
export function syntheticSpeech(text: string, o: Pick<SpeechOptions, 'speed' | 'volume'>): Buffer {
  const perChar = Math.round(SAMPLE_RATE / (SIM_CHARS_PER_S * o.speed));
  const chars = [...text];
  const samples = new Float32Array(perChar * chars.length + Math.round(SAMPLE_RATE * 0.2));
  const amp = 0.3 * Math.min(2, Math.max(0, o.volume));
  let noise = 1;
  let phase = 0;
  chars.forEach((ch, i) => {
    const c = ch.toLowerCase();
    const start = i * perChar;
    const pitch = 110 + 25 * Math.sin(i / 3); // a gently moving intonation
    const formant = VOWELS.has(c) ? 500 + (c.charCodeAt(0) % 7) * 180 : 900 + (c.charCodeAt(0) % 11) * 120;
    for (let n = 0; n < perChar; n++) {
      const env = Math.sin(Math.PI * n / perChar); // each segment fades in and out: no clicks
      let s = 0;
      if (/[\p{L}\p{N}]/u.test(ch)) {
        if (SIBILANTS.has(c)) {
          noise = (noise * 1103515245 + 12345) & 0x7fffffff;
          s = (noise / 0x3fffffff - 1) * 0.5;
        } else {
          phase += (2 * Math.PI * pitch) / SAMPLE_RATE;
          s = Math.sin(phase) * 0.6 + Math.sin(phase * formant / pitch) * 0.3 + Math.sin(phase * 2) * 0.1;
          if (!VOWELS.has(c)) s *= 0.5;
        }
      }
      samples[start + n] = s * env * amp;
    }
  });
  return encodeWav(samples, SAMPLE_RATE);
}
