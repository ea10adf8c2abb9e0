import { describe, expect, it } from "vitest";
import { caseSlaHandler } from "../../../src/core/cases/case-sla.js";
import { noteFinding } from "../../../src/core/cases/index.js";
import { tronAddressFrom } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { CHANNEL, startTeamsHarness } from "./harness.js";

/**
 * Escalations in a Teams channel (OPS_ONCALL `teams:<Entra object id>`): as on Slack, a digest of
 * what waited for the channel's next slot still pages on-call, once per message, with a real
 * Teams mention (`<at>` text and its `mention` entity naming the object id).
 */
const ONCALL = "0c0c0c0c-0000-4000-8000-0000000000ca";

async function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("teams: escalations", () => {
  it("every message that carries an escalation mentions on-call by its object id, and every escalated case is named", async () => {
    const h = await startTeamsHarness({
      settings: {
        alerts: { oncall: [`teams:${ONCALL}`] },
        cases: {
          levels: ["high", "severe"],
          slaMs: 60_000,
          destinations: [{ platform: "teams", id: CHANNEL }],
        },
      },
      // One slot every 300 ms of test time: what comes meanwhile is folded into a digest.
      notifyGapMs: () => 30_000,
    });
    // The bot knows the channel once it has been spoken to there (its serviceUrl is kept).
    await h.say("help");
    await h.settle();

    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const address = tronAddressFrom(`teams-escalation-${i}`);
      const opened = await noteFinding(h.deps, { address, key: `teams:${i}`, what: "screening: high" });
      ids.push(opened?.id ?? "");
    }
    const sla = caseSlaHandler({ deps: h.deps, actions: [] });
    await Promise.all(ids.map((caseId) => sla({ kind: "case-sla", caseId, opening: 1 })));

    const escalations = await waitFor(() => {
      const shown = h.fake.activities
        .filter((a) => a.conversationId === CHANNEL)
        .map((a) => JSON.stringify(a.body))
        .filter((body) => /[Ee]scalat/.test(body));
      return ids.every((id) => shown.some((body) => body.includes(id))) && shown;
    }, "every escalation in the channel");
    expect(escalations.length).toBeGreaterThan(0);
    expect(escalations.length).toBeLessThan(ids.length);
    for (const body of escalations) {
      const mentions = body.match(/"mentioned":\{"id":"([^"]+)"/g) ?? [];
      expect(mentions).toEqual([`"mentioned":{"id":"${ONCALL}"`]);
      // The `<at>` in the text, and the same in its entity.
      const tags = body.match(/<at>[^<]+<\/at>/g) ?? [];
      expect(tags).toHaveLength(2);
      expect(new Set(tags).size).toBe(1);
    }
  });
});
