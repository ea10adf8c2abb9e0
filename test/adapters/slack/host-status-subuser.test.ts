import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { MANIFEST_PATH } from "../../../adapters/slack/write-manifest.js";
import { readAudit } from "../../../src/core/audit-log.js";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import { freshAddress } from "../../support/spend-harness.js";
import {
  ADMIN,
  buttonLabels,
  CHANNEL,
  messageText,
  OPERATOR,
  type SlackHarness,
  type SlackHarnessOptions,
  startSlackHarness,
  VIEWER,
} from "./harness.js";

/**
 * `host status` and `subuser delete` on Slack: real Bolt against the fake Web API, the sandbox over
 * HTTP, what the channel and each user saw and what the service was asked.
 */
const SECOND_ADMIN = { id: "U0ADMIN2", name: "bea" };

async function harness(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  return startSlackHarness({
    ...options,
    settings: { admins: [`slack:${ADMIN.id}`, `slack:${SECOND_ADMIN.id}`], ...options.settings },
  });
}

const last = (h: SlackHarness): FakeSlackMessage => structuredClone(h.fake.channelMessages(CHANNEL).at(-1)!);
const current = (h: SlackHarness, message: FakeSlackMessage) =>
  structuredClone(h.fake.channelMessages(CHANNEL).find((m) => m.ts === message.ts));
const ephemeralTexts = (h: SlackHarness, user: { id: string }) => h.fake.ephemerals(user.id).map(messageText);

/** `/host start` and its Start button: the start message. */
async function startHost(h: SlackHarness, address: string): Promise<FakeSlackMessage> {
  await h.command(`/host start ${address}`);
  await h.settle();
  await h.click(last(h), "Start Host Mode");
  await h.settle();
  return last(h);
}

describe("slack: the manifest", () => {
  it("registers /subuser and gives /host its status usage", () => {
    const manifest = parse(readFileSync(MANIFEST_PATH, "utf8")) as {
      features: { slash_commands: { command: string; usage_hint?: string }[] };
    };
    const hints = Object.fromEntries(manifest.features.slash_commands.map((c) => [c.command, c.usage_hint]));
    expect(hints["/host"]).toBe("start|stop|status <address>");
    expect(hints["/subuser"]).toBe("delete <user_id>");
    expect(hints["/ops"]).toMatch(/\|subuser>/);
  });
});

describe("slack: host status", () => {
  it("the start message says Time Status confirms infinity and offers Status; a viewer's Status shows both sides", async () => {
    const h = await harness();
    const address = freshAddress("slack-status");
    const started = await startHost(h, address);
    expect(messageText(started)).toContain("Host Mode started");
    expect(messageText(started)).toMatch(
      /Confirmed by Time Status: active, infinity, cycles remaining unlimited, order \d+/,
    );
    expect(buttonLabels(started)).toEqual(["Status"]);
    expect(h.sandbox.calls("host.status")).toHaveLength(1);

    await h.click(started, "Status", { user: VIEWER });
    await h.settle();
    const status = current(h, started);
    const text = messageText(status);
    expect(text).toContain("Host Mode status");
    expect(text).toMatch(/Status\*?:?\*?\s*active/);
    expect(text).toContain("unlimited");
    expect(text).toContain("Started by");
    expect(text).toContain("olga");
    // A fresh Status button: the message stays a status that can be read again.
    expect(buttonLabels(status)).toEqual(["Status"]);
    expect(h.sandbox.calls("host.status")).toHaveLength(2);
    expect(h.fake.channelMessages(CHANNEL).filter((m) => !m.threadTs)).toHaveLength(1);
  });

  it("a viewer may run host status but not host start; an unregistered address gets one line", async () => {
    const h = await harness();
    const unknown = freshAddress("slack-status-unknown");
    await h.command(`/host status ${unknown}`, { user: VIEWER });
    await h.command(`/host start ${unknown}`, { user: VIEWER });
    await h.settle();
    expect(ephemeralTexts(h, VIEWER)).toEqual([
      `${unknown} is not registered for Host Mode with this account, so the service has no status for it (code -4). Start it with: host start ${unknown}`,
      expect.stringMatching(/^host start needs the operator role; you are a viewer/),
    ]);
    expect(h.sandbox.calls().map((c) => c.endpoint)).toEqual(["host.status"]);
  });
});

describe("slack: subuser delete", () => {
  it("viewers and operators are refused with no call; an admin gets what happens and the button, nothing called", async () => {
    const h = await harness();
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    await h.command(`/subuser delete ${sub.userId}`, { user: VIEWER });
    await h.command(`/subuser delete ${sub.userId}`, { user: OPERATOR });
    await h.settle();
    expect(ephemeralTexts(h, VIEWER)).toEqual([
      expect.stringMatching(/^subuser needs the admin role; you are a viewer/),
    ]);
    expect(ephemeralTexts(h, OPERATOR)).toEqual([
      expect.stringMatching(/^subuser needs the admin role; you are an operator/),
    ]);
    await h.command(`/subuser delete ${sub.userId}`, { user: ADMIN });
    await h.settle();
    const asked = last(h);
    const text = messageText(asked);
    expect(text).toContain(`Delete sub-user ${sub.userId}?`);
    expect(text).toContain("order and delegation history moves to the parent");
    expect(text).toContain("API key, settings, referral data and deposit address are removed");
    expect(text).toContain("balance on the sub-user is NOT transferred");
    expect(text).toContain("cannot be undone");
    expect(buttonLabels(asked)).toEqual(["Delete sub-user", "Cancel"]);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("refuses a user_id that is not a positive integer before any call", async () => {
    const h = await harness();
    for (const bad of ["0", "-5", "12a", "1.5", "99999999999999999"]) {
      await h.command(`/subuser delete ${bad}`, { user: ADMIN });
    }
    await h.settle();
    const lines = ephemeralTexts(h, ADMIN);
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(/is not a user_id: it must be a positive whole number/);
    expect(h.sandbox.calls()).toEqual([]);
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
  });

  it("a double click sends one DELETE and shows the result; an operator's click is refused and leaves it", async () => {
    const h = await harness();
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    sub.totals.delegations = 3;
    await h.command(`/subuser delete ${sub.userId}`, { user: ADMIN });
    await h.settle();
    const asked = last(h);
    await h.click(asked, "Delete sub-user", { user: OPERATOR });
    await h.settle();
    expect(ephemeralTexts(h, OPERATOR)).toEqual([
      expect.stringMatching(/needs the admin role; you are an operator/),
    ]);
    expect(h.sandbox.calls("subuser.delete")).toEqual([]);

    await Promise.all([
      h.click(asked, "Delete sub-user", { user: ADMIN, actionTs: "1700000005.000100" }),
      h.click(asked, "Delete sub-user", { user: SECOND_ADMIN, actionTs: "1700000005.000200" }),
    ]);
    await h.settle();
    expect(h.sandbox.calls("subuser.delete").map((c) => [c.method, c.path, c.status])).toEqual([
      ["DELETE", `/apiv2/subuserdel/${sub.userId}`, 200],
    ]);
    const done = messageText(current(h, asked));
    expect(done).toContain("Sub-user deleted");
    expect(done).toMatch(/Reassigned\*?:?\*?\s*3/);
    expect(done).toMatch(/Deleted\*?:?\*?\s*4/);
    expect(done).toContain(`Sub-user ${sub.googleId} deleted`);
    expect(buttonLabels(current(h, asked))).toEqual([]);
    expect(h.sandbox.accounts.byUserId(sub.userId)).toBeUndefined();
    const entry = (await readAudit(h.store, 10)).find((e) => e.verb === "subuser delete");
    expect(entry).toMatchObject({
      actor: expect.stringMatching(/^slack:U0ADMIN2?$/),
      result: "ok",
      amount: String(sub.userId),
    });
  });

  it.each([
    ["unknown user", 400, /does not exist or is not a sub-user \(400: User not found\)/],
    ["real account", 400, /does not exist or is not a sub-user \(400: User is not a sub-user/],
    ["another account's sub-user", 403, /refused \(403: Only the parent account may delete this sub-user\)/],
    ["missing key header", 401, /API key header is missing \(401\); an admin should check SERVICE_API_KEY/],
    [
      "deletion failed",
      500,
      /deletion failed \(500: Deletion failed\); it runs in one transaction, so nothing changed/,
    ],
  ])("%s: one plain line in place of the message, audited as failed", async (what, status, line) => {
    const h = await harness();
    let userId = 987_654;
    if (what === "real account") userId = h.sandbox.accounts.add({ apiKey: "real-account" }).userId;
    if (what === "another account's sub-user") {
      const stranger = h.sandbox.accounts.add({ apiKey: "stranger" });
      userId = h.sandbox.reports.addSubuser(stranger).userId;
    }
    if (what === "missing key header" || what === "deletion failed") {
      userId = h.sandbox.reports.addSubuser(h.sandbox.account).userId;
      const detail = status === 401 ? "X-API-KEY header is missing" : "Deletion failed";
      h.sandbox.inject("subuser.delete", { kind: "reply", reply: { status, json: { detail } } });
    }
    await h.command(`/subuser delete ${userId}`, { user: ADMIN });
    await h.settle();
    const asked = last(h);
    await h.click(asked, "Delete sub-user", { user: ADMIN });
    await h.settle();
    const after = messageText(current(h, asked));
    expect(after).toMatch(line);
    // Who pressed it, then the one line.
    expect(after.split("\n")).toEqual(["*Delete sub-user* by <@U0ADMIN>", expect.stringMatching(line)]);
    expect(h.sandbox.calls("subuser.delete").map((c) => c.status)).toEqual([status]);
    const entry = (await readAudit(h.store, 10)).find((e) => e.verb === "subuser delete");
    expect(entry).toMatchObject({ result: "failed" });
  });

  it("the button works only in its conversation and for five minutes", async () => {
    let offset = 0;
    const h = await harness({ now: () => Date.now() + offset });
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    await h.command(`/subuser delete ${sub.userId}`, { user: ADMIN });
    await h.settle();
    const asked = last(h);
    await h.click({ ...asked, channel: "C0ELSEWHERE" }, "Delete sub-user", { user: ADMIN });
    offset += 5 * 60_000 + 1_000;
    await h.click(asked, "Delete sub-user", { user: ADMIN });
    await h.settle();
    expect(ephemeralTexts(h, ADMIN)).toEqual([
      "This button belongs to another conversation; nothing was done.",
      expect.stringMatching(/This button has expired \(buttons last 5 minutes\)/),
    ]);
    expect(h.sandbox.calls("subuser.delete")).toEqual([]);
    expect(h.sandbox.accounts.byUserId(sub.userId)).toBe(sub);
  });

  it("with OPS_APPROVAL_TRX a second admin approves (not the requester, not an operator); one DELETE", async () => {
    const h = await harness({ settings: { approvalTrx: "1", approvalTtlMs: 15 * 60_000 } });
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    await h.command(`/subuser delete ${sub.userId}`, { user: ADMIN });
    await h.settle();
    const asked = last(h);
    expect(messageText(asked)).toContain("asks a second admin to approve");
    await h.click(asked, "Delete sub-user", { user: ADMIN });
    await h.settle();
    const request = current(h, asked)!;
    expect(messageText(request)).toContain("Approval needed");
    expect(messageText(request)).toContain(`deleting sub-user ${sub.userId}`);
    expect(buttonLabels(request)).toEqual(["Approve", "Reject"]);
    expect(h.sandbox.calls("subuser.delete")).toEqual([]);

    await h.click(request, "Approve", { user: ADMIN });
    await h.click(request, "Approve", { user: OPERATOR });
    await h.settle();
    expect(ephemeralTexts(h, ADMIN)).toEqual([
      expect.stringMatching(/You asked for this deletion, so another admin must approve it/),
    ]);
    expect(ephemeralTexts(h, OPERATOR)).toEqual([
      expect.stringMatching(/needs the admin role; you are an operator/),
    ]);
    expect(h.sandbox.calls("subuser.delete")).toEqual([]);

    await h.click(request, "Approve", { user: SECOND_ADMIN });
    await h.settle();
    expect(h.sandbox.calls("subuser.delete")).toHaveLength(1);
    const done = messageText(current(h, request));
    expect(done).toContain("Sub-user deleted");
    expect(done).toMatch(/approved by bea/);
    const audit = await readAudit(h.store, 20);
    expect(audit.find((e) => e.verb === "subuser delete")).toMatchObject({
      actor: `slack:${ADMIN.id}`,
      result: "ok",
    });
    expect(audit.find((e) => e.verb === "approval approve")).toMatchObject({
      actor: `slack:${SECOND_ADMIN.id}`,
      result: "ok",
    });
  });

  it("a second admin's Reject closes the request: nothing deleted, no call", async () => {
    const h = await harness({ settings: { approvalTrx: "1" } });
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    await h.command(`/subuser delete ${sub.userId}`, { user: ADMIN });
    await h.settle();
    const asked = last(h);
    await h.click(asked, "Delete sub-user", { user: ADMIN });
    await h.settle();
    await h.click(current(h, asked)!, "Reject", { user: SECOND_ADMIN });
    await h.settle();
    expect(messageText(current(h, asked))).toMatch(/Rejected by bea at .*\. Nothing was deleted\./);
    expect(h.sandbox.calls()).toEqual([]);
    expect(h.sandbox.accounts.byUserId(sub.userId)).toBe(sub);
  });
});
