import { describe, expect, it } from "vitest";
import { auditCommand } from "../../../src/core/audit/audit-command.js";
import {
  AUDIT_MAX_ENTRIES,
  type AuditEntry,
  appendAudit,
  formatAuditLine,
  readAudit,
} from "../../../src/core/audit-log.js";
import { commands } from "../../../src/core/command-registry.js";
import { appendToLedger } from "../../../src/core/ledger/ledger.js";
import { spansToText } from "../../../src/core/reply.js";
import { admin, channel, forEachStore, stubDeps } from "../support.js";

const entry = (i: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  at: new Date(Date.UTC(2025, 2, 1, 12, 0, i)).toISOString(),
  actor: "slack:U0OPER",
  conversation: "slack:C0OPS",
  verb: "energy",
  address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  amount: String(65000 + i),
  quoteTrx: "3.25",
  result: "ok",
  orderIds: [`ord-${i}`],
  ...extra,
});

forEachStore("audit log", (get) => {
  it("reads the newest entries first", async () => {
    for (let i = 0; i < 5; i++) await appendAudit(get().store, entry(i));
    const last = await readAudit(get().store, 3);
    expect(last.map((e) => e.amount)).toEqual(["65004", "65003", "65002"]);
    expect(last[0]).toEqual(entry(4));
  });

  it(`keeps at most ${AUDIT_MAX_ENTRIES} entries`, async () => {
    await Promise.all(
      Array.from({ length: AUDIT_MAX_ENTRIES + 20 }, (_, i) => appendAudit(get().store, entry(i % 60))),
    );
    expect(await readAudit(get().store, AUDIT_MAX_ENTRIES + 100)).toHaveLength(AUDIT_MAX_ENTRIES);
  });

  it("shows the audit log's last n to an admin with `audit log`: default 10, max 50, compact lines", async () => {
    for (let i = 0; i < 60; i++) await appendAudit(get().store, entry(i));
    await appendAudit(
      get().store,
      entry(0, { result: "failed", message: "insufficient funds", orderIds: [] }),
    );
    const deps = stubDeps({ store: get().store });
    const run = (args: string[]) => runAudit(deps, args);
    const byDefault = await run(["log"]);
    expect(byDefault.visibility).toBe("private");
    expect(byDefault.summary).toBe("Last 10 audit log entries");
    const lines = text(byDefault).split("\n");
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe(
      "2025-03-01 12:00Z slack:U0OPER energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65000 quote 3.25 TRX failed (insufficient funds) in slack:C0OPS",
    );
    expect(lines[1]).toContain("65059 quote 3.25 TRX ok orders ord-59");
    expect(text(await run(["log", "50"])).split("\n")).toHaveLength(50);
  });

  it("shows the ledger's newest spends by default, paged, and refuses a bad count or page", async () => {
    // The stub's clock stands at 2025-03-01 12:00 UTC.
    const deps = stubDeps({ store: get().store });
    for (let i = 1; i <= 25; i++) {
      await appendToLedger(deps, `t:${i}`, {
        kind: i % 5 === 0 ? "refusal" : "energy",
        actor: "slack:U0OPER",
        requester: i === 3 ? "agent:triage" : "slack:U0OPER",
        address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        amountSun: i % 5 === 0 ? 0 : 3_250_000,
        result: i % 5 === 0 ? "refused" : "ordered",
        orderIds: [`ord-${i}`],
        confirmationId: `c${i}`,
        detail: `spend ${i}`,
      });
    }
    const run = (args: string[]) => runAudit(deps, args);
    const first = await run([]);
    expect(first.visibility).toBe("private");
    expect(first.summary).toBe("Spend ledger, newest first (page 1 of 3)");
    const lines = text(first).split("\n");
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe(
      "2025-03-01 12:00Z #25 refusal slack:U0OPER TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 0 TRX refused orders ord-25 — spend 25",
    );
    expect(lines[1]).toContain("#24 energy slack:U0OPER TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 3.25 TRX ordered");
    const third = text(await run(["10", "3"])).split("\n");
    expect(third.map((l) => l.split(" ")[2])).toEqual(["#5", "#4", "#3", "#2", "#1"]);
    expect(third[2]).toContain("(asked by agent:triage)");
    expect((await run(["10", "4"])).summary).toBe("No page 4: the ledger has 3.");
    for (const bad of [["51"], ["0"], ["x"], ["2.5"], ["1", "0"], ["1", "2", "3"]]) {
      expect((await run(bad)).summary).toMatch(/^audit takes a count from 1 to 50 and a page/);
    }
  });
});

/** `audit <args>` typed by an admin. */
const runAudit = (deps: ReturnType<typeof stubDeps>, args: string[]) =>
  auditCommand.run({
    invocation: { kind: "command", actor: admin, conversation: channel, text: `audit ${args.join(" ")}` },
    args,
    role: "admin",
    deps,
    commands,
  });

const text = (reply: { blocks: readonly import("../../../src/core/reply.js").Block[] }) =>
  reply.blocks.flatMap((b) => (b.type === "text" ? [spansToText(b.spans)] : [])).join("\n");

describe("audit command", () => {
  it("is for admins and says when there is nothing yet", async () => {
    expect(auditCommand.role).toBe("admin");
    const deps = stubDeps();
    const reply = await auditCommand.run({
      invocation: { kind: "command", actor: admin, conversation: channel, text: "audit" },
      args: [],
      role: "admin",
      deps,
      commands,
    });
    expect(reply.summary).toBe("No spends in the ledger yet.");
  });

  it("formats a minimal entry", () => {
    expect(
      formatAuditLine({
        at: "2025-03-01T08:05:09.123Z",
        actor: "telegram:1",
        conversation: "telegram:-5",
        verb: "host stop",
        result: "ok",
      }),
    ).toBe("2025-03-01 08:05Z telegram:1 host stop ok in telegram:-5");
  });
});
