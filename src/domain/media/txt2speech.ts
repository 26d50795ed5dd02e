// Text to speech (POST /v3/async/txt2speech, compat.md): `{voice_id, language, texts[],
// volume, speed}`; one WAV per text. A voice the operator mapped to an OpenAI-compatible
// upstream (GANTRY_MEDIA_TTS_VOICES) is spoken there; any other by the simulator. The cost is
// the characters of all texts × the operator's price per million characters.
import type { TtsVoice } from '../../config.ts';
import { bad } from './errors.ts';
import { simSpeech } from './sim.ts';
import { upstreamSpeech } from './upstream.ts';

export const SPEECH_LIMITS = { maxTexts: 16, maxChars: 10_000, maxVoiceId: 64 } as const;

export interface Txt2SpeechRequest {
  voice_id: string;
  language?: string | undefined;
  texts: string[];
  volume?: number | undefined;
  speed?: number | undefined;
}

export interface Txt2SpeechTask {
  voice_id: string;
  language: string;
  texts: string[];
  volume: number;
  speed: number;
}

/** Characters as a reader counts them (code points), which the price is per. */
export const charCount = (texts: string[]) => texts.reduce((n, t) => n + [...t].length, 0);

export function checkTxt2Speech(r: Txt2SpeechRequest): Txt2SpeechTask {
  const L = SPEECH_LIMITS;
  const voice = (r.voice_id ?? '').trim();
  if (!voice || voice.length > L.maxVoiceId) throw bad('request.voice_id', `1-${L.maxVoiceId} characters`);
  const language = (r.language ?? 'en-US').trim();
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(language)) throw bad('request.language', 'a language tag such as en-US');
  const texts = r.texts ?? [];
  if (texts.length < 1 || texts.length > L.maxTexts) throw bad('request.texts', `1-${L.maxTexts} texts`);
  texts.forEach((t, i) => {
    if (!t.trim()) throw bad(`request.texts[${i}]`, 'must not be empty');
  });
  if (charCount(texts) > L.maxChars) throw bad('request.texts', `at most ${L.maxChars} characters in all`);
  const volume = r.volume ?? 1;
  if (!(volume >= 0 && volume <= 2)) throw bad('request.volume', 'must be in [0, 2]');
  const speed = r.speed ?? 1;
  if (!(speed >= 0.5 && speed <= 2)) throw bad('request.speed', 'must be in [0.5, 2]');
  return { voice_id: voice, language, texts, volume, speed };
}

/** micro-units: characters × units per million characters (1 unit = 10^6 micro). */
export function txt2SpeechCostMicro(t: Txt2SpeechTask, pricePerMCharsUnits: bigint): bigint {
  return BigInt(charCount(t.texts)) * pricePerMCharsUnits;
}

export async function renderTxt2Speech(t: Txt2SpeechTask, voices: Record<string, TtsVoice>, espeak: string, signal?: AbortSignal): Promise<Buffer[]> {
  const upstream = voices[t.voice_id];
  const out: Buffer[] = [];
  for (const text of t.texts) {
    out.push(upstream
      ? await upstreamSpeech(upstream, { input: text, speed: t.speed }, signal)
      : await simSpeech(text, { language: t.language, speed: t.speed, volume: t.volume, espeak, signal }));
  }
  return out;
}
