// AES-256-GCM for secrets at rest (registry passwords). The key comes from configuration
// (GANTRY_SECRET_KEY) or, embedded, from <data dir>/secret.key created on first use.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class SecretBox {
  private readonly key: Buffer;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('secret key must be 32 bytes');
    this.key = key;
  }
  /** base64(iv 12 | tag 16 | ciphertext) */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
  }
  open(sealed: string): string {
    const buf = Buffer.from(sealed, 'base64');
    const d = createDecipheriv('aes-256-gcm', this.key, buf.subarray(0, 12));
    d.setAuthTag(buf.subarray(12, 28));
    return Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8');
  }
}

/**
 * A configured key (base64 of 32 bytes), or the data dir's key file, created once with mode
 * 0600 (a key file others may read is narrowed to 0600 when loaded).
 */
export function loadSecretKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  const file = join(dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    // link fails if another process created the key first; then everyone reads that one
    try {
      linkSync(tmp, file);
    } catch { /* another process won the race */ }
    unlinkSync(tmp);
  }
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
}
