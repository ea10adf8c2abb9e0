import { describe, expect, it } from "vitest";
import {
  ACTION_TTL_MS,
  type ClaimResult,
  claimAction,
  createAction,
  createActionGroup,
} from "../../src/core/actions.js";
import type { PressedIn } from "../../src/core/buttons/place.js";
import { createMemoryStore } from "../../src/store/memory-store.js";
import { admin, channel, forEachStore, operator, viewer } from "./support.js";

const EXPIRED = "This button has expired (buttons last 5 minutes). Run the command again.";

forEachStore("one-time buttons", (get) => {
  const make = (role: "viewer" | "operator" | "admin" = "operator", ttlMs?: number) =>
    createAction(get().store, {
      kind: "energy.confirm",
      payload: { address: "TAddr", amount: 65000 },
      role,
      conversation: channel,
      createdBy: operator,
      ttlMs,
      now: get().clock.now,
    });

  it("gives a short URL-safe token and hands its record to the first claim only", async () => {
    const token = await make();
    expect(token).toMatch(/^[A-Za-z0-9_-]{1,24}$/);
    const first = await claimAction(get().store, token, operator, "operator", { now: get().clock.now });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.record).toMatchObject({
      token,
      kind: "energy.confirm",
      payload: { address: "TAddr", amount: 65000 },
      role: "operator",
      conversation: channel,
      createdBy: "slack:U0OPER",
    });
    expect(first.record.confirmationId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const second = await claimAction(get().store, token, operator, "operator", { now: get().clock.now });
    expect(second).toEqual({ ok: false, reason: "used", line: "Already handled." });
  });

  it("lets exactly one of 100 parallel claims win, across connections", async () => {
    const token = await make();
    const { store, peer, clock } = get();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        claimAction(i % 2 === 0 ? store : peer, token, operator, "operator", { now: clock.now }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === "used")).toHaveLength(99);
  });

  it("claims the whole group: Confirm kills Cancel, and they share the confirmation id", async () => {
    const { store, clock } = get();
    const { confirmationId, tokens } = await createActionGroup(
      store,
      { conversation: channel, createdBy: operator, now: clock.now },
      [
        { kind: "energy.confirm", payload: { n: 1 }, role: "operator" },
        { kind: "cancel", payload: {}, role: "operator" },
      ],
    );
    const [confirm, cancel] = tokens as [string, string];
    expect(confirm).not.toBe(cancel);
    const won = await claimAction(store, confirm, operator, "operator", { now: clock.now });
    expect(won.ok && won.record.confirmationId).toBe(confirmationId);
    expect(await claimAction(store, cancel, operator, "operator", { now: clock.now })).toMatchObject({
      ok: false,
      reason: "used",
    });
  });

  it("expires after its TTL by the injected clock, and an unknown token reads as expired", async () => {
    const token = await make();
    const { store, clock } = get();
    clock.advance(ACTION_TTL_MS - 1);
    const stillOk = await claimAction(store, token, admin, "admin", { now: clock.now });
    expect(stillOk.ok).toBe(true);

    const late = await make();
    clock.advance(ACTION_TTL_MS);
    expect(await claimAction(store, late, operator, "operator", { now: clock.now })).toEqual({
      ok: false,
      reason: "expired",
      line: EXPIRED,
    });
    expect(await claimAction(store, "nosuchtoken", operator, "operator", { now: clock.now })).toMatchObject({
      reason: "expired",
      line: EXPIRED,
    });
    expect(await claimAction(store, "x".repeat(200), operator, "operator")).toMatchObject({
      reason: "expired",
    });
  });

  it("names a custom lifetime in the expiry line", async () => {
    const token = await make("operator", 60_000);
    get().clock.advance(60_000);
    const result = await claimAction(get().store, token, operator, "operator", { now: get().clock.now });
    expect(result).toMatchObject({
      line: "This button has expired (buttons last 1 minute). Run the command again.",
    });
  });

  it("refuses a user without the role and leaves the button usable", async () => {
    const token = await make("operator");
    const { store, clock } = get();
    const refused = await claimAction(store, token, viewer, "viewer", { now: clock.now });
    expect(refused).toEqual({
      ok: false,
      reason: "forbidden",
      line: "This button needs the operator role; you are a viewer. Ask an admin to add slack:U0VIEW to OPS_OPERATORS.",
    });
    const claimed = await claimAction(store, token, operator, "operator", { now: clock.now });
    expect(claimed.ok).toBe(true);
  });

  it("applies the stricter of the record's role and the handler's role, before claiming", async () => {
    const token = await make("viewer");
    const { store, clock } = get();
    const options = {
      now: clock.now,
      roleForKind: (kind: string) => (kind === "energy.confirm" ? "admin" : undefined),
    } as const;
    const refused: ClaimResult = await claimAction(store, token, operator, "operator", options);
    expect(refused).toMatchObject({ ok: false, reason: "forbidden" });
    expect(refused.ok === false && refused.line).toContain("needs the admin role; you are an operator");
    expect(refused.ok === false && refused.line).toContain("to OPS_ADMINS.");
    expect((await claimAction(store, token, admin, "admin", options)).ok).toBe(true);
  });
});

forEachStore("buttons bound to where they were shown", (get) => {
  const elsewhere = {
    ok: false,
    reason: "elsewhere",
    line: "This button belongs to another conversation; nothing was done.",
  };
  const make = () =>
    createAction(get().store, {
      kind: "energy.confirm",
      payload: {},
      role: "operator",
      conversation: channel,
      createdBy: operator,
      now: get().clock.now,
    });
  const claimIn = (token: string, pressedIn: PressedIn) =>
    claimAction(get().store, token, operator, "operator", { now: get().clock.now, pressedIn });

  it("refuses another channel, another platform and another message, without spending the button", async () => {
    const token = await make();
    expect(await claimIn(token, { conversation: { platform: "slack", id: "C0OTHER" } })).toEqual(elsewhere);
    expect(await claimIn(token, { conversation: { platform: "telegram", id: "C0OPS" } })).toEqual(elsewhere);
    // The first press names the message; another message of the same channel is refused after it.
    const viewerPress = await claimAction(get().store, token, viewer, "viewer", {
      now: get().clock.now,
      pressedIn: { conversation: channel, messageId: "1700000000.000100" },
    });
    expect(viewerPress).toMatchObject({ ok: false, reason: "forbidden" });
    expect(await claimIn(token, { conversation: channel, messageId: "1700000000.000999" })).toEqual(
      elsewhere,
    );
    // A thread of its own channel, and a press that names no message, are where it was shown.
    const home = await claimIn(token, {
      conversation: { ...channel, threadId: "1700000000.000100" },
      messageId: "1700000000.000100",
    });
    expect(home.ok).toBe(true);
  });

  it("accepts a press that names no message (ephemeral, console) in its own conversation", async () => {
    expect((await claimIn(await make(), { conversation: channel })).ok).toBe(true);
  });
});

describe("createAction", () => {
  it("makes distinct tokens and groups", async () => {
    const store = createMemoryStore();
    const common = {
      kind: "k",
      payload: null,
      role: "viewer" as const,
      conversation: channel,
      createdBy: "slack:U1",
    };
    const tokens = await Promise.all(Array.from({ length: 50 }, () => createAction(store, common)));
    expect(new Set(tokens).size).toBe(50);
  });
});
