import { readFile } from "node:fs/promises";
import Big from "big.js";
import { describe, expect, it } from "vitest";
import { requestEnergy } from "../../../src/core/agents/request-energy.js";
import { ledgerOfDays } from "../../../src/core/chart/chart-sources.js";
import { buildSpendChart } from "../../../src/core/chart/spend-chart-data.js";
import { buildDigest } from "../../../src/core/digest/summary.js";
import type { Actor } from "../../../src/core/invocation.js";
import { chargedToday } from "../../../src/core/ledger/day-totals.js";
import { writeExport } from "../../../src/core/ledger/export.js";
import { readDay } from "../../../src/core/ledger/ledger.js";
import { createNotificationRouter } from "../../../src/core/service-events/route.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { admin, operator, replyText } from "../../support/core-harness.js";
import {
  freshAddress,
  quote,
  type SpendHarness,
  tokenOf,
  useSpendHarness,
} from "../../support/spend-harness.js";

/**
 * A mixed day through the real commands, buttons and notifications over the sandbox — two people,
 * one agent; energy, a payout run, Host Mode start and cycles, a paid screening, a refusal at
 * Confirm, a sub-user deletion — and then every reader of money against the ledger: `digest`,
 * `chart spend`, the daily caps' counters and the export agree to the sun.
 */
const spend = useSpendHarness();
const second: Actor = { platform: "slack", userId: "U0SECOND" };
const AGENTS = { platform: "slack" as const, id: "C0AGENTS" };
const sunOf = (trx: Big | string) => new Big(trx).times(1_000_000).toNumber();

async function mixedDay(h: SpendHarness) {
  const energy = await quote(h, `energy ${freshAddress("mixed-a")} 65k`);
  await h.click(operator, energy.confirm);
  const other = await quote(h, `energy ${freshAddress("mixed-b")} 131k`, second);
  await h.click(second, other.confirm);
  await h.run(operator, `screen ${DEMO_ADDRESSES.lowRisk}`);

  const blocked = freshAddress("mixed-refused");
  const refusedQuote = await quote(h, `energy ${blocked} 65k`);
  h.sandbox.screening.addToList("aml_risk", blocked);
  expect(replyText(await h.click(operator, refusedQuote.confirm))).toMatch(/Nothing was ordered/);

  const payout = await h.run(operator, `energy 65k ${freshAddress("mixed-p1")} ${freshAddress("mixed-p2")}`);
  await h.click(operator, tokenOf(payout, /^Confirm/));
  await h.waitFor(
    () => h.notifications.some((n) => n.dedupKey?.startsWith("payout-outcome:")),
    "the run's end",
    15_000,
  );

  const host = freshAddress("mixed-host");
  const start = await quote(h, `host start ${host}`);
  await h.click(operator, start.confirm);
  // The sandbox runs the first cycle by itself; one more now. Each arrives as its callback would.
  await h.waitFor(
    () => (h.sandbox.energy.hostAddress(host)?.cycles.length ?? 0) > 0,
    "the first cycle",
    10_000,
  );
  h.sandbox.energy.hostCycle(host, { energyUsed: "65k" });
  const router = createNotificationRouter(h.deps, { alerts: [], originGraceMs: [] });
  for (const cycle of h.sandbox.energy.hostAddress(host)?.cycles ?? [])
    await router.route(
      {
        event: "host.cycle",
        address: host,
        order_id: cycle.orderId,
        hash: cycle.hash,
        charged: (cycle.chargedSun / 1_000_000).toFixed(4),
      },
      { deferrals: 0 },
    );

  const asked = await requestEnergy(h.deps, {
    agent: "ops-agent",
    address: freshAddress("mixed-agent"),
    amount: "65k",
    reason: "payouts",
  });
  expect(asked.status).toBe("awaiting_confirmation");
  const agentQuote = h.notifications.find((n) => n.dedupKey === `agent-request:${asked.request_id}`)?.reply;
  await h.click(second, tokenOf(agentQuote!, /^Confirm/), AGENTS);

  const sub = h.sandbox.reports.addSubuser(h.sandbox.account);
  await h.click(admin, tokenOf(await h.run(admin, `subuser delete ${sub.userId}`), /Delete sub-user/));
  await h.settle(15_000);
}

describe("a mixed day", () => {
  it("is one ledger that digest, chart spend, the caps and the export agree with, to the sun", async () => {
    const h = await spend.setup({
      settings: {
        agentChannel: AGENTS,
        dailyLimitTrx: "1000",
        operators: ["slack:U0OPER", "slack:U0SECOND"],
      },
    });
    await mixedDay(h);
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    const entries = await readDay(h.store, day);
    expect(new Set(entries.map((e) => e.kind))).toEqual(
      new Set(["energy", "screening", "refusal", "payout", "host_start", "host_cycle", "subuser_delete"]),
    );
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    const charged = entries.filter((e) => e.result === "ordered").reduce((n, e) => n + e.amountSun, 0);
    expect(charged).toBeGreaterThan(0);
    // What the sandbox charged the account is what the ledger holds.
    expect(charged).toBe(h.sandbox.account.totals.spentSun);

    const digest = await buildDigest(h.deps, day);
    const digestSun = digest.spends.reduce((n, s) => n + sunOf(s.trx), 0);
    expect(digestSun).toBe(charged);
    const chart = buildSpendChart(await ledgerOfDays(h.deps, day, 7), undefined);
    expect(sunOf(chart?.totalTrx ?? "0")).toBe(charged);

    for (const who of [operator, second]) {
      const key = `${who.platform}:${who.userId}`;
      const inDigest = digest.spends.filter((s) => s.who === key).reduce((n, s) => n + sunOf(s.trx), 0);
      const { totalSun } = await chargedToday(h.store, key, h.clock.now());
      expect(inDigest).toBe(totalSun);
      expect((await spentTodaySun(h.store, who, h.clock.now)).toNumber()).toBe(totalSun);
    }
    const agentSun = entries.filter((e) => e.requester === "agent:ops-agent" && e.result === "ordered");
    expect(agentSun).toHaveLength(1);
    expect(digest.spends.filter((s) => s.requester === "agent:ops-agent")).toHaveLength(1);

    const csv = (await readFile((await writeExport(h.store, day, day)).path, "utf8")).trim().split("\n");
    expect(csv).toHaveLength(entries.length + 1);
    const exportedSun = csv.slice(1).reduce((n, row) => {
      const cells = row.match(/("([^"]|"")*"|[^,]*)(,|$)/g) ?? [];
      const [amount, result] = [cells[6], cells[7]].map((c) => (c ?? "").replace(/,$/, ""));
      return result === "ordered" ? n + sunOf(amount ?? "0") : n;
    }, 0);
    expect(exportedSun).toBe(charged);
  });
});
