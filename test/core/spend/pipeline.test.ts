import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { energyOrder } from "../../../src/core/energy/energy-spend.js";
import type { Actor } from "../../../src/core/invocation.js";
import { actorKey } from "../../../src/core/invocation.js";
import { buildEnergyQuote } from "../../../src/core/pricing/quote.js";
import { offerQuote } from "../../../src/core/spend/offer-quote.js";
import type { SpendEvent } from "../../../src/core/spend-lifecycle.js";
import { admin, channel, operator, replyText } from "../../support/core-harness.js";
import { freshAddress, quote, tokenOf, useSpendHarness } from "../../support/spend-harness.js";

/**
 * The one money path's outside seams (src/core/spend/pipeline.ts, lifecycle.ts): the lifecycle
 * hook follows a spend from its quote to its order, and a spend someone else asked for (an agent)
 * carries its requester from the quote's button to the audit record and every event.
 */
const spend = useSpendHarness();

async function withHook(options: Parameters<typeof spend.setup>[0] = {}) {
  const h = await spend.setup(options);
  const events: SpendEvent[] = [];
  h.deps.spendLifecycle = { on: (event) => void events.push(event) };
  return { h, events };
}

describe("the spend lifecycle hook", () => {
  it("a person's quote and Confirm: quoted, then ordered with the order id, the amount and who confirmed", async () => {
    const { h, events } = await withHook();
    const q = await quote(h, `energy ${freshAddress("life")} 65k`);
    await h.click(operator, q.confirm);
    expect(events.map((e) => e.status)).toEqual(["quoted", "ordered"]);
    const [quoted, ordered] = events;
    expect(quoted).toMatchObject({ spend: "energy", quoteTrx: expect.stringMatching(/^\d/) });
    expect(ordered?.confirmationId).toBe(quoted?.confirmationId);
    const order = h.sandbox.calls("order5m.create");
    expect(order).toHaveLength(1);
    expect(ordered).toMatchObject({
      status: "ordered",
      confirmedBy: actorKey(operator),
      paidTrx: quoted?.status === "quoted" ? quoted.quoteTrx : "",
      orderIds: [expect.any(String)],
    });
  });

  it("an agent's request: its requester rides the button to the audit record and the events; a person confirms", async () => {
    const { h, events } = await withHook();
    const address = freshAddress("agent");
    const list = await h.service.pricing.get();
    const priced = buildEnergyQuote(list, address, 65_000);
    const payload = {
      address,
      amount: 65_000,
      route: priced.route,
      quoteTrx: priced.costTrx,
      unitPriceSun: priced.unitPriceSun,
      periodLabel: priced.periodLabel,
    };
    const requester = { kind: "agent" as const, name: "probe", reason: "top up the hot wallet" };
    const { tokens } = await offerQuote(
      h.deps,
      { conversation: channel, actor: admin },
      energyOrder,
      payload,
      { requester },
    );
    const done = await h.click(operator, tokens.confirm);
    expect(replyText(done)).not.toMatch(/^Not ordered/);
    expect(replyText(done)).toContain('Asked by agent probe ("top up the hot wallet").');
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(events.map((e) => [e.status, e.requester])).toEqual([
      ["quoted", requester],
      ["ordered", requester],
    ]);
    const [entry] = (await readAudit(h.store, 10)).filter((e) => e.address === address);
    expect(entry).toMatchObject({ actor: actorKey(operator), requester: "agent:probe", result: "ok" });
  });

  it("a refusal at Confirm is told with its line, and nothing is ordered", async () => {
    const { h, events } = await withHook();
    const address = freshAddress("life-refused");
    const q = await quote(h, `energy ${address} 65k`);
    h.sandbox.screening.setCategory(address, "usdt_frozen");
    await h.click(operator, q.confirm);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(events.map((e) => e.status)).toEqual(["quoted", "refused"]);
    expect(events[1]).toMatchObject({ line: expect.stringContaining("is now on the deny list") });
  });

  it("Cancel on a spend's quote is told as cancelled, and nothing is ordered", async () => {
    const { h, events } = await withHook();
    const q = await quote(h, `energy ${freshAddress("life-cancel")} 65k`);
    await h.click(operator, q.cancel);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(events.map((e) => e.status)).toEqual(["quoted", "cancelled"]);
    expect(events[1]?.confirmationId).toBe(events[0]?.confirmationId);
  });

  it("a price rise at Confirm: the new quote is told as quoted, naming the one it replaces; its Confirm orders", async () => {
    const { h, events } = await withHook();
    const q = await quote(h, `energy ${freshAddress("life-rise")} 65k`);
    h.sandbox.prices.raiseEnergy(23);
    const moved = await h.click(operator, q.confirm);
    expect(replyText(moved)).toContain("The price rose by");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const [first, again] = events;
    expect(events.map((e) => e.status)).toEqual(["quoted", "quoted"]);
    expect(again).toMatchObject({ status: "quoted", replaces: first?.confirmationId });
    expect(again?.confirmationId).not.toBe(first?.confirmationId);
  });

  it("approval asked on the console (one person): the spend is told refused with the line, nothing ordered", async () => {
    const h = await spend.setup({ settings: { approvalTrx: "1", admins: ["console:root"] } });
    const events: SpendEvent[] = [];
    h.deps.spendLifecycle = { on: (event) => void events.push(event) };
    const root: Actor = { platform: "console", userId: "root" };
    const console = { platform: "console" as const, id: "console" };
    const q = await h.run(root, `energy ${freshAddress("life-console")} 65k`, console);
    const refused = await h.click(root, tokenOf(q, /^Confirm/), console);
    expect(replyText(refused)).toMatch(/the console has one person/);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(events.map((e) => e.status)).toEqual(["quoted", "refused"]);
    expect(events[1]).toMatchObject({ line: expect.stringMatching(/the console has one person/) });
  });
});
