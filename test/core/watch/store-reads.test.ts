import { describe, expect, it } from "vitest";
import type { WatchSettings } from "../../../src/core/deps.js";
import { onBlocked } from "../../../src/core/features.js";
import { recheckDenyList } from "../../../src/core/watch/recheck.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import type { Store } from "../../../src/store/store.js";
import { operator, replyText, viewer } from "../../support/core-harness.js";
import { baseSettings } from "../../support/settings.js";
import { freshAddress, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";

/**
 * What the watchlists ask the store for as they grow: the round trips of a deny-list re-check
 * and of `watch add`/`watch list` depend on the chunks (1000 addresses) and the page, never on one
 * call per address, and nothing reads the whole verdict hash (100 000 watched: tens of MB).
 */
const spend = useSpendHarness();
const WATCHED = 3_000;
const conversations = [0, 1, 2].map((c) => ({ platform: "slack" as const, id: `CSCALE${c}` }));

interface Counted {
  store: Store;
  /** Store calls since the last `reset`, by method, with the keys they named. */
  calls: { method: string; key: string; fields: number }[];
  reset(): void;
}

function countingStore(): Counted {
  const inner = createMemoryStore();
  const calls: Counted["calls"] = [];
  const store = new Proxy(inner, {
    get(target, method: keyof Store) {
      const real = target[method];
      if (typeof real !== "function") return real;
      return (...args: unknown[]) => {
        const fields = Array.isArray(args[1]) ? args[1].length : 1;
        calls.push({ method, key: String(args[0]), fields });
        return (real as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls, reset: () => void calls.splice(0) };
}

async function setup(counted: Counted): Promise<SpendHarness> {
  const watch: WatchSettings = { ...baseSettings.watch };
  return spend.setup({ store: counted.store, settings: { watch } });
}

const watchKeyCalls = (c: Counted) => c.calls.filter((call) => call.key.startsWith("watch:"));

describe("watchlists' store round trips", () => {
  it("re-checks 3000 watched addresses with a few calls per 1000, posts each change once, and never reads the whole verdict hash", async () => {
    const counted = countingStore();
    const h = await setup(counted);
    const addresses = Array.from({ length: WATCHED }, (_, i) => freshAddress(`scale-${i}`));
    for (const [c, conversation] of conversations.entries()) {
      const mine = addresses.filter((_, i) => i % conversations.length === c);
      expect(replyText(await h.run(operator, `watch add ${mine.join(" ")}`, conversation))).toContain(
        `Watching ${mine.length} addresses`,
      );
    }
    expect(counted.calls.filter((c) => c.method === "hashGetAll")).toEqual([]);

    const changed = [addresses[3]!, addresses[2_999]!];
    for (const address of changed) h.sandbox.screening.setCategory(address, "usdt_frozen");
    h.sandbox.screening.bumpRevision();
    counted.reset();
    const result = await recheckDenyList(h.deps, onBlocked);
    expect(result).toMatchObject({ checked: WATCHED, changed: 2, batches: 3 });
    // The verdicts: one HMGET per chunk of 1000; no per-address read, no whole-hash read.
    const verdictReads = watchKeyCalls(counted).filter(
      (c) => c.key === "watch:verdict" && c.method.startsWith("hashGet"),
    );
    expect(verdictReads.filter((c) => c.method === "hashGetMany").map((c) => c.fields)).toEqual([
      1_000, 1_000, 1_000,
    ]);
    expect(verdictReads.filter((c) => c.method !== "hashGetMany")).toEqual([]);
    // Everything else the re-check asks of the watch state is per change, not per address.
    expect(watchKeyCalls(counted).length).toBeLessThan(3 * 3 + 2 * 15);

    await h.settle();
    const posted = h.notifications.filter((n) => /Watchlist/.test(replyText(n.reply)));
    expect(posted.map((n) => n.conversation.id).sort()).toEqual(["CSCALE0", "CSCALE2"]);
  });

  it("lists a page reading only that page's verdicts", async () => {
    const counted = countingStore();
    const h = await setup(counted);
    const addresses = Array.from({ length: 1_200 }, (_, i) => freshAddress(`scale-list-${i}`));
    await h.run(operator, `watch add ${addresses.join(" ")}`, conversations[0]);
    counted.reset();
    const page = replyText(await h.run(viewer, "watch list 7", conversations[0]));
    expect(page).toContain("Watched here: 1200 addresses");
    expect(page).toContain("Page 7 of 60");
    expect(page.match(/— clean/g)).toHaveLength(20);
    const verdictReads = counted.calls.filter((c) => c.key === "watch:verdict");
    expect(verdictReads).toEqual([{ method: "hashGetMany", key: "watch:verdict", fields: 20 }]);
  });
});
