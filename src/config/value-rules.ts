/**
 * Parsers for environment values: each takes the trimmed text and returns the value, or
 * undefined when the rule fails. They never throw and never build messages: `config.ts` owns
 * the wording, which must not echo a value (many are secrets).
 */

export const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

export const matching = (pattern: RegExp) => (raw: string) => (pattern.test(raw) ? raw : undefined);

function httpUrl(raw: string): URL | undefined {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  if (url.username || url.password || url.search || url.hash) return undefined;
  return url;
}

export const noTrailingSlash = (raw: string) => httpUrl(raw)?.href.replace(/\/+$/, "");
export const trailingSlash = (raw: string) => noTrailingSlash(raw)?.concat("/");

export function port(raw: string): number | undefined {
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : 0;
  return n >= 1 && n <= 65_535 ? n : undefined;
}

export function serviceBaseUrl(raw: string): string | undefined {
  const url = noTrailingSlash(raw);
  return url && !/\/apiv2$/i.test(url) ? url : undefined;
}

export function redisUrl(raw: string): string | undefined {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  return url && (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname ? raw : undefined;
}

/** `host:port` of a Redis node or sentinel: a host name, IPv4, or [IPv6], and a port. */
export function hostPort(raw: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))(?::(\d{1,5}))$/.exec(raw);
  const at = match?.[2] === undefined ? undefined : port(match[2]);
  if (!match?.[1] || at === undefined) return undefined;
  return { host: match[1].replace(/^\[|\]$/g, ""), port: at };
}

/** A comma list whose every entry passes `parse`; empty entries (a trailing comma) are skipped. */
export function list<T>(parse: (entry: string) => T | undefined) {
  return (raw: string): T[] | undefined => {
    const entries = raw.split(",").map((entry) => entry.trim());
    const parsed = entries.filter((entry) => entry !== "").map(parse);
    return parsed.length > 0 && parsed.every((v) => v !== undefined) ? (parsed as T[]) : undefined;
  };
}

export function integer(raw: string): number | undefined {
  const n = /^-?\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** An Entra (Azure AD) object or tenant id, or a Microsoft app id: a GUID. */
export const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const GUID_TEXT = GUID.source.slice(1, -1);

export const principal = matching(
  new RegExp(`^(slack:[UW][A-Z0-9]{2,}|telegram:\\d{1,16}|teams:${GUID_TEXT})$`),
);

/** A Teams conversation id (`19:…@thread.tacv2`, `a:…` of a personal chat): visible ASCII after its kind. */
export const TEAMS_CONVERSATION = /^(19|a|8|29):[\x21-\x7e]{1,400}$/;

/** An https URL without query, without a trailing slash (every TEAMS_* URL is https). */
export function httpsUrl(raw: string): string | undefined {
  const url = noTrailingSlash(raw);
  return url?.startsWith("https://") ? url : undefined;
}

/** An https origin (`https://host[:port]`), host lowercased, as a `serviceUrl`'s origin is compared. */
export function httpsOrigin(raw: string): string | undefined {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== "https:" || url.username || url.password || url.search || url.hash) return undefined;
  return url.pathname === "/" ? url.origin : undefined;
}
export const trxAmount = (raw: string) =>
  trxAmountOrZero(raw) !== undefined && /[1-9]/.test(raw) ? raw : undefined;

/** An amount of TRX that may be 0 (OPS_ACTIVATION_TRX: hold nothing). */
export const trxAmountOrZero = (raw: string) => (/^(0|[1-9]\d*)(\.\d{1,6})?$/.test(raw) ? raw : undefined);

/** A whole number from `min` to `max` (minutes of an interval or a TTL). */
export const wholeFrom = (min: number, max: number) => (raw: string) => {
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  return n >= min && n <= max ? n : undefined;
};

/** A whole number, at least `min` (seconds of an interval, milliseconds of a test knob). */
export const wholeAtLeast = (min: number) => (raw: string) => {
  const n = integer(raw);
  return n !== undefined && n >= min ? n : undefined;
};

/** A duration written in minutes, as the code reads durations: milliseconds. */
export const minutesAsMs =
  (parse: (raw: string) => number | undefined) =>
  (raw: string): number | undefined => {
    const minutes = parse(raw);
    return minutes === undefined ? undefined : minutes * 60_000;
  };

/** A duration written in seconds, as the code reads durations: milliseconds. */
export const secondsAsMs =
  (parse: (raw: string) => number | undefined) =>
  (raw: string): number | undefined => {
    const seconds = parse(raw);
    return seconds === undefined ? undefined : seconds * 1_000;
  };

/** `true` or `false`, in any case. */
export function boolean(raw: string): boolean | undefined {
  const word = raw.toLowerCase();
  return word === "true" ? true : word === "false" ? false : undefined;
}

/** A positive number with at most 4 digits before and 4 after the point (a score move). */
export const positiveDecimal = (raw: string) =>
  /^\d{1,4}(\.\d{1,4})?$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;

/** Hours above 0, at most a year, with at most 2 decimals. */
export function positiveHours(raw: string): number | undefined {
  const n = /^\d{1,4}(\.\d{1,2})?$/.test(raw) ? Number(raw) : Number.NaN;
  return n > 0 && n <= 8760 ? n : undefined;
}

/** `HH:MM` (UTC) as minutes after midnight. */
export function utcClock(raw: string): number | undefined {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(raw);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/** An agent of OPS_AGENT_TOKENS: `<name>:<scope>:<token>[:<daily TRX>]`. */
export interface AgentToken {
  name: string;
  scope: "read" | "request";
  token: string;
  /** What its confirmed requests may cost per UTC day, all together (decimal TRX); absent: no budget. */
  dailyTrx?: string;
}

/**
 * `<name>:<scope>:<token>[:<daily TRX>]`: name `[a-z0-9-]{1,32}`, scope `read` or `request`, token
 * ≥ 32 visible characters without `:` or `,`, the budget a positive TRX amount (up to 6 decimals).
 */
function agentToken(raw: string): AgentToken | undefined {
  const match =
    /^([a-z0-9-]{1,32}):(read|request):([\x21-\x2b\x2d-\x39\x3b-\x7e]{32,512})(?::(\d{1,12}(?:\.\d{1,6})?))?$/.exec(
      raw,
    );
  if (!match?.[1] || !match[3]) return undefined;
  if (match[4] !== undefined && Number(match[4]) <= 0) return undefined;
  return {
    name: match[1],
    scope: match[2] as AgentToken["scope"],
    token: match[3],
    ...(match[4] !== undefined && { dailyTrx: match[4] }),
  };
}

/** OPS_AGENT_TOKENS: a comma list of agents, each name once. */
export function agentTokens(raw: string): AgentToken[] | undefined {
  const tokens = list(agentToken)(raw);
  return tokens && new Set(tokens.map((t) => t.name)).size === tokens.length ? tokens : undefined;
}

/** Where agents' requests go: `slack:<channel id>`, `telegram:<chat id>` or `teams:<conversation id>`. */
export function agentChannel(
  raw: string,
): { platform: "slack" | "telegram" | "teams"; id: string } | undefined {
  const slack = /^slack:([CGD][A-Z0-9]{2,})$/.exec(raw);
  if (slack?.[1]) return { platform: "slack", id: slack[1] };
  const telegram = /^telegram:(-?\d{1,16})$/.exec(raw);
  if (telegram?.[1]) return { platform: "telegram", id: telegram[1] };
  const teams = raw.startsWith("teams:") ? raw.slice("teams:".length) : "";
  if (TEAMS_CONVERSATION.test(teams)) return { platform: "teams", id: teams };
  return undefined;
}
