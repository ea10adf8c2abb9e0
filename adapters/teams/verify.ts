import { type CryptoKey, decodeProtectedHeader, importJWK, type JWK, type JWTPayload, jwtVerify } from "jose";
import { withDeadline } from "../../src/clock.js";

/**
 * The Bot Framework token of `POST /api/messages`, checked as CONTRACT.md says, before anything
 * else happens: RS256, signed by a key of TEAMS_OPENID_URL's key set that is endorsed for
 * `msteams`, issuer the metadata's `issuer`, audience TEAMS_APP_ID, not expired (≤ 5 minutes of
 * skew), its `serviceurl` claim equal to the activity's `serviceUrl`, whose origin is one of
 * TEAMS_SERVICE_URLS. Every failure is one `TokenRefused` (a 401); no request is sent anywhere
 * for a refused activity but the fetch of the key set itself.
 */
const CLOCK_SKEW_S = 300;
const CHANNEL = "msteams";
/** The key set is read again after this, or at once for a key id it does not hold (at most once a minute). */
const KEYS_FRESH_MS = 3_600_000;
const UNKNOWN_KID_REFETCH_MS = 60_000;

export class TokenRefused extends Error {
  override readonly name = "TokenRefused";
}

interface PublishedKey {
  jwk: JWK;
  endorsements: string[];
  /** The key imported once, on its first use (not once per request). */
  imported?: Promise<CryptoKey | Uint8Array>;
}

interface KeySet {
  issuer: string;
  keys: Map<string, PublishedKey>;
  at: number;
}

export interface TokenCheck {
  appId: string;
  openIdUrl: string;
  serviceOrigins: readonly string[];
  now?: () => number;
  /** The HTTP client (the tests count the requests). */
  fetch?: typeof fetch;
}

/** The claims of a token that passed, for the connector's identity. */
export type VerifiedClaims = JWTPayload & { serviceurl: string };

/** `https://host:port` of a URL, host lowercased; undefined unless https. */
export function originOf(url: string): string | undefined {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  return parsed?.protocol === "https:" ? parsed.origin : undefined;
}

export function createTokenCheck(options: TokenCheck) {
  const now = options.now ?? Date.now;
  const get = options.fetch ?? fetch;
  const allowed = new Set(options.serviceOrigins.map((o) => o.toLowerCase()));
  let keySet: KeySet | undefined;
  let loading: Promise<KeySet> | undefined;

  async function load(): Promise<KeySet> {
    const metadata = (await json(get, options.openIdUrl)) as { issuer?: unknown; jwks_uri?: unknown };
    if (
      typeof metadata.issuer !== "string" ||
      typeof metadata.jwks_uri !== "string" ||
      !metadata.jwks_uri.startsWith("https://")
    )
      throw new Error("OpenID metadata without issuer or https jwks_uri");
    const set = (await json(get, metadata.jwks_uri)) as { keys?: unknown };
    const keys = new Map<string, PublishedKey>();
    for (const key of Array.isArray(set.keys) ? (set.keys as (JWK & { endorsements?: unknown })[]) : []) {
      if (typeof key.kid !== "string") continue;
      const endorsements = Array.isArray(key.endorsements)
        ? key.endorsements.filter((e): e is string => typeof e === "string")
        : [];
      keys.set(key.kid, { jwk: key, endorsements });
    }
    return { issuer: metadata.issuer, keys, at: now() };
  }

  async function keys(kid: string): Promise<KeySet> {
    const stale = keySet === undefined || now() - keySet.at > KEYS_FRESH_MS;
    const unknown =
      keySet !== undefined && !keySet.keys.has(kid) && now() - keySet.at > UNKNOWN_KID_REFETCH_MS;
    if (stale || unknown) {
      loading ??= load().finally(() => {
        loading = undefined;
      });
      try {
        keySet = await loading;
      } catch (error) {
        if (keySet === undefined) throw error;
      }
    }
    if (keySet === undefined) throw new Error("no key set");
    return keySet;
  }

  /** Resolves with the token's claims, or rejects with `TokenRefused` saying which rule failed. */
  return async function check(
    authorization: string | undefined,
    serviceUrl: unknown,
  ): Promise<VerifiedClaims> {
    const token = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(authorization ?? "")?.[1];
    if (!token) throw new TokenRefused("no bearer token");
    if (typeof serviceUrl !== "string") throw new TokenRefused("no serviceUrl");
    const origin = originOf(serviceUrl);
    if (origin === undefined || !allowed.has(origin)) throw new TokenRefused("serviceUrl origin not allowed");
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new TokenRefused("unreadable token");
    }
    if (header.alg !== "RS256" || typeof header.kid !== "string")
      throw new TokenRefused("not RS256 with a key id");
    let set: KeySet;
    try {
      set = await keys(header.kid);
    } catch {
      throw new TokenRefused("key set unavailable");
    }
    const key = set.keys.get(header.kid);
    if (key === undefined) throw new TokenRefused("unknown key id");
    if (!key.endorsements.includes(CHANNEL)) throw new TokenRefused("key not endorsed for msteams");
    let payload: JWTPayload;
    try {
      key.imported ??= importJWK({ ...key.jwk, alg: "RS256" }, "RS256");
      ({ payload } = await jwtVerify(token, await key.imported, {
        algorithms: ["RS256"],
        issuer: set.issuer,
        audience: options.appId,
        clockTolerance: CLOCK_SKEW_S,
        currentDate: new Date(now()),
        requiredClaims: ["exp"],
      }));
    } catch {
      throw new TokenRefused("signature, issuer, audience or expiry");
    }
    if (payload.serviceurl !== serviceUrl) throw new TokenRefused("serviceurl claim differs");
    return payload as VerifiedClaims;
  };
}

async function json(get: typeof fetch, url: string): Promise<unknown> {
  return withDeadline(10_000, async (signal) => {
    const response = await get(url, { headers: { accept: "application/json" }, signal });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.json();
  });
}
