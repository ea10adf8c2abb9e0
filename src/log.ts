import { type DestinationStream, destination as fileDestination, type Logger, pino } from "pino";

/**
 * Logging with pino, built so that secrets cannot reach a log line. Three layers:
 * 1. Our own serializers: an error keeps only named fields (an HTTP library's error may carry its
 *    request, headers included), a request keeps method and path, with the Host Mode callback
 *    token cut out of the path. pino's defaults would log the full URL and every header.
 * 2. pino `redact` for fields that hold secrets by name (apiKey, token, signature, headers...).
 * 3. A last pass over every finished line: the configured secret values and anything shaped like
 *    a Slack, Telegram or webhook secret is replaced, whatever field or message it slipped into.
 */
export interface LoggerOptions {
  level: string;
  /** Where lines go; stdout when unset. Tests pass a stream that collects lines. */
  destination?: DestinationStream;
  /** Secret values to scrub from every line (see `secretValues` in config.ts). */
  secrets?: readonly string[];
}

export type { Logger };

export const REDACTED = "[redacted]";

const SECRET_FIELDS = [
  "apiKey",
  "api_key",
  "token",
  "botToken",
  "appToken",
  "secret",
  "secrets",
  "signingSecret",
  "webhookSecret",
  "password",
  "signature",
  "authorization",
];

const SECRET_HEADERS = [
  '["x-api-key"]',
  ".authorization",
  ".cookie",
  '["x-service-signature"]',
  '["x-slack-signature"]',
  '["x-telegram-bot-api-secret-token"]',
];

/** Top level and one level down (pino's `*` matches exactly one level). */
const REDACT_PATHS = [
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
  ...SECRET_HEADERS.flatMap((header) => [`headers${header}`, `*.headers${header}`]),
];

export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? fileDestination({ dest: 1, sync: true });
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      serializers: {
        err: serializeError,
        error: serializeError,
        req: serializeRequest,
        res: serializeResponse,
      },
    },
    scrubbing(destination, options.secrets ?? []),
  );
}

function scrubbing(destination: DestinationStream, secrets: readonly string[]): DestinationStream {
  // A secret with a quote or backslash appears JSON-escaped inside a log line.
  const forms = longestFirst(secrets.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]));
  const stream: DestinationStream & { flush?: () => void } = {
    write: (line: string) => destination.write(scrub(line, forms)),
  };
  const flush = (destination as { flush?: () => void }).flush;
  if (typeof flush === "function") stream.flush = () => flush.call(destination);
  return stream;
}

/** Shapes of secrets we know even when nobody told us the value (e.g. a freshly rotated one). */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\/callbacks\/host\/[^/?#\s"'\\]+/g, `/callbacks/host/${REDACTED}`],
  [/\b(?:xox[abeoprs]|xapp)-[A-Za-z0-9-]{6,}/g, REDACTED],
  [/\bwhsec_[A-Za-z0-9+/=_-]{6,}/g, REDACTED],
  // Telegram: bot id, a colon, then the secret part, which starts with AA (TRON addresses start with T).
  [/(?<!\d)\d{5,}:AA[A-Za-z0-9_-]{30,}(?![A-Za-z0-9_-])/g, REDACTED],
];

/**
 * Free text made safe to log or post: each secret value, and anything shaped like a Slack token,
 * a Telegram bot token, a `whsec_` secret or a Host Mode callback path, becomes `[redacted]`.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return scrub(text, longestFirst(secrets));
}

// Longest first, so a secret that contains another is replaced whole.
const longestFirst = (secrets: readonly string[]): string[] =>
  secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);

/** `redactSecrets` with the secrets already sorted: the log stream sorts them once, not per line. */
function scrub(text: string, sortedSecrets: readonly string[]): string {
  let out = text;
  for (const secret of sortedSecrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

const ERROR_FIELDS = ["code", "httpStatus", "endpoint", "kind", "family", "retryable", "retryAfterMs"];
const MAX_CAUSE_DEPTH = 3;

/** Named fields only: never an error's request, response, config or headers. */
function serializeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) {
    return { name: "NonError", message: typeof error === "string" ? error : `thrown ${typeof error}` };
  }
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  const fields = error as unknown as Record<string, unknown>;
  for (const field of ERROR_FIELDS) {
    const value = fields[field];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      out[field] = value;
  }
  if (Array.isArray(fields.details) && fields.details.length > 0) out.details = fields.details.map(String);
  if (error.stack) out.stack = error.stack;
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH)
    out.cause = serializeError(error.cause, depth + 1);
  return out;
}

/** Method and path: no query, no headers, and the Host Mode callback token cut out. */
function serializeRequest(req: unknown): Record<string, unknown> {
  const r = (req ?? {}) as { method?: unknown; url?: unknown; id?: unknown };
  const url = typeof r.url === "string" ? r.url : "";
  const path = (url.split(/[?#]/)[0] ?? "").replace(/\/callbacks\/host\/.*/, `/callbacks/host/${REDACTED}`);
  const out: Record<string, unknown> = { method: typeof r.method === "string" ? r.method : undefined, path };
  if (typeof r.id === "string" || typeof r.id === "number") out.id = r.id;
  return out;
}

function serializeResponse(res: unknown): Record<string, unknown> {
  const statusCode = (res as { statusCode?: unknown } | undefined)?.statusCode;
  return { statusCode: typeof statusCode === "number" ? statusCode : undefined };
}
