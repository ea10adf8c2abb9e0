import { request } from "undici";
import { describe, expect, it } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP, SUN_PER_TRX } from "../../src/sandbox/accounts.js";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

const AT = Date.parse("2025-03-04T09:30:00Z");

const kit = useSandboxClient({ lifetime: "test", sandbox: { now: () => AT } });
const start = () => kit.start();
const accountApi = (caller: ClientOverrides = {}) => kit.client(caller).account;

describe("account.userinfo", () => {
  it("returns the documented fields computed from the account", async () => {
    const s = await start();
    Object.assign(s.account.totals, { delegations: 10, energy: 650_000, spentSun: 26 * SUN_PER_TRX });
    s.account.balanceSun = 123_456_789;
    const info = await accountApi().userinfo();
    expect(info).toEqual({
      status: "success",
      timestamp: "2025-03-04 09:30:00",
      user_id: s.account.userId,
      user_info: { email: s.account.email, name: s.account.name, deposit_address: s.account.depositAddress },
      stats: {
        balance: 123.456789,
        total_delegations: 10,
        total_energy_delegated: 650_000,
        total_trx_spent: 26,
        total_deposit: 1000,
        avg_rate_sun_energy: 40,
        save_by_netts_percent: 60,
        save_in_dollars: 11.7,
      },
      network_info: { trx_price: 0.3, network_energy_fee: 100 },
    });
    expect(s.calls("userinfo.get").map((c) => c.status)).toEqual([200]);
  });

  it("401 {status:error, code:401, message} for an unknown key or an IP outside the whitelist", async () => {
    const s = await start();
    const wrongIp = await rejection(accountApi({ realIp: "198.51.100.9" }).userinfo());
    expect(wrongIp).toMatchObject({ family: "userinfo", httpStatus: 401, code: 401, kind: "http" });
    expect(wrongIp.message).toMatch(/Invalid API key/);
    expect((await rejection(accountApi({ apiKey: "nope" }).userinfo())).code).toBe(401);
    expect(s.calls("userinfo.get").map((c) => c.status)).toEqual([401, 401]);
  });

  it("429 {message, request_id} with Retry-After after 6 calls a minute", async () => {
    const s = await start();
    const api = accountApi();
    for (let i = 0; i < 6; i++) await api.userinfo();
    const limited = await rejection(api.userinfo());
    expect(limited).toMatchObject({ kind: "rate_limited", httpStatus: 429, retryable: true });
    expect(limited.message).toBe("API rate limit exceeded");
    expect(limited.retryAfterMs).toBeGreaterThanOrEqual(1000);
    // The raw reply: body shape and the documented headers.
    const raw = await request(`${s.url}/apiv2/userinfo`, {
      headers: { "x-api-key": DEFAULT_API_KEY, "x-real-ip": DEFAULT_REAL_IP },
    });
    const body = (await raw.body.json()) as Record<string, unknown>;
    expect(raw.statusCode).toBe(429);
    expect(body).toEqual({ message: "API rate limit exceeded", request_id: expect.any(String) });
    expect(raw.headers["retry-after"]).toBe("60");
    expect(raw.headers["x-ratelimit-limit-minute"]).toBe("6");
    expect(s.calls("userinfo.get").map((c) => c.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it("500 {status:error, message} is decoded", async () => {
    const s = await start();
    s.inject("userinfo.get", {
      kind: "reply",
      reply: { status: 500, json: { status: "error", message: "Internal server error" } },
    });
    expect(await rejection(accountApi().userinfo())).toMatchObject({
      httpStatus: 500,
      message: "Internal server error",
      retryable: false,
    });
  });

  it("403 code 1005 for a blocked key", async () => {
    const s = await start();
    s.account.blocked = true;
    expect(await rejection(accountApi().userinfo())).toMatchObject({ httpStatus: 403, code: 1005 });
  });
});

describe("account.deleteSubuser", () => {
  it("deletes the parent's sub-user, reassigns its history and reports the documented fields", async () => {
    const s = await start();
    const sub = s.reports.addSubuser(s.account);
    sub.totals.delegations = 3;
    sub.totals.energy = 195_000;
    const before = s.account.totals.delegations;
    const result = await accountApi().deleteSubuser(sub.userId);
    expect(result).toEqual({
      user_id: sub.userId,
      google_id: sub.googleId,
      parent_user_id: s.account.userId,
      total_reassigned: 3,
      total_deleted: 4,
      message: expect.any(String),
    });
    expect(result.google_id.startsWith("SUB")).toBe(true);
    expect(s.accounts.byUserId(sub.userId)).toBeUndefined();
    expect(s.accounts.byKey(sub.apiKey)).toBeUndefined();
    expect(s.account.totals.delegations).toBe(before + 3);
    const [call] = s.calls("subuser.delete");
    expect(call).toMatchObject({ method: "DELETE", path: `/apiv2/subuserdel/${sub.userId}`, status: 200 });
  });

  it("400 for an unknown user and for a real (non-sub) account, which survives", async () => {
    const s = await start();
    const other = s.accounts.add({ apiKey: "other-account" });
    expect(await rejection(accountApi().deleteSubuser(987_654))).toMatchObject({
      family: "subuser",
      httpStatus: 400,
      message: "User not found",
    });
    expect((await rejection(accountApi().deleteSubuser(other.userId))).httpStatus).toBe(400);
    expect(s.accounts.byUserId(other.userId)).toBe(other);
    expect(s.calls("subuser.delete").map((c) => c.status)).toEqual([400, 400]);
  });

  it("401 when the API key header is missing", async () => {
    const s = await start();
    const sub = s.reports.addSubuser(s.account);
    expect((await rejection(accountApi({ apiKey: "" }).deleteSubuser(sub.userId))).httpStatus).toBe(401);
    expect(s.accounts.byUserId(sub.userId)).toBe(sub);
  });

  it("403 for a caller that is not the parent, and for an invalid key or IP", async () => {
    const s = await start();
    const sub = s.reports.addSubuser(s.account);
    s.accounts.add({ apiKey: "stranger" });
    expect(await rejection(accountApi({ apiKey: "stranger" }).deleteSubuser(sub.userId))).toMatchObject({
      httpStatus: 403,
      message: "Only the parent account may delete this sub-user",
    });
    // A sub-user cannot delete itself either: it is not its own parent.
    expect((await rejection(accountApi({ apiKey: sub.apiKey }).deleteSubuser(sub.userId))).httpStatus).toBe(
      403,
    );
    expect((await rejection(accountApi({ apiKey: "bad-key" }).deleteSubuser(sub.userId))).httpStatus).toBe(
      403,
    );
    expect((await rejection(accountApi({ realIp: "192.0.2.1" }).deleteSubuser(sub.userId))).httpStatus).toBe(
      403,
    );
    expect(s.accounts.byUserId(sub.userId)).toBe(sub);
    expect(s.calls("subuser.delete").map((c) => c.status)).toEqual([403, 403, 403, 403]);
  });

  it("500 (deletion failed) is decoded and not resent", async () => {
    const s = await start();
    const sub = s.reports.addSubuser(s.account);
    s.inject("subuser.delete", {
      kind: "reply",
      reply: { status: 500, json: { detail: "Deletion failed" } },
    });
    // Retries on (the transport's default attempts): a 500 is still sent once.
    const api = accountApi({ maxAttempts: 3 });
    expect(await rejection(api.deleteSubuser(sub.userId))).toMatchObject({
      httpStatus: 500,
      message: "Deletion failed",
    });
    expect(s.calls("subuser.delete")).toHaveLength(1);
  });
});
