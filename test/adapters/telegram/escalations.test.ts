import { describe, expect, it } from "vitest";
import { caseSlaHandler } from "../../../src/core/cases/case-sla.js";
import { noteFinding } from "../../../src/core/cases/index.js";
import { tronAddressFrom } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { waitFor } from "../../support/bot-kit.js";
import { GROUP_CHAT, startTelegramHarness } from "./harness.js";

/**
 * Escalations on a busy Telegram group: the notifier folds what waits for the group's next slot
 * into one digest, and a digest holding escalations still pages on-call (issue 46, finding 1).
 */
describe("telegram: escalations coalesced", () => {
  it("every message that carries an escalation mentions on-call, and every escalated case is named", async () => {
    const h = await startTelegramHarness({
      settings: {
        alerts: { oncall: ["telegram:@oncall_olga"] },
        cases: {
          levels: ["high", "severe"],
          slaMs: 60_000,
          destinations: [{ platform: "telegram", id: String(GROUP_CHAT) }],
        },
      },
      // One slot every 300 ms of test time: what comes meanwhile is folded into a digest.
      notifyGapMs: () => 30_000,
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const address = tronAddressFrom(`busy-day-escalation-${i}`);
      const opened = await noteFinding(h.deps, { address, key: `test:${i}`, what: "screening: high" });
      ids.push(opened!.id);
    }
    const sla = caseSlaHandler({ deps: h.deps, actions: [] });
    await Promise.all(ids.map((caseId) => sla({ kind: "case-sla", caseId, opening: 1 })));

    const escalations = await waitFor(() => {
      const shown = h.fake.messages(GROUP_CHAT).filter((m) => /Escalated/.test(m.text));
      const named = ids.filter((id) => shown.some((m) => m.text.includes(id)));
      return named.length === ids.length && shown;
    }, "every escalation");
    expect(escalations.length).toBeLessThan(ids.length);
    for (const message of escalations) expect(message.text.split("@oncall_olga")).toHaveLength(2);
  });
});
