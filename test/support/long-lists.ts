import { noteFinding } from "../../src/core/cases/index.js";
import type { CoreDeps } from "../../src/core/deps.js";
import type { Actor, ConversationRef } from "../../src/core/invocation.js";
import { createOrder } from "../../src/core/schedule/standing-orders.js";
import { tronAddressFrom } from "../../src/sandbox/families/screening/demo-addresses.js";

/** A busy day's lists: `n` standing orders made in `conversation` (S1…Sn), as `schedule energy` stores them. */
export async function seedStandingOrders(
  deps: CoreDeps,
  conversation: ConversationRef,
  createdBy: Actor,
  n: number,
): Promise<void> {
  for (let i = 1; i <= n; i += 1) {
    const order = {
      v: 1 as const,
      id: `S${i}`,
      conversation,
      thread: conversation,
      address: tronAddressFrom(`busy-day-order-${i}`),
      amount: 65_000,
      atMin: 8 * 60,
      repeat: { kind: "daily" as const },
      createdBy,
      createdAt: deps.now(),
    };
    await createOrder(deps.store, order, createdBy.userId);
  }
}

/** `n` open AML cases (C1…Cn), one per address, as screenings at a case level open them. */
export async function seedCases(deps: CoreDeps, n: number): Promise<void> {
  for (let i = 1; i <= n; i += 1) {
    const address = tronAddressFrom(`busy-day-case-${i}`);
    await noteFinding(deps, { address, key: `busy-day:${i}`, what: "screening: high" });
  }
}
