/**
 * The core harness (real sandbox, real client, memory store, real job system) set up for the
 * spending commands: the sandbox runs on a clock the test sets (so the price period can change),
 * energy delays are a few milliseconds, and helpers quote and press the buttons.
 */
import { Big } from "big.js";
import { expect } from "vitest";
import type { Actor } from "../../src/core/invocation.js";
import type { Reply } from "../../src/core/reply.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { FAST_ENERGY } from "./bot-kit.js";
import {
  type CoreHarness,
  type CoreHarnessOptions,
  operator,
  replyButtons,
  replyText,
  useCoreHarness,
} from "./core-harness.js";

/** Noon UTC: the sandbox's 5-minute "Day 06-18" period and the 1-hour "Peak 08-20" period. */
export const NOON = "2025-03-01T12:00:00.000Z";

export interface SandboxClock {
  now: () => number;
  set(iso: string): void;
}

function sandboxClock(start = NOON): SandboxClock {
  let t = Date.parse(start);
  return {
    now: () => t,
    set: (iso) => {
      t = Date.parse(iso);
    },
  };
}

export interface SpendHarness extends CoreHarness {
  sandboxTime: SandboxClock;
}

/** `const spend = useSpendHarness()` at the top of a file, `await spend.setup()` in a test. */
export function useSpendHarness(defaults: CoreHarnessOptions = {}) {
  const harness = useCoreHarness();
  return {
    async setup(options: CoreHarnessOptions = {}): Promise<SpendHarness> {
      const sandboxTime = sandboxClock();
      const merged = { ...defaults, ...options };
      const h = await harness.setup({
        ...merged,
        settings: { publicUrl: "https://opsbot.test", ...merged.settings },
        sandbox: {
          now: sandboxTime.now,
          ...merged.sandbox,
          energy: { ...FAST_ENERGY, ...merged.sandbox?.energy },
        },
      });
      return Object.assign(h, { sandboxTime });
    },
  };
}

let seq = 0;
/** A checksummed TRON address nobody else in the run uses. */
export const freshAddress = (tag = "spend"): string => tronAddress(`${tag}-${process.pid}-${seq++}`);

/** The button labelled `label` (its token), failing the test when there is none. */
export function tokenOf(reply: Reply, label: RegExp | string): string {
  const button = replyButtons(reply).find((b) =>
    typeof label === "string" ? b.label === label : label.test(b.label),
  );
  expect(button, `no button ${label} in:\n${replyText(reply)}`).toBeDefined();
  return button?.token ?? "";
}

/** Runs a quote command and returns it with its Confirm token. */
export async function quote(
  h: CoreHarness,
  line: string,
  actor: Actor = operator,
): Promise<{ reply: Reply; confirm: string; cancel: string }> {
  const reply = await h.run(actor, line);
  return { reply, confirm: tokenOf(reply, /^(Confirm|Start)/), cancel: tokenOf(reply, "Cancel") };
}

/**
 * The Confirm amount of a quote's button label ("Confirm 2.73 TRX") and that amount raised by
 * `riseTrx`, as the bot prints them: the sandbox prices 5-minute energy by the period of the day
 * (UTC), so a test that runs at any hour reads the quoted amount instead of assuming one.
 */
export function raisedBy(confirmLabel: string, riseTrx: string): { before: string; after: string } {
  const quoted = /Confirm ([\d.]+) TRX/.exec(confirmLabel)?.[1];
  if (quoted === undefined) throw new Error(`not a Confirm label: ${confirmLabel}`);
  return { before: new Big(quoted).toFixed(), after: new Big(quoted).plus(riseTrx).toFixed() };
}
