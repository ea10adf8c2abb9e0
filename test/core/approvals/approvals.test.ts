import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import type { Actor } from "../../../src/core/invocation.js";
import { admin, operator, replyButtons, replyText, viewer } from "../../support/core-harness.js";
import { freshAddress, quote, tokenOf, useSpendHarness } from "../../support/spend-harness.js";

/** Approval over the real core, sandbox and store: the threshold is 1 TRX, so 65k energy needs it. */
const spend = useSpendHarness({ settings: { approvalTrx: "1", approvalTtlMs: 15 * 60_000 } });
const second: Actor = { platform: "slack", userId: "U0SECOND", displayName: "sam" };
const withSecond = {
  approvalTrx: "1",
  approvalTtlMs: 15 * 60_000,
  operators: ["slack:U0OPER", "slack:U0SECOND"],
};

async function requested() {
  const h = await spend.setup({ settings: withSecond });
  const address = freshAddress("approval");
  const q = await quote(h, `energy ${address} 65k`);
  const request = await h.click(operator, q.confirm);
  return { h, address, request };
}

describe("two-person approval", () => {
  it("Confirm at the threshold opens a request; another operator's Approve places one order", async () => {
    const { h, request } = await requested();
    expect(replyText(request)).toContain("Approval needed");
    expect(replyButtons(request).map((b) => b.label)).toEqual(["Approve", "Reject"]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);

    const approved = await h.click(second, tokenOf(request, "Approve"));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(replyText(approved)).toMatch(/approved by sam/);
    const audit = await readAudit(h.store, 10);
    const approval = audit.find((e) => e.verb === "approval approve");
    expect(approval?.actor).toBe("slack:U0SECOND");
    expect(approval?.message).toContain("slack:U0OPER");
    expect(approval?.orderIds).toHaveLength(1);
    expect(audit.find((e) => e.verb === "energy")?.actor).toBe("slack:U0OPER");
  });

  it("the requester's own Approve and a viewer's are refused before the claim; the buttons stay", async () => {
    const { h, request } = await requested();
    const self = await h.click(operator, tokenOf(request, "Approve"));
    expect(replyText(self)).toMatch(/another operator or admin must approve/);
    expect(self.visibility).toBe("private");
    const byViewer = await h.click(viewer, tokenOf(request, "Approve"));
    expect(replyText(byViewer)).toMatch(/needs the operator role/);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    await h.click(admin, tokenOf(request, "Approve"));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("Reject orders nothing and closes the request", async () => {
    const { h, request } = await requested();
    const rejected = await h.click(second, tokenOf(request, "Reject"));
    expect(replyText(rejected)).toMatch(/^Rejected by sam/);
    const late = await h.click(admin, tokenOf(request, "Approve"));
    expect(replyText(late)).toBe("Already handled.");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("after the TTL the buttons stop working and the message says so", async () => {
    const { h, request } = await requested();
    h.clock.advance(16 * 60_000);
    const late = await h.click(second, tokenOf(request, "Approve"));
    expect(replyText(late)).toMatch(/expired at .*nothing was ordered/);
    expect(late.replacesOriginal).toBe(true);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a price rise shows the new quote and needs approving again", async () => {
    const { h, request } = await requested();
    h.sandbox.prices.raiseEnergy(10);
    const moved = await h.click(second, tokenOf(request, "Approve"));
    expect(replyText(moved)).toMatch(/The price moved: approved at [\d.]+ TRX, it now costs/);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    await h.click(second, tokenOf(moved, "Approve"));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("two approvers at once place one order", async () => {
    const { h, request } = await requested();
    const token = tokenOf(request, "Approve");
    const replies = await Promise.all([
      h.click(second, token),
      h.click(admin, token),
      h.click(second, token),
    ]);
    expect(replies.filter((r) => replyText(r) === "Already handled.")).toHaveLength(2);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("below the threshold one Confirm is enough; on the console approval is refused", async () => {
    const h = await spend.setup({ settings: { approvalTrx: "1000" } });
    const q = await quote(h, `energy ${freshAddress("approval")} 65k`);
    await h.click(operator, q.confirm);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);

    const c = await spend.setup({ settings: { approvalTrx: "1", admins: ["console:root"] } });
    const root: Actor = { platform: "console", userId: "root" };
    const console = { platform: "console" as const, id: "console" };
    const cq = await c.run(root, `energy ${freshAddress("approval")} 65k`, console);
    const refused = await c.click(root, tokenOf(cq, /^Confirm/), console);
    expect(replyText(refused)).toMatch(/the console has one person/);
    expect(c.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a click from another conversation changes nothing; the request stays for its own", async () => {
    const { h, request } = await requested();
    const elsewhere = { platform: "slack" as const, id: "C0OTHER" };
    const foreign = await h.click(second, tokenOf(request, "Approve"), elsewhere);
    expect(replyText(foreign)).toMatch(/belongs to another conversation; nothing was done/);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    await h.click(second, tokenOf(request, "Approve"));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("Host Mode start above the threshold starts only once approved, as the requester", async () => {
    const h = await spend.setup({ settings: withSecond });
    const address = freshAddress("approval-host");
    const q = await quote(h, `host start ${address}`);
    const request = await h.click(operator, q.confirm);
    expect(replyText(request)).toContain(`Host Mode (infinity) for ${address}`);
    expect(h.sandbox.calls("host.infinitystart")).toEqual([]);
    const started = await h.click(second, tokenOf(request, "Approve"));
    expect(replyText(started)).toMatch(/approved by sam/);
    expect(h.sandbox.calls("host.infinitystart")).toHaveLength(1);
    const audit = await readAudit(h.store, 10);
    expect(audit.find((e) => e.verb === "host start")).toMatchObject({ actor: "slack:U0OPER", result: "ok" });
  });

  it("when the price cannot be checked again, nothing is ordered and Approve is offered again", async () => {
    const { h, request } = await requested();
    h.sandbox.inject("pricing.get", { kind: "reply", reply: { status: 500, json: { detail: "down" } } });
    const retry = await h.click(second, tokenOf(request, "Approve"));
    expect(replyText(retry)).toMatch(/Not ordered: the price and the deny list could not be checked again/);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    await h.click(second, tokenOf(retry, "Approve"));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});
