// One config schema. loadConfig reads an env-like record and reports every problem at once.
import { isIP } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_SHARED_BUFFERS, SHARED_BUFFERS_RE } from './store/pglite-settings.ts';
import { orList, type SettingReaders } from './lib/settings.ts';
import { CurrencyError, DollarsError, unitsToUsdCents, unitsToUsdText, usdToUnits } from './lib/money.ts';
import { readDriverChoice, type DriverChoice } from './drivers/index.ts';

/**
 * Who may make an account (GANTRY_SIGNUP): anyone, only through an invitation, or nobody new.
 * Here, not in domain/accounts/codes.ts: `gantry admin …` reads the settings and must load no
 * domain module (src/cli/admin-start.process.test.ts).
 */
export const SIGNUP_MODES = ['open', 'invite-only', 'closed'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** the embedded database's shared_buffers (GANTRY_PGLITE_SHARED_BUFFERS, store/pglite-options.ts) */
  pgliteSharedBuffers: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  /** How long a cached API-key lookup may be trusted; bounds how fast revocation spreads. */
  keyCacheTtlMs: number;
  /** Starting voucher for the first team, in units (1/10000 USD). */
  seedVoucherUnits: bigint;
  /**
   * GPU compute: the driver GANTRY_COMPUTE_DRIVER names (the first registered, the simulated
   * one, by default) and its settings, read by its registration (src/drivers/index.ts).
   */
  computeDriver: DriverChoice;
  /** base64 of 32 bytes sealing secrets at rest (GANTRY_SECRET_KEY); else <dataDir>/secret.key. */
  secretKey: string | undefined;
  /** how often the compute reconciler runs a pass */
  reconcileIntervalMs: number;
  /** how often an idle job runner looks for due jobs (one indexed query each time) */
  jobsPollMs: number;
  /**
   * Whether this process runs background jobs (GANTRY_RUN_JOBS, default on). Off: it serves
   * requests only (an API replica); another replica runs the reconcilers. The sim driver's
   * machines live in the process that runs the jobs, so a several-replica sim setup runs
   * them on one replica.
   */
  runJobs: boolean;
  /**
   * How model usage is made durable before a response completes on the embedded store
   * (GANTRY_USAGE_JOURNAL): `on` a local journal (survives the process being killed),
   * `fsync` the journal and fdatasync (survives power loss), `off` a database commit per
   * group of requests. On PostgreSQL, `on` and `fsync` journal in the usage_journal table
   * (one insert per group of requests, moved into the ledger in the background by any
   * replica) and `off` commits the ledger rows before each response.
   */
  usageJournal: 'on' | 'fsync' | 'off';
  /** How long a journaled usage record may wait to share its move into the ledger (GANTRY_USAGE_MOVE_DELAY_MS). */
  usageMoveDelayMs: number;
  /**
   * While Redis cannot be reached: refuse model calls with 503 (false, the default), or
   * admit them on this replica's own counters (true; docs/production.md, "When a dependency fails", says what overspend it allows).
   */
  redisFailOpen: boolean;
  /** how long a Redis command may take before Redis counts as unreachable (GANTRY_REDIS_TIMEOUT_MS) */
  redisTimeoutMs: number;
  /**
   * Prepended to every Redis key and channel of this installation (GANTRY_REDIS_PREFIX), so
   * installations can share one Redis; '' (the default) keeps the keys of earlier versions.
   */
  redisPrefix: string;
  /**
   * The largest request body a route accepts, in bytes, by its family (lib/error-families.ts):
   * `llm` for the model routes (GANTRY_BODY_LIMIT_LLM_MB, 8 MiB), `default` for every other
   * (GANTRY_BODY_LIMIT_DEFAULT_MB, 1 MiB). A route may set its own (files, batches). Larger
   * bodies are answered 413 PAYLOAD_TOO_LARGE (from Content-Length, or once the limit is passed).
   */
  bodyLimits: { llm: number; default: number };
  /** Failed authentications counted per client address and per key prefix (domain/auth-throttle.ts). */
  authThrottle: AuthThrottleConfig;
  /**
   * Whose X-Forwarded-For gives the client address (GANTRY_TRUST_PROXY; Fastify's trustProxy):
   * false (default: the socket's peer), true (any), a number of proxy hops, or addresses/CIDRs.
   * Behind a proxy it must be set, or every client is the proxy's address to the auth throttle.
   */
  trustProxy: boolean | number | string[];
  gateway: GatewayConfig;
  serverless: ServerlessConfig;
  blobs: BlobConfig;
  files: FilesConfig;
  /** how long a stored Responses API answer is kept (GANTRY_RESPONSES_TTL_DAYS, default 30 as OpenAI); then responses.prune removes it */
  responsesTtlMs: number;
  /**
   * Log streams (`follow=1` on the instance, endpoint and worker logs) one team may hold open
   * at once on one replica (GANTRY_LOG_FOLLOWS_PER_TEAM, default 20); more are answered 429.
   */
  logFollowsPerTeam: number;
  /**
   * Web terminals open at once on one replica per instance (GANTRY_TERMINALS_PER_INSTANCE,
   * default 4) and per team (GANTRY_TERMINALS_PER_TEAM, default 20); more are answered 429
   * before the WebSocket opens. Each is a shell in the instance's container.
   */
  terminals: { perInstance: number; perTeam: number };
  /** An instance's HTTP ports through Gantry (src/gateway/ports). */
  ports: PortsConfig;
  /** The SSH endpoint (src/gateway/ssh). */
  ssh: SshConfig;
  batches: BatchesConfig;
  webhooks: WebhooksConfig;
  /** The web console's sessions (src/domain/console). */
  console: ConsoleConfig;
  /** Persons' accounts: who may sign up (src/domain/accounts). */
  accounts: AccountsConfig;
  /** How e-mail leaves (src/domain/mail): SMTP when configured, else the server's log. */
  mail: MailConfig;
  media: MediaConfig;
  /**
   * Card top-ups through Stripe (src/domain/payments): on when GANTRY_STRIPE_SECRET_KEY and
   * GANTRY_STRIPE_WEBHOOK_SECRET are set; undefined otherwise, and then nothing of it is shown
   * (its routes answer 404) and operators top up as before.
   */
  payments: PaymentsConfig | undefined;
}

export interface PaymentsConfig {
  /** the Stripe secret key Gantry calls the API with (GANTRY_STRIPE_SECRET_KEY: sk_live_…, sk_test_… or a restricted rk_…) */
  stripeSecretKey: string;
  /** the signing secret of Gantry's webhook endpoint in Stripe (GANTRY_STRIPE_WEBHOOK_SECRET, whsec_…) */
  stripeWebhookSecret: string;
  /** where the Stripe API is (GANTRY_STRIPE_API_BASE; unset: Stripe's own, https://api.stripe.com): a stand-in in tests */
  stripeApiBase: URL | undefined;
  /** the smallest and largest top-up a team may start, units (GANTRY_TOPUP_MIN_USD, default $5; GANTRY_TOPUP_MAX_USD, default $10,000) */
  minTopupUnits: bigint;
  maxTopupUnits: bigint;
  /** where Checkout sends the customer back, paid or not: the console's overview (the balance) under GANTRY_PUBLIC_URL */
  returnUrl: string;
}

export interface AccountsConfig {
  /** who may make an account (GANTRY_SIGNUP): `open`, `invite-only` (default: only by accepting an invitation), `closed` (nobody new) */
  signup: SignupMode;
  /**
   * log2 of scrypt's cost N for new password hashes (GANTRY_PASSWORD_SCRYPT_LN, default 15: 32 MiB
   * and ~77 ms a hash; 12 to 20). Stored hashes keep their own and are remade at the next sign-in
   * when it differs. Lower than 15 only for tests.
   */
  scryptLn: number;
}

export interface MailConfig {
  /**
   * The SMTP server (GANTRY_SMTP_URL `smtp://user:password@host:port` / `smtps://…`, or
   * GANTRY_SMTP_HOST, GANTRY_SMTP_PORT, GANTRY_SMTP_USER, GANTRY_SMTP_PASSWORD) and its TLS
   * (GANTRY_SMTP_TLS: `tls` implicit TLS, default for smtps: and port 465; `starttls` required,
   * the default otherwise; `off`: plain, for a relay on the same machine). Unset: messages are
   * written to the server's log (adapters/mail/log.ts).
   */
  smtp: { host: string; port: number; user: string | undefined; password: string | undefined; tls: 'tls' | 'starttls' | 'off' } | undefined;
  /** the sender (GANTRY_MAIL_FROM, e.g. `Gantry <no-reply@example.com>`); required with SMTP */
  from: string;
}

/** The media model catalogue and async media tasks (src/domain/media). */
export interface MediaConfig {
  /** lifetime of catalogue download links and task output links, seconds (GANTRY_MEDIA_LINK_TTL_S, default one day) */
  linkTtlS: number;
  /** the largest model file a team may upload (GANTRY_MEDIA_UPLOAD_MAX_MB, default 8192) */
  uploadMaxBytes: number;
  /** a team's default quota of uploaded model bytes (GANTRY_MEDIA_QUOTA_GB, default 50 GiB) and models (GANTRY_MEDIA_QUOTA_COUNT, default 100); the operator overrides them per team */
  quotaBytes: number;
  quotaCount: number;
  /** an upload still unavailable this long after it began was stranded by a process that died; media.tasks.sweep removes it (GANTRY_MEDIA_UPLOAD_STALE_HOURS, default 24) */
  uploadStaleMs: number;
  /** price of one txt2img image, units (GANTRY_MEDIA_IMAGE_PRICE, default 30 = $0.003) */
  imagePriceUnits: bigint;
  /** price of text to speech per million characters, units (GANTRY_MEDIA_TTS_PRICE_PER_M_CHARS, default 150000 = $15) */
  ttsPricePerMCharsUnits: bigint;
  /**
   * The image upstream (GANTRY_MEDIA_IMAGE_UPSTREAM; unset: the built-in simulator), its key
   * (GANTRY_MEDIA_IMAGE_UPSTREAM_KEY) and kind (GANTRY_MEDIA_IMAGE_UPSTREAM_KIND): `openai`
   * (default), a base URL (`…/v1`) serving /images/generations, for txt2img; `a1111`, the
   * AUTOMATIC1111/Forge web UI API (its root URL), for txt2img, img2img, inpainting and
   * upscale (domain/media/a1111.ts; the key `user:password` of its --api-auth).
   */
  imageUpstream: { url: string; apiKey: string | undefined; kind: 'openai' | 'a1111' } | undefined;
  /**
   * Text-to-speech voices served by an OpenAI-compatible /audio/speech upstream
   * (GANTRY_MEDIA_TTS_VOICES, JSON: `{"<voice_id>": {"url": "…/v1", "model": "tts-1", "voice": "alloy", "apiKeyEnv": "NAME"}}`);
   * any other voice_id is the built-in simulator's.
   */
  ttsVoices: Record<string, TtsVoice>;
  /** the espeak-ng program the simulator speaks with when it is installed (GANTRY_ESPEAK, default `espeak-ng`; `off`: a synthetic voice) */
  espeak: string;
  /** tasks one process runs at once (GANTRY_MEDIA_TASK_CONCURRENCY, default 4) */
  taskConcurrency: number;
  /** how long an ended task and its outputs are kept (GANTRY_MEDIA_TASK_TTL_DAYS, default 7); then media.tasks.sweep removes them */
  taskTtlMs: number;
}

export interface AuthThrottleConfig {
  /** the window failures are counted in (GANTRY_AUTH_FAILURE_WINDOW_S, default 60) */
  windowMs: number;
  /** failures one client address may make in a window; then 429 until it ends (GANTRY_AUTH_FAILURES_PER_ADDRESS, default 20; 0: off) */
  perAddress: number;
  /** failures with one key prefix, all addresses together (GANTRY_AUTH_FAILURES_PER_PREFIX, default 20; 0: off) */
  perPrefix: number;
}

export interface ConsoleConfig {
  /** how long a console session lasts from sign-in (GANTRY_CONSOLE_SESSION_HOURS, default 12) */
  sessionTtlMs: number;
  /** send the session cookie with `Secure` (GANTRY_PUBLIC_URL is https; a request seen as https adds it too) */
  secureCookie: boolean;
}

export interface TtsVoice {
  url: string;
  model: string;
  voice: string;
  apiKey: string | undefined;
}

/**
 * Where blobs (uploaded files, batch outputs, media) are kept (src/store/blobs): `local`
 * files under GANTRY_BLOB_DIR (default `<data dir>/blobs`), or an S3-compatible bucket
 * (GANTRY_BLOB_STORE=s3, the default when GANTRY_S3_BUCKET is set).
 */
export interface BlobConfig {
  kind: 'local' | 's3';
  dir: string;
  s3: {
    /** GANTRY_S3_ENDPOINT: e.g. http://127.0.0.1:9000 (MinIO); unset for AWS S3 */
    endpoint: string | undefined;
    /** GANTRY_S3_BUCKET */
    bucket: string;
    /** GANTRY_S3_REGION (default us-east-1) */
    region: string;
    /** GANTRY_S3_ACCESS_KEY_ID and GANTRY_S3_SECRET_ACCESS_KEY; unset: the AWS SDK's default credential chain */
    accessKeyId: string | undefined;
    secretAccessKey: string | undefined;
    /** GANTRY_S3_FORCE_PATH_STYLE: bucket in the path (MinIO and most self-hosted stores) */
    forcePathStyle: boolean;
    /** GANTRY_S3_PREFIX: prepended to every key (share a bucket) */
    prefix: string;
  };
}

/** The OpenAI-compatible Files API (src/domain/files). */
export interface FilesConfig {
  /** largest upload, bytes (GANTRY_FILE_MAX_MB, default 200 MiB as OpenAI's batch input) */
  maxBytes: number;
  /** most requests (non-blank lines) in a batch input file (GANTRY_FILE_MAX_LINES, default 50,000) */
  maxLines: number;
  /** how long a file is kept (GANTRY_FILE_TTL_DAYS, default 15); then the files.expire job removes it */
  ttlMs: number;
  /** a team's default quota of stored file bytes (GANTRY_FILE_QUOTA_GB, default 10 GiB) and files (GANTRY_FILE_QUOTA_COUNT, default 1000); the operator overrides them per team */
  quotaBytes: number;
  quotaCount: number;
}

/** An instance's HTTP ports through Gantry (src/gateway/ports). */
export interface PortsConfig {
  /**
   * GANTRY_PORTS_DOMAIN: host-based port addresses (`{scheme}://{instanceId}-{port}.{domain}`,
   * the scheme of GANTRY_PUBLIC_URL); unset: path-based ones under Gantry's public URL only
   * (`{base}/ports/{instanceId}/{port}/`). Wildcard DNS and the wildcard certificate are the front proxy's.
   */
  domain: string | undefined;
}

/** The SSH endpoint into running instances (src/gateway/ssh). */
export interface SshConfig {
  /**
   * GANTRY_SSH_LISTEN (`host:port`): where the SSH server listens; unset or empty: no SSH
   * server. Off by default: the default compute driver (sim) has no containers to reach, and a
   * second listening port is the operator's choice to open (docs/configuration.md).
   */
  listen: { host: string; port: number } | undefined;
  /**
   * GANTRY_SSH_PUBLIC (`host[:port]`): what users type, in connectComponentSSH.sshCommand.
   * Default: the host of GANTRY_PUBLIC_URL and the port SSH listens on.
   */
  publicHost: string;
  /** undefined: the port SSH listens on (the one the system chose, on port 0) */
  publicPort: number | undefined;
  /** SSH sessions open at once on one replica per instance (GANTRY_SSH_SESSIONS_PER_INSTANCE, 8) and per team (GANTRY_SSH_SESSIONS_PER_TEAM, 40) */
  perInstance: number;
  perTeam: number;
}

/** Serverless endpoints (src/domain/serverless). */
export interface ServerlessConfig {
  /**
   * The base of endpoint URLs (GANTRY_PUBLIC_URL): `{base}/serverless/{appName}`. Default
   * `http://{HOST}:{PORT}`, which is right for a local Gantry and wrong behind a proxy.
   */
  publicBaseUrl: string;
  /**
   * GANTRY_SERVERLESS_DOMAIN: host-based endpoint URLs (`{scheme}://{appName}.{domain}`);
   * a request whose Host is under it is routed to that endpoint (http/serverless-host.ts).
   * Its wildcard DNS and TLS are the operator's; the API's own host is never taken for one.
   */
  domain: string | undefined;
  /** the most requests one endpoint keeps waiting on one replica (GANTRY_SERVERLESS_QUEUE_LIMIT); more → 429 */
  queueLimit: number;
  /** seconds of a new worker's GPU time admission sets aside (GANTRY_SERVERLESS_HOLD_S, default 3600: the first hour, as for instances) */
  holdSeconds: number;
}

/** The model gateway (src/gateway). */
export interface GatewayConfig {
  /** Built-in simulator: time to first token, and generation speed. */
  simTtftMs: number;
  simTokensPerSecond: number;
  /** OpenAI-compatible upstreams: connect timeout, and the longest wait for headers or between body bytes. */
  upstreamConnectTimeoutMs: number;
  upstreamTimeoutMs: number;
  /** How long a replica trusts loaded budget/balance state before re-reading the ledger (a backstop; postings update it at once). */
  budgetStateTtlMs: number;
  /** How long cached policies, models, quotas and budget settings are trusted (≤ 1 s like keys). */
  hotCacheTtlMs: number;
  /** Credentials of upstreams, looked up by the env var name a catalogue entry gives (apiKeyEnv). */
  upstreamCredential: (envName: string) => string | undefined;
  /**
   * The token budget of batch lines per account and model per minute (GANTRY_BATCH_TPM,
   * default 2,000,000), counted apart from the interactive RPM/TPM so a batch never uses up
   * the account's interactive quota. A line over it waits and runs later.
   */
  batchTpm: number;
}

/** The Batches API (src/domain/batches). */
export interface BatchesConfig {
  /** lines one process runs at once, all batches together (GANTRY_BATCH_CONCURRENCY, default 16) */
  concurrency: number;
  /** lines per batch.lines job (GANTRY_BATCH_CHUNK_LINES, default 16): fewer claims and commits per line, coarser sharing between replicas */
  chunkLines: number;
}

/** Webhook deliveries (src/domain/webhooks). */
export interface WebhooksConfig {
  /** deliver to loopback, private and link-local addresses (GANTRY_WEBHOOK_ALLOW_PRIVATE=1; local development and tests) */
  allowPrivate: boolean;
  /** one attempt's timeout (GANTRY_WEBHOOK_TIMEOUT_MS, default 5000) */
  timeoutMs: number;
  /** balance.low when the spendable balance falls below this, in 1/10000 USD (GANTRY_WEBHOOK_BALANCE_LOW_UNITS, default 100000: 10 USD) */
  balanceLowUnits: number;
  /** how often budget.threshold and balance.low are looked for (GANTRY_WEBHOOK_WATCH_INTERVAL_MS, default 60000) */
  watchIntervalMs: number;
  /**
   * Sends a team asks for (test sends, manual retries) to one endpoint in a minute
   * (GANTRY_WEBHOOK_SENDS_PER_ENDPOINT_PER_MINUTE, default 5) and by one team, all its endpoints
   * together (GANTRY_WEBHOOK_SENDS_PER_TEAM_PER_MINUTE, default 20); more are answered 429. 0: no limit.
   */
  sendsPerEndpointPerMinute: number;
  sendsPerTeamPerMinute: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

/** GANTRY_TRUST_PROXY: off, on, a number of hops, or a comma list of addresses and CIDRs. */
function trustProxy(env: Env, problems: string[]): boolean | number | string[] {
  const raw = (env.GANTRY_TRUST_PROXY ?? '').trim();
  if (['', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  if (['true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((x) => x.trim()).filter(Boolean);
  for (const x of list) {
    const [addr, bits, more] = x.split('/');
    if (more !== undefined || !isIP(addr!) || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
      problems.push(`GANTRY_TRUST_PROXY must be true, false, a number of hops or addresses/CIDRs separated by commas, got "${x}"`);
      return false;
    }
  }
  return list;
}

/** GANTRY_MEDIA_TTS_VOICES: voice ids served by OpenAI-compatible upstreams. */
function ttsVoices(env: Env, problems: string[]): Record<string, TtsVoice> {
  const raw = env.GANTRY_MEDIA_TTS_VOICES;
  if (!raw) return {};
  const fail = (why: string) => {
    problems.push(`GANTRY_MEDIA_TTS_VOICES ${why}`);
    return {};
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail('must be JSON: {"<voice_id>": {"url": "http://…/v1", "model": "…", "voice": "…", "apiKeyEnv": "NAME"}}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return fail('must be a JSON object of voices');
  const out: Record<string, TtsVoice> = {};
  for (const [id, v] of Object.entries(parsed as Record<string, Record<string, unknown>>)) {
    if (!v || typeof v.url !== 'string' || !/^https?:\/\//.test(v.url)) return fail(`voice ${id}: url must be an http(s) URL`);
    if (typeof v.model !== 'string' || !v.model) return fail(`voice ${id}: model is required`);
    out[id] = {
      url: v.url.replace(/\/+$/, ''), model: v.model, voice: typeof v.voice === 'string' && v.voice ? v.voice : id,
      apiKey: typeof v.apiKeyEnv === 'string' ? env[v.apiKeyEnv] : undefined,
    };
  }
  return out;
}

export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const problems: string[] = [];
  const r = envReaders(env, problems);
  const basics = readProcessSettings(env, r, cwd);
  const config: Config = {
    ...basics,
    bodyLimits: { llm: r.mib('GANTRY_BODY_LIMIT_LLM_MB', 8), default: r.mib('GANTRY_BODY_LIMIT_DEFAULT_MB', 1) },
    authThrottle: {
      windowMs: r.int('GANTRY_AUTH_FAILURE_WINDOW_S', 60, 1, 86_400) * 1000,
      perAddress: r.int('GANTRY_AUTH_FAILURES_PER_ADDRESS', 20, 0, 1_000_000_000),
      perPrefix: r.int('GANTRY_AUTH_FAILURES_PER_PREFIX', 20, 0, 1_000_000_000),
    },
    trustProxy: trustProxy(env, problems),
    gateway: readGateway(env, r),
    serverless: readServerless(env, r, basics),
    blobs: readBlobs(env, r, cwd),
    files: readFiles(r),
    responsesTtlMs: r.int('GANTRY_RESPONSES_TTL_DAYS', 30, 1, 3650) * 86_400_000,
    logFollowsPerTeam: r.int('GANTRY_LOG_FOLLOWS_PER_TEAM', 20, 1, 100_000),
    terminals: { perInstance: r.int('GANTRY_TERMINALS_PER_INSTANCE', 4, 1, 10_000), perTeam: r.int('GANTRY_TERMINALS_PER_TEAM', 20, 1, 100_000) },
    ports: { domain: env.GANTRY_PORTS_DOMAIN || undefined },
    ssh: readSsh(env, r, basics),
    batches: {
      concurrency: r.int('GANTRY_BATCH_CONCURRENCY', 16, 1, 10_000),
      chunkLines: r.int('GANTRY_BATCH_CHUNK_LINES', 16, 1, 1000),
    },
    webhooks: readWebhooks(r),
    console: {
      sessionTtlMs: r.int('GANTRY_CONSOLE_SESSION_HOURS', 12, 1, 720) * 3_600_000,
      secureCookie: (env.GANTRY_PUBLIC_URL ?? '').startsWith('https:'),
    },
    accounts: { signup: r.oneOf('GANTRY_SIGNUP', SIGNUP_MODES, 'invite-only'), scryptLn: r.int('GANTRY_PASSWORD_SCRYPT_LN', 15, 12, 20) },
    mail: readMail(env, r),
    media: readMedia(env, r, problems),
    payments: undefined,
  };
  config.payments = readPayments(env, r, config.serverless.publicBaseUrl);
  checkCombinations(env, config, r);
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** The readers of loadConfig: each checks its value and adds what is wrong to `problems` (then answers the default). */
interface EnvReaders extends SettingReaders {
  /** a size in MiB in [0.001, 1024], answered in bytes */
  mib(name: string, def: number): number;
  /** a size in GiB in [0, 1048576], answered in bytes */
  gib(name: string, def: number): number;
  /** a URL of one of `schemes` (`postgres:`…); undefined when unset */
  url(name: string, schemes: string[]): string | undefined;
}

function envReaders(env: Env, problems: string[]): EnvReaders {
  return {
    text: (name, def) => env[name] || def,
    optionalText: (name) => env[name] || undefined,
    int: (name, def, min, max) => readInt(env, problems, name, def, min, max),
    num: (name, def) => readNum(env, problems, name, def),
    bool: (name, def) => readBool(env, problems, name, def),
    mib: (name, def) => readSize(env, problems, name, def, 'MiB'),
    gib: (name, def) => readSize(env, problems, name, def, 'GiB'),
    url: (name, schemes) => readUrl(env, problems, name, schemes),
    oneOf: (name, allowed, def) => {
      const raw = env[name];
      if (raw === undefined || raw === '') return def;
      const found = allowed.find((a) => a === raw);
      if (found === undefined) problems.push(`${name} must be ${orList(allowed)}, got "${raw}"`);
      return found ?? def;
    },
    problem: (message) => { problems.push(message); },
  };
}

function readInt(env: Env, problems: string[], name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
    return def;
  }
  return n;
}

function readNum(env: Env, problems: string[], name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    problems.push(`${name} must be a positive number, got "${raw}"`);
    return def;
  }
  return n;
}

/** MiB: a number in [0.001, 1024]; GiB: in [0, 1048576]. Answered in bytes. */
function readSize(env: Env, problems: string[], name: string, def: number, unit: 'MiB' | 'GiB'): number {
  const raw = env[name];
  const n = raw === undefined || raw === '' ? def : Number(raw);
  if (unit === 'MiB') {
    if (!Number.isFinite(n) || n < 0.001 || n > 1024) {
      problems.push(`${name} must be a number of MiB in [0.001, 1024], got "${raw}"`);
      return Math.floor(def * 1024 * 1024);
    }
    return Math.floor(n * 1024 * 1024);
  }
  if (!Number.isFinite(n) || n < 0 || n > 1_048_576) {
    problems.push(`${name} must be a number of GiB in [0, 1048576], got "${raw}"`);
    return def * 2 ** 30;
  }
  return Math.floor(n * 2 ** 30);
}

function readUrl(env: Env, problems: string[], name: string, schemes: string[]): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  try {
    const u = new URL(raw);
    if (!schemes.includes(u.protocol)) problems.push(`${name} must use ${schemes.join(' or ')}, got "${u.protocol}"`);
  } catch {
    problems.push(`${name} is not a valid URL`);
  }
  return raw;
}

function readBool(env: Env, problems: string[], name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (['true', '1', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
  problems.push(`${name} must be true or false, got "${raw}"`);
  return def;
}

/** GANTRY_REDIS_PREFIX: printable, no spaces, at most 64 characters (it is in every key). */
function readRedisPrefix(env: Env, r: EnvReaders): string {
  const raw = env.GANTRY_REDIS_PREFIX ?? '';
  if (!/^[\x21-\x7e]{0,64}$/.test(raw)) {
    r.problem(`GANTRY_REDIS_PREFIX must be at most 64 printable characters without spaces (e.g. gantry-prod:), got "${raw}"`);
    return '';
  }
  return raw;
}

/** The process's own settings: where it listens, its stores, its keys, its background work. */
function readProcessSettings(env: Env, r: EnvReaders, cwd: string) {
  let seedVoucherUnits = 1_000_000n;
  if (env.GANTRY_SEED_VOUCHER_UNITS) {
    if (/^\d+$/.test(env.GANTRY_SEED_VOUCHER_UNITS)) seedVoucherUnits = BigInt(env.GANTRY_SEED_VOUCHER_UNITS);
    else r.problem('GANTRY_SEED_VOUCHER_UNITS must be a non-negative integer');
  }
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    r.problem(`LOG_LEVEL must be one of fatal,error,warn,info,debug,trace,silent, got "${logLevel}"`);
  }
  const sharedBuffers = env.GANTRY_PGLITE_SHARED_BUFFERS || DEFAULT_SHARED_BUFFERS;
  if (!SHARED_BUFFERS_RE.test(sharedBuffers)) r.problem(`GANTRY_PGLITE_SHARED_BUFFERS must be a size such as 16MB (kB, MB or GB), got "${sharedBuffers}"`);
  return {
    host: env.HOST || '127.0.0.1',
    port: r.int('PORT', 8080, 0, 65535),
    dataDir: env.GANTRY_DATA_DIR || join(cwd, 'data'),
    pgliteSharedBuffers: sharedBuffers,
    databaseUrl: r.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: r.url('REDIS_URL', ['redis:', 'rediss:']),
    logLevel,
    keyCacheTtlMs: r.int('GANTRY_KEY_CACHE_TTL_MS', 1000, 0, 1000),
    computeDriver: readDriverChoice(r),
    secretKey: env.GANTRY_SECRET_KEY || undefined,
    reconcileIntervalMs: r.int('GANTRY_RECONCILE_INTERVAL_MS', 1000, 10, 600_000),
    jobsPollMs: r.int('GANTRY_JOBS_POLL_MS', 500, 10, 60_000),
    runJobs: r.bool('GANTRY_RUN_JOBS', true),
    usageJournal: (env.GANTRY_USAGE_JOURNAL || 'on') as Config['usageJournal'],
    usageMoveDelayMs: r.int('GANTRY_USAGE_MOVE_DELAY_MS', 200, 1, 3_600_000),
    redisFailOpen: r.bool('GANTRY_REDIS_FAIL_OPEN', false),
    redisTimeoutMs: r.int('GANTRY_REDIS_TIMEOUT_MS', 250, 10, 60_000),
    redisPrefix: readRedisPrefix(env, r),
    seedVoucherUnits,
  };
}

function readGateway(env: Env, r: EnvReaders): GatewayConfig {
  return {
    simTtftMs: r.int('GANTRY_SIM_TTFT_MS', 20, 0, 600_000),
    simTokensPerSecond: r.num('GANTRY_SIM_TOKENS_PER_S', 500),
    upstreamConnectTimeoutMs: r.int('GANTRY_UPSTREAM_CONNECT_TIMEOUT_MS', 5_000, 1, 600_000),
    upstreamTimeoutMs: r.int('GANTRY_UPSTREAM_TIMEOUT_MS', 300_000, 1, 3_600_000),
    budgetStateTtlMs: r.int('GANTRY_BUDGET_STATE_TTL_MS', 10_000, 0, 3_600_000),
    hotCacheTtlMs: r.int('GANTRY_HOT_CACHE_TTL_MS', 1000, 0, 1000),
    upstreamCredential: (name) => env[name],
    batchTpm: r.int('GANTRY_BATCH_TPM', 2_000_000, 1, 1_000_000_000_000),
  };
}

/** `host:port`, `[v6]:port`, or (`portOptional`) a host alone; undefined and a problem when it is none of them. */
function hostPort(r: EnvReaders, name: string, raw: string, portOptional: boolean): { host: string; port: number | undefined } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+))(?::(\d{1,5}))?$/.exec(raw);
  const port = m?.[3] === undefined ? undefined : Number(m[3]);
  if (!m || (port === undefined && !portOptional) || (port !== undefined && port > 65535)) {
    r.problem(`${name} must be host:port${portOptional ? ' or a host' : ''} (e.g. 127.0.0.1:2222, [::]:2222), got "${raw}"`);
    return undefined;
  }
  return { host: m[1] ?? m[2]!, port };
}

function readSsh(env: Env, r: EnvReaders, basics: { host: string; port: number }): SshConfig {
  const listenRaw = env.GANTRY_SSH_LISTEN?.trim() ?? '';
  const listen = listenRaw ? hostPort(r, 'GANTRY_SSH_LISTEN', listenRaw, false) : undefined;
  const publicRaw = env.GANTRY_SSH_PUBLIC?.trim() ?? '';
  const pub = publicRaw ? hostPort(r, 'GANTRY_SSH_PUBLIC', publicRaw, true) : undefined;
  // what users type by default: the host they reach Gantry's API at
  let baseHost = basics.host;
  try {
    if (env.GANTRY_PUBLIC_URL) baseHost = new URL(env.GANTRY_PUBLIC_URL).hostname.replace(/^\[|\]$/g, '');
  } catch {
    // a malformed URL is reported once, by readServerless
  }
  return {
    listen: listen ? { host: listen.host, port: listen.port! } : undefined,
    publicHost: pub?.host ?? baseHost,
    publicPort: pub?.port,
    perInstance: r.int('GANTRY_SSH_SESSIONS_PER_INSTANCE', 8, 1, 10_000),
    perTeam: r.int('GANTRY_SSH_SESSIONS_PER_TEAM', 40, 1, 100_000),
  };
}

function readServerless(env: Env, r: EnvReaders, { host, port }: { host: string; port: number }): ServerlessConfig {
  return {
    publicBaseUrl: (r.url('GANTRY_PUBLIC_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    domain: env.GANTRY_SERVERLESS_DOMAIN || undefined,
    queueLimit: r.int('GANTRY_SERVERLESS_QUEUE_LIMIT', 1000, 1, 1_000_000),
    holdSeconds: r.int('GANTRY_SERVERLESS_HOLD_S', 3600, 1, 86_400),
  };
}

function readBlobs(env: Env, r: EnvReaders, cwd: string): BlobConfig {
  return {
    kind: (env.GANTRY_BLOB_STORE || (env.GANTRY_S3_BUCKET ? 's3' : 'local')) === 's3' ? 's3' : 'local',
    dir: env.GANTRY_BLOB_DIR || join(env.GANTRY_DATA_DIR || join(cwd, 'data'), 'blobs'),
    s3: {
      endpoint: r.url('GANTRY_S3_ENDPOINT', ['http:', 'https:']),
      bucket: env.GANTRY_S3_BUCKET || '',
      region: env.GANTRY_S3_REGION || 'us-east-1',
      accessKeyId: env.GANTRY_S3_ACCESS_KEY_ID || undefined,
      secretAccessKey: env.GANTRY_S3_SECRET_ACCESS_KEY || undefined,
      forcePathStyle: r.bool('GANTRY_S3_FORCE_PATH_STYLE', false),
      prefix: env.GANTRY_S3_PREFIX || '',
    },
  };
}

function readFiles(r: EnvReaders): FilesConfig {
  return {
    maxBytes: r.mib('GANTRY_FILE_MAX_MB', 200),
    maxLines: r.int('GANTRY_FILE_MAX_LINES', 50_000, 1, 10_000_000),
    ttlMs: r.int('GANTRY_FILE_TTL_DAYS', 15, 1, 3650) * 86_400_000,
    quotaBytes: r.gib('GANTRY_FILE_QUOTA_GB', 10),
    quotaCount: r.int('GANTRY_FILE_QUOTA_COUNT', 1000, 0, 2_147_483_647),
  };
}

function readWebhooks(r: EnvReaders): WebhooksConfig {
  return {
    allowPrivate: r.bool('GANTRY_WEBHOOK_ALLOW_PRIVATE', false),
    timeoutMs: r.int('GANTRY_WEBHOOK_TIMEOUT_MS', 5000, 100, 60_000),
    balanceLowUnits: r.int('GANTRY_WEBHOOK_BALANCE_LOW_UNITS', 100_000, 0, 1_000_000_000_000),
    watchIntervalMs: r.int('GANTRY_WEBHOOK_WATCH_INTERVAL_MS', 60_000, 1000, 3_600_000),
    sendsPerEndpointPerMinute: r.int('GANTRY_WEBHOOK_SENDS_PER_ENDPOINT_PER_MINUTE', 5, 0, 1_000_000),
    sendsPerTeamPerMinute: r.int('GANTRY_WEBHOOK_SENDS_PER_TEAM_PER_MINUTE', 20, 0, 1_000_000),
  };
}

function readMedia(env: Env, r: EnvReaders, problems: string[]): MediaConfig {
  return {
    linkTtlS: r.int('GANTRY_MEDIA_LINK_TTL_S', 86_400, 60, 31 * 86_400),
    uploadMaxBytes: r.int('GANTRY_MEDIA_UPLOAD_MAX_MB', 8192, 1, 1_048_576) * 1024 * 1024,
    quotaBytes: r.gib('GANTRY_MEDIA_QUOTA_GB', 50),
    quotaCount: r.int('GANTRY_MEDIA_QUOTA_COUNT', 100, 0, 2_147_483_647),
    uploadStaleMs: r.int('GANTRY_MEDIA_UPLOAD_STALE_HOURS', 24, 1, 8760) * 3_600_000,
    imagePriceUnits: BigInt(r.int('GANTRY_MEDIA_IMAGE_PRICE', 30, 0, 1_000_000_000)),
    ttsPricePerMCharsUnits: BigInt(r.int('GANTRY_MEDIA_TTS_PRICE_PER_M_CHARS', 150_000, 0, 1_000_000_000)),
    imageUpstream: env.GANTRY_MEDIA_IMAGE_UPSTREAM
      ? {
        url: r.url('GANTRY_MEDIA_IMAGE_UPSTREAM', ['http:', 'https:'])!.replace(/\/+$/, ''), apiKey: env.GANTRY_MEDIA_IMAGE_UPSTREAM_KEY || undefined,
        kind: r.oneOf('GANTRY_MEDIA_IMAGE_UPSTREAM_KIND', ['openai', 'a1111'] as const, 'openai'),
      }
      : undefined,
    ttsVoices: ttsVoices(env, problems),
    espeak: env.GANTRY_ESPEAK || 'espeak-ng',
    taskConcurrency: r.int('GANTRY_MEDIA_TASK_CONCURRENCY', 4, 1, 1000),
    taskTtlMs: r.int('GANTRY_MEDIA_TASK_TTL_DAYS', 7, 1, 3650) * 86_400_000,
  };
}

/** GANTRY_SMTP_URL, or GANTRY_SMTP_HOST and its companions; GANTRY_SMTP_TLS; GANTRY_MAIL_FROM. */
function readMail(env: Env, r: EnvReaders): MailConfig {
  const from = env.GANTRY_MAIL_FROM || 'Gantry <gantry@localhost>';
  const url = r.url('GANTRY_SMTP_URL', ['smtp:', 'smtps:']);
  if (url && env.GANTRY_SMTP_HOST) r.problem('set GANTRY_SMTP_URL or GANTRY_SMTP_HOST, not both');
  let smtp: MailConfig['smtp'];
  if (url && URL.canParse(url)) {
    const u = new URL(url);
    const implicit = u.protocol === 'smtps:';
    smtp = {
      host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : implicit ? 465 : 587,
      user: u.username ? decodeURIComponent(u.username) : undefined, password: u.password ? decodeURIComponent(u.password) : undefined,
      tls: implicit ? 'tls' : 'starttls',
    };
  } else if (env.GANTRY_SMTP_HOST) {
    const port = r.int('GANTRY_SMTP_PORT', 587, 1, 65535);
    smtp = { host: env.GANTRY_SMTP_HOST, port, user: env.GANTRY_SMTP_USER || undefined, password: env.GANTRY_SMTP_PASSWORD || undefined, tls: port === 465 ? 'tls' : 'starttls' };
  }
  if (smtp && env.GANTRY_SMTP_TLS) smtp.tls = r.oneOf('GANTRY_SMTP_TLS', ['tls', 'starttls', 'off'] as const, smtp.tls);
  if (smtp && !env.GANTRY_MAIL_FROM) r.problem('an SMTP server (GANTRY_SMTP_URL or GANTRY_SMTP_HOST) needs GANTRY_MAIL_FROM, the sender\'s address');
  if (!smtp && (env.GANTRY_SMTP_TLS || env.GANTRY_SMTP_USER || env.GANTRY_SMTP_PORT)) r.problem('GANTRY_SMTP_TLS, GANTRY_SMTP_USER and GANTRY_SMTP_PORT need GANTRY_SMTP_HOST');
  return { smtp, from };
}

/** A dollar amount setting as units, exactly and in whole cents (Stripe charges cents); `def` when unset. */
function readDollars(name: string, env: Env, r: EnvReaders, def: bigint): bigint {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  try {
    const units = usdToUnits(raw, name);
    unitsToUsdCents(units);
    return units;
  } catch (e) {
    if (!(e instanceof DollarsError || e instanceof CurrencyError)) throw e;
    r.problem(`${name} must be dollars in whole cents, like 5 or 12.50: ${e.message}`);
    return def;
  }
}

/** Stripe's smallest USD charge is $0.50 (stripe.com/docs/currencies#minimum-and-maximum-charge-amounts). */
const STRIPE_MIN_USD_UNITS = 5_000n;

function readPayments(env: Env, r: EnvReaders, publicBaseUrl: string): PaymentsConfig | undefined {
  const secretKey = env.GANTRY_STRIPE_SECRET_KEY || undefined;
  const webhookSecret = env.GANTRY_STRIPE_WEBHOOK_SECRET || undefined;
  if (!secretKey && !webhookSecret) return undefined;
  if (!secretKey || !webhookSecret) {
    r.problem('GANTRY_STRIPE_SECRET_KEY and GANTRY_STRIPE_WEBHOOK_SECRET are set together or not at all (card top-ups need both)');
    return undefined;
  }
  if (!/^(sk|rk)_(live|test)_\S+$/.test(secretKey)) r.problem('GANTRY_STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_…, sk_test_… or a restricted rk_…)');
  if (!/^whsec_\S+$/.test(webhookSecret)) r.problem('GANTRY_STRIPE_WEBHOOK_SECRET must be the endpoint\'s signing secret (whsec_…)');
  const apiBase = r.url('GANTRY_STRIPE_API_BASE', ['http:', 'https:']);
  const minTopupUnits = readDollars('GANTRY_TOPUP_MIN_USD', env, r, 50_000n);
  const maxTopupUnits = readDollars('GANTRY_TOPUP_MAX_USD', env, r, 100_000_000n);
  if (minTopupUnits < STRIPE_MIN_USD_UNITS) r.problem(`GANTRY_TOPUP_MIN_USD must be at least $0.50 (Stripe's smallest charge), got ${unitsToUsdText(minTopupUnits)}`);
  if (maxTopupUnits < minTopupUnits) r.problem(`GANTRY_TOPUP_MAX_USD (${unitsToUsdText(maxTopupUnits)}) is below GANTRY_TOPUP_MIN_USD (${unitsToUsdText(minTopupUnits)})`);
  let stripeApiBase: URL | undefined;
  try {
    stripeApiBase = apiBase ? new URL(apiBase) : undefined;
  } catch {
    stripeApiBase = undefined; // readUrl said so
  }
  return {
    stripeSecretKey: secretKey, stripeWebhookSecret: webhookSecret, stripeApiBase, minTopupUnits, maxTopupUnits,
    returnUrl: `${publicBaseUrl}/console/#/overview`,
  };
}

/** Settings that are each valid but wrong together, or whose value no reader above checks. */
function checkCombinations(env: Env, config: Config, r: EnvReaders): void {
  if (config.blobs.kind === 's3' && !config.blobs.s3.bucket) r.problem('GANTRY_BLOB_STORE=s3 needs GANTRY_S3_BUCKET');
  if (env.GANTRY_BLOB_STORE && !['local', 's3'].includes(env.GANTRY_BLOB_STORE)) {
    r.problem(`GANTRY_BLOB_STORE must be local or s3, got "${env.GANTRY_BLOB_STORE}"`);
  }
  if (Boolean(env.GANTRY_S3_ACCESS_KEY_ID) !== Boolean(env.GANTRY_S3_SECRET_ACCESS_KEY)) {
    r.problem('GANTRY_S3_ACCESS_KEY_ID and GANTRY_S3_SECRET_ACCESS_KEY are set together or not at all');
  }
  if (!['on', 'fsync', 'off'].includes(config.usageJournal)) {
    r.problem(`GANTRY_USAGE_JOURNAL must be on, fsync or off, got "${env.GANTRY_USAGE_JOURNAL}"`);
  }
  if (env.GANTRY_SECRET_KEY && Buffer.from(env.GANTRY_SECRET_KEY, 'base64').length !== 32) {
    r.problem('GANTRY_SECRET_KEY must be base64 of exactly 32 bytes (e.g. openssl rand -base64 32)');
  }
}
