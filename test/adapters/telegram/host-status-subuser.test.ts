import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import { freshAddress } from "../../support/spend-harness.js";
import {
  GROUP_CHAT,
  OPERATOR,
  startTelegramHarness,
  type TelegramHarness,
  type TelegramHarnessOptions,
  type TelegramUser,
  VIEWER,
} from "./harness.js";

/**
 * `host status` and `subuser delete` on Telegram: real grammY against the fake Bot API, the sandbox
 * over HTTP. ADMIN and SECOND are admins; OPERATOR an operator; VIEWER a viewer.
 */
const ADMIN: TelegramUser = { id: 7010, is_bot: false, first_name: "Ada", username: "ada_admin" };
const SECOND: TelegramUser = { id: 7011, is_bot: false, first_name: "Bea", username: "bea_admin" };

function harness(options: TelegramHarnessOptions = {}): Promise<TelegramHarness> {
  return startTelegramHarness({
    ...options,
    settings: { admins: [`telegram:${ADMIN.id}`, `telegram:${SECOND.id}`], ...options.settings },
  });
}

const messages = (h: TelegramHarness) => h.fake.messages(GROUP_CHAT);
const last = (h: TelegramHarness): FakeMessage => structuredClone(messages(h).at(-1)!);
const current = (h: TelegramHarness, message: FakeMessage): FakeMessage =>
  structuredClone(messages(h).find((m) => m.message_id === message.message_id)!);
const labels = (m: FakeMessage) => (m.replyMarkup?.inline_keyboard.flat() ?? []).map((b) => b.text);
const toasts = (h: TelegramHarness) =>
  h.fake.calls("answerCallbackQuery").flatMap((c) => (c.params.text ? [String(c.params.text)] : []));

describe("telegram: the command menu", () => {
  it("setMyCommands lists /host (with status) and /subuser", async () => {
    const h = await harness();
    const menu = Object.fromEntries(h.fake.commands.map((c) => [c.command, c.description]));
    expect(menu.host).toMatch(/stop, status$/);
    expect(menu.subuser).toMatch(/^Delete a sub-user \(irreversible\)/);
  });
});

describe("telegram: host status", () => {
  it("Start's message is confirmed by Time Status and carries Status; a viewer's Status shows the status in its place", async () => {
    const h = await harness();
    const address = freshAddress("tg-status");
    await h.say(`/host start ${address}`, { chat: GROUP_CHAT });
    await h.settle();
    await h.click(last(h), "Start Host Mode");
    await h.settle();
    const started = last(h);
    expect(started.text).toMatch(/^Host Mode started\n/);
    expect(started.text).toMatch(/Confirmed by Time Status: active, infinity, cycles remaining unlimited/);
    expect(labels(started)).toEqual(["Status"]);

    await h.click(started, "Status", VIEWER);
    await h.settle();
    const status = current(h, started);
    expect(status.text).toMatch(/^Host Mode status\n/);
    expect(status.text).toContain("Cycles remaining: unlimited");
    expect(status.text).toContain("Started by: @olga_ops");
    expect(labels(status)).toEqual(["Status"]);
    expect(h.sandbox.calls("host.status")).toHaveLength(2);
  });

  it("an unregistered address gets one line; a viewer may ask, and nothing but Time Status is called", async () => {
    const h = await harness();
    const address = freshAddress("tg-status-unknown");
    await h.say(`/host status ${address}`, { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    expect(messages(h).map((m) => m.text)).toEqual([
      `${address} is not registered for Host Mode with this account, so the service has no status for it (code -4). Start it with: host start ${address}`,
    ]);
    expect(h.sandbox.calls().map((c) => c.endpoint)).toEqual(["host.status"]);
  });
});

describe("telegram: subuser delete", () => {
  it("a viewer and an operator are refused with no call", async () => {
    const h = await harness();
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    await h.say(`/subuser delete ${sub.userId}`, { chat: GROUP_CHAT, from: VIEWER });
    await h.say(`/subuser delete ${sub.userId}`, { chat: GROUP_CHAT, from: OPERATOR });
    await h.settle();
    expect(messages(h).map((m) => m.text)).toEqual([
      `subuser needs the admin role; you are a viewer. Ask an admin to add telegram:${VIEWER.id} to OPS_ADMINS.`,
      `subuser needs the admin role; you are an operator. Ask an admin to add telegram:${OPERATOR.id} to OPS_ADMINS.`,
    ]);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("an admin's double tap sends one DELETE; the result replaces the message", async () => {
    const h = await harness();
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    sub.totals.delegations = 2;
    await h.say(`/subuser delete ${sub.userId}`, { chat: GROUP_CHAT, from: ADMIN });
    await h.settle();
    const asked = last(h);
    expect(asked.text).toContain("NOT transferred");
    expect(labels(asked)).toEqual(["Delete sub-user", "Cancel"]);
    expect(h.sandbox.calls()).toEqual([]);
    await Promise.all([h.click(asked, "Delete sub-user", ADMIN), h.click(asked, "Delete sub-user", SECOND)]);
    await h.settle();
    expect(h.sandbox.calls("subuser.delete").map((c) => c.path)).toEqual([`/apiv2/subuserdel/${sub.userId}`]);
    const done = current(h, asked);
    expect(done.text).toMatch(/^Sub-user deleted\n/);
    expect(done.text).toContain("Reassigned: 2");
    expect(done.text).toContain("Deleted: 4");
    expect(labels(done)).toEqual([]);
    expect(toasts(h)).toContain("Already handled.");
  });

  it("each documented error is one line in the message's place", async () => {
    const h = await harness();
    const stranger = h.sandbox.accounts.add({ apiKey: "tg-stranger" });
    const cases: [number, () => void, RegExp][] = [
      [
        987_001,
        () => {},
        /^Not deleted: the service says user 987001 does not exist or is not a sub-user \(400/,
      ],
      [h.sandbox.reports.addSubuser(stranger).userId, () => {}, /^Not deleted: the service refused \(403:/],
      [
        h.sandbox.reports.addSubuser(h.sandbox.account).userId,
        () =>
          h.sandbox.inject("subuser.delete", {
            kind: "reply",
            reply: { status: 401, json: { detail: "X-API-KEY header is missing" } },
          }),
        /^Not deleted: the service says the API key header is missing \(401\)/,
      ],
      [
        h.sandbox.reports.addSubuser(h.sandbox.account).userId,
        () =>
          h.sandbox.inject("subuser.delete", {
            kind: "reply",
            reply: { status: 500, json: { detail: "Deletion failed" } },
          }),
        /^Not deleted: the service says the deletion failed \(500: Deletion failed\)/,
      ],
    ];
    for (const [userId, prepare, line] of cases) {
      await h.say(`/subuser delete ${userId}`, { chat: GROUP_CHAT, from: ADMIN });
      await h.settle();
      const asked = last(h);
      prepare();
      await h.click(asked, "Delete sub-user", ADMIN);
      await h.settle();
      const after = current(h, asked);
      expect(after.text).toMatch(line);
      expect(after.text.split("\n")).toHaveLength(1);
    }
    expect(h.sandbox.calls("subuser.delete").map((c) => c.status)).toEqual([400, 403, 401, 500]);
  });

  it("with OPS_APPROVAL_TRX the requester cannot approve; a second admin does", async () => {
    const h = await harness({ settings: { approvalTrx: "5" } });
    const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
    await h.say(`/subuser delete ${sub.userId}`, { chat: GROUP_CHAT, from: ADMIN });
    await h.settle();
    const asked = last(h);
    await h.click(asked, "Delete sub-user", ADMIN);
    await h.settle();
    const request = current(h, asked);
    expect(labels(request)).toEqual(["Approve", "Reject"]);
    await h.click(request, "Approve", ADMIN);
    await h.settle();
    expect(toasts(h)).toEqual([
      expect.stringMatching(/You asked for this deletion, so another admin must approve it/),
    ]);
    expect(h.sandbox.calls("subuser.delete")).toEqual([]);
    await h.click(request, "Approve", SECOND);
    await h.settle();
    expect(h.sandbox.calls("subuser.delete")).toHaveLength(1);
    expect(current(h, request).text).toMatch(/^Sub-user deleted\n[\s\S]*approved by @bea_admin/);
    const audit = await readAudit(h.store, 10);
    expect(audit.find((e) => e.verb === "approval approve")?.actor).toBe(`telegram:${SECOND.id}`);
  });
});
