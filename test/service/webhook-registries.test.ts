import { describe, expect, it } from "vitest";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

const kit = useSandboxClient({ lifetime: "test" });
// Most tests make more calls than the registries' limits allow in a second; the limit tests turn them on.
const start = (enforceRateLimits = false) => kit.start({ enforceRateLimits });
const registries = (caller: ClientOverrides = {}) => kit.client(caller).webhooks;

const UNSAFE_URLS = [
  ["http://hooks.example.com/x", "https:// only"],
  ["https://user:pw@hooks.example.com/x", "credentials not allowed"],
  ["https://127.0.0.1/x", "resolved address not public"],
  ["https://10.0.0.8/x", "resolved address not public"],
  ["https://192.168.1.1/x", "resolved address not public"],
  ["https://169.254.169.254/latest/meta-data", "resolved address not public"],
  ["https://[::1]/x", "resolved address not public"],
  ["https://localhost/x", "resolved address not public"],
  [`https://hooks.example.com/${"a".repeat(2049)}`, "longer than 2048"],
] as const;

describe("webhooks.orders (/apiv2/webhooks)", () => {
  it("create: first primary, second backup, secret only in the create reply", async () => {
    const s = await start();
    const api = registries().orders;
    const first = await api.create({ url: "https://opsbot.test/webhooks/orders" });
    expect(first).toMatchObject({
      role: "primary",
      is_active: true,
      url: "https://opsbot.test/webhooks/orders",
    });
    expect(first.secret).toMatch(/^whsec_/);
    const second = await api.create({ url: "https://backup.opsbot.test/webhooks/orders" });
    expect(second.role).toBe("backup");
    expect(second.secret).not.toBe(first.secret);

    const list = await api.list();
    expect(list).toMatchObject({ count: 2, max_endpoints: 2, roles: ["primary", "backup"] });
    expect(list.endpoints.map((e) => e.id)).toEqual([first.id, second.id]);
    const read = await api.read(first.id);
    expect(read.url).toBe(first.url);
    // No secret outside create/rotate, on the wire either.
    expect(JSON.stringify(list)).not.toContain("whsec_");
    expect(s.calls("order_webhooks.create").map((c) => c.status)).toEqual([201, 201]);
    expect(s.calls("order_webhooks.list")).toHaveLength(1);
    expect(s.reports.endpoints.list(s.account.userId, "order")).toHaveLength(2);
    expect(s.reports.endpoints.list(s.account.userId, "report")).toHaveLength(0);
  });

  it("4000 (400) for every unsafe URL, on create and on patch; nothing stored", async () => {
    const s = await start();
    const api = registries().orders;
    for (const [url, reason] of UNSAFE_URLS) {
      const error = await rejection(api.create({ url }));
      expect(error).toMatchObject({ family: "order_webhooks", httpStatus: 400, code: 4000 });
      expect(error.message).toContain(reason);
    }
    expect(s.reports.endpoints.list(s.account.userId, "order")).toHaveLength(0);
    const ok = await api.create({ url: "https://opsbot.test/a" });
    expect(await rejection(api.patch(ok.id, { url: "https://172.16.0.1/b" }))).toMatchObject({ code: 4000 });
    expect((await api.read(ok.id)).url).toBe("https://opsbot.test/a");
  });

  it("4090 when two endpoints exist, 4091 when the requested role is taken", async () => {
    const s = await start();
    const api = registries().orders;
    await api.create({ url: "https://opsbot.test/a", role: "backup" });
    expect(await rejection(api.create({ url: "https://opsbot.test/b", role: "backup" }))).toMatchObject({
      httpStatus: 409,
      code: 4091,
    });
    const primary = await api.create({ url: "https://opsbot.test/b" });
    expect(primary.role).toBe("primary");
    expect(await rejection(api.create({ url: "https://opsbot.test/c" }))).toMatchObject({
      httpStatus: 409,
      code: 4090,
    });
    expect(s.calls("order_webhooks.create").map((c) => c.status)).toEqual([201, 409, 201, 409]);
  });

  it("patch: role primary on the backup swaps both; is_active false pauses without promotion; empty 4220", async () => {
    const s = await start();
    const api = registries().orders;
    const a = await api.create({ url: "https://opsbot.test/a" });
    const b = await api.create({ url: "https://opsbot.test/b" });
    const swapped = await api.patch(b.id, { role: "primary" });
    expect(swapped.role).toBe("primary");
    expect((await api.read(a.id)).role).toBe("backup");
    const paused = await api.patch(b.id, { is_active: false });
    expect(paused).toMatchObject({ is_active: false, role: "primary" });
    expect((await api.read(a.id)).role).toBe("backup");
    expect(await rejection(api.patch(a.id, {}))).toMatchObject({ httpStatus: 422, code: 4220 });
    expect(s.calls("order_webhooks.patch").map((c) => c.status)).toEqual([200, 200, 422]);
  });

  it("rotate-secret returns a new secret and the book holds only the new one", async () => {
    const s = await start();
    const api = registries().orders;
    const created = await api.create({ url: "https://opsbot.test/a" });
    const rotated = await api.rotateSecret(created.id);
    expect(rotated).toEqual({ id: created.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.secret).not.toBe(created.secret);
    expect(s.reports.endpoints.get(s.account.userId, "order", created.id)?.secret).toBe(rotated.secret);
  });

  it("remove: 204, then -1 (404) for the same id", async () => {
    const s = await start();
    const api = registries().orders;
    const created = await api.create({ url: "https://opsbot.test/a" });
    await expect(api.remove(created.id)).resolves.toBeUndefined();
    expect(await rejection(api.read(created.id))).toMatchObject({ httpStatus: 404, code: -1 });
    expect(await rejection(api.remove(created.id))).toMatchObject({ httpStatus: 404, code: -1 });
    expect(s.calls("order_webhooks.delete").map((c) => c.status)).toEqual([204, 404]);
  });

  it("-1 (404) for another account's endpoint, -1 (401) for a bad key or IP", async () => {
    const s = await start();
    s.accounts.add({ apiKey: "someone-else" });
    const mine = await registries().orders.create({ url: "https://opsbot.test/a" });
    const theirs = registries({ apiKey: "someone-else" }).orders;
    for (const call of [
      theirs.read(mine.id),
      theirs.patch(mine.id, { is_active: false }),
      theirs.remove(mine.id),
    ]) {
      expect(await rejection(call)).toMatchObject({ httpStatus: 404, code: -1 });
    }
    expect((await theirs.list()).count).toBe(0);
    expect(await rejection(registries({ realIp: "192.0.2.55" }).orders.list())).toMatchObject({
      httpStatus: 401,
      code: -1,
    });
    expect(
      await rejection(registries({ apiKey: "wrong" }).orders.create({ url: "https://opsbot.test/x" })),
    ).toMatchObject({
      httpStatus: 401,
      code: -1,
    });
    expect(s.reports.endpoints.get(s.account.userId, "order", mine.id)?.is_active).toBe(true);
  });

  it("5003 (503) is decoded as retryable and create is not resent blindly", async () => {
    const s = await start();
    s.inject("order_webhooks.create", {
      kind: "reply",
      reply: { status: 503, json: { detail: { code: 5003, msg: "endpoint not created, retry" } } },
    });
    const error = await rejection(registries().orders.create({ url: "https://opsbot.test/a" }));
    expect(error).toMatchObject({ httpStatus: 503, code: 5003, retryable: true });
    expect(s.calls("order_webhooks.create")).toHaveLength(1);
  });

  it("the registry is rate limited per API key (5 per second)", async () => {
    const s = await start(true);
    const api = registries().orders;
    for (let i = 0; i < 5; i++) await api.list();
    expect(await rejection(api.list())).toMatchObject({ kind: "rate_limited", httpStatus: 429 });
    s.accounts.add({ apiKey: "second-key" });
    await expect(registries({ apiKey: "second-key" }).orders.list()).resolves.toMatchObject({ count: 0 });
  });
});

describe("webhooks.reports (/apiv2/reports/webhooks)", () => {
  it("create, list, read, patch, rotate, remove with {status, code 10000, data}", async () => {
    const s = await start();
    const api = registries().reports;
    const primary = await api.create({ url: "https://opsbot.test/webhooks/reports", role: "primary" });
    expect(primary).toMatchObject({
      role: "primary",
      is_active: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    const backup = await api.create({ url: "https://opsbot.test/webhooks/reports-backup", role: "backup" });
    const list = await api.list();
    expect(list.map((e) => [e.id, e.role])).toEqual([
      [primary.id, "primary"],
      [backup.id, "backup"],
    ]);
    expect(JSON.stringify(list)).not.toContain("whsec_");
    expect((await api.read(backup.id)).url).toBe("https://opsbot.test/webhooks/reports-backup");
    expect(await api.patch(primary.id, { url: "https://opsbot.test/v2/reports" })).toMatchObject({
      url: "https://opsbot.test/v2/reports",
      role: "primary",
    });
    await api.patch(backup.id, { role: "primary" });
    expect((await api.read(primary.id)).role).toBe("backup");
    const rotated = await api.rotateSecret(primary.id);
    expect(rotated.id).toBe(primary.id);
    expect(rotated.secret).not.toBe(primary.secret);
    await api.remove(backup.id);
    expect((await api.list()).map((e) => e.id)).toEqual([primary.id]);
    expect(s.reports.endpoints.list(s.account.userId, "order")).toHaveLength(0);
    expect(s.calls("report_webhooks.create").map((c) => c.status)).toEqual([201, 201]);
    expect(s.calls("report_webhooks.delete").map((c) => c.status)).toEqual([204]);
  });

  it("422 with a reason for a rejected URL and for an empty PATCH", async () => {
    const s = await start();
    const api = registries().reports;
    for (const [url, reason] of UNSAFE_URLS) {
      const error = await rejection(api.create({ url, role: "primary" }));
      expect(error).toMatchObject({ family: "report_webhooks", httpStatus: 422, code: 422 });
      expect(error.message).toContain(reason);
    }
    const ok = await api.create({ url: "https://opsbot.test/r", role: "primary" });
    expect(await rejection(api.patch(ok.id, {}))).toMatchObject({
      httpStatus: 422,
      message: "nothing to update",
    });
    expect(s.reports.endpoints.list(s.account.userId, "report")).toHaveLength(1);
  });

  it("409 when the role is taken, 404 for unknown ids, 401 for a bad IP", async () => {
    await start();
    const api = registries().reports;
    await api.create({ url: "https://opsbot.test/r", role: "primary" });
    expect(await rejection(api.create({ url: "https://opsbot.test/r2", role: "primary" }))).toMatchObject({
      httpStatus: 409,
      code: 409,
    });
    expect(await rejection(api.read(424242))).toMatchObject({ httpStatus: 404, code: 404 });
    expect(await rejection(api.rotateSecret(424242))).toMatchObject({ httpStatus: 404 });
    expect(await rejection(registries({ realIp: "192.0.2.1" }).reports.list())).toMatchObject({
      httpStatus: 401,
      code: 401,
    });
  });

  it("429 {status:error, code, msg} past 10 requests a second, shared by every caller", async () => {
    const s = await start(true);
    s.accounts.add({ apiKey: "another" });
    const mine = registries().reports;
    const theirs = registries({ apiKey: "another" }).reports;
    for (let i = 0; i < 5; i++) await mine.list();
    for (let i = 0; i < 5; i++) await theirs.list();
    const limited = await rejection(mine.list());
    expect(limited).toMatchObject({ kind: "rate_limited", httpStatus: 429, code: 429 });
    expect(limited.retryAfterMs).toBe(1000);
    expect(s.calls("report_webhooks.list").at(-1)?.status).toBe(429);
  });
});
