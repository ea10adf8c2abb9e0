import type { SandboxRequest } from "./router.js";

/** One account of the simulated service. Money is integer SUN (1 TRX = 1 000 000 SUN). */
export interface SandboxAccount {
  userId: number;
  apiKey: string;
  /** Whitelisted `X-Real-IP` values. */
  realIps: string[];
  balanceSun: number;
  blocked: boolean;
  email: string;
  name: string;
  depositAddress: string;
  /** Set for sub-users: the parent's user id. */
  parentUserId?: number;
  /** External identifier; sub-users' start with `SUB`. */
  googleId: string;
  totals: { delegations: number; energy: number; spentSun: number; depositSun: number };
  /** AML providers this account may order (screening, pricing and price endpoints list only these). */
  providers: string[];
}

export const SUN_PER_TRX = 1_000_000;
export const MIN_BALANCE_SUN = 4 * SUN_PER_TRX;

export const DEFAULT_API_KEY = "sandbox-api-key";
export const DEFAULT_REAL_IP = "203.0.113.10";

export type AuthResult =
  | { ok: true; account: SandboxAccount }
  | { ok: false; reason: "missing" | "invalid" | "ip" | "blocked" };

export function createAccountBook() {
  const byKey = new Map<string, SandboxAccount>();
  let nextId = 1000;

  function add(init: Partial<SandboxAccount> & { apiKey: string }): SandboxAccount {
    const userId = init.userId ?? nextId++;
    const account: SandboxAccount = {
      userId,
      realIps: [DEFAULT_REAL_IP],
      balanceSun: 500 * SUN_PER_TRX,
      blocked: false,
      email: `ops${userId}@example.com`,
      name: `Account ${userId}`,
      depositAddress: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
      googleId: `G${userId}`,
      totals: { delegations: 0, energy: 0, spentSun: 0, depositSun: 1000 * SUN_PER_TRX },
      providers: ["provider_a"],
      ...init,
    };
    byKey.set(account.apiKey, account);
    return account;
  }

  /**
   * Checks `X-API-KEY` (or a key from the body, for Host Mode) and, with `checkIp`, `X-Real-IP`
   * against the key's whitelist. Each family turns a failure into its own documented error shape.
   */
  function authenticate(req: SandboxRequest, opts: { checkIp: boolean; bodyKey?: unknown }): AuthResult {
    const header = req.headers["x-api-key"];
    const key =
      (Array.isArray(header) ? header[0] : header) ??
      (typeof opts.bodyKey === "string" ? opts.bodyKey : undefined);
    if (!key) return { ok: false, reason: "missing" };
    const account = byKey.get(key);
    if (!account) return { ok: false, reason: "invalid" };
    if (opts.checkIp && !account.realIps.includes(req.ip)) return { ok: false, reason: "ip" };
    if (account.blocked) return { ok: false, reason: "blocked" };
    return { ok: true, account };
  }

  return {
    add,
    authenticate,
    byKey: (key: string) => byKey.get(key),
    byUserId: (userId: number) => [...byKey.values()].find((a) => a.userId === userId),
    remove: (account: SandboxAccount) => byKey.delete(account.apiKey),
    all: () => [...byKey.values()],
  };
}

export type AccountBook = ReturnType<typeof createAccountBook>;

/** Charges an account; false (and nothing charged) when the balance does not cover it. */
export function charge(account: SandboxAccount, sun: number): boolean {
  if (!Number.isInteger(sun) || sun < 0) throw new Error(`charge must be whole SUN, got ${sun}`);
  if (account.balanceSun < sun) return false;
  account.balanceSun -= sun;
  account.totals.spentSun += sun;
  return true;
}

export const sunToTrx = (sun: number): number => sun / SUN_PER_TRX;
