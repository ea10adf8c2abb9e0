import { describe, expect, it } from "vitest";
import { markHostActive, markHostStopped } from "../../../src/core/host/active.js";
import { freshAddress } from "../../support/spend-harness.js";
import { messageText, OPERATOR, startSlackHarness, VIEWER } from "./harness.js";

const homeText = (view: Record<string, unknown> | undefined) =>
  messageText(
    view
      ? { ts: "", channel: "", text: "", via: "", edits: 0, blocks: view.blocks as Record<string, unknown>[] }
      : undefined,
  );

describe("App Home", () => {
  it("publishes balance, prices and the addresses in Host Mode when a user opens the Home tab", async () => {
    const h = await startSlackHarness();
    const [a, b, stopped] = [freshAddress("home"), freshAddress("home"), freshAddress("home")];
    await markHostActive(h.deps, a);
    await markHostActive(h.deps, b);
    await markHostActive(h.deps, stopped);
    await markHostStopped(h.deps, stopped);

    const response = await h.openHome(VIEWER);
    expect(response.status).toBe(200);
    await h.settle();

    const [publish] = h.fake.calls("views.publish");
    expect(publish?.params.user_id).toBe(VIEWER.id);
    const text = homeText(h.fake.home(VIEWER.id));
    expect(text).toContain("Operations overview");
    expect(text).toContain("Account balance");
    expect(text).toContain("Prices");
    expect(text).toContain("Host Mode (2):");
    expect(text).toContain(`\`${[a, b].sort()[0]}\``);
    expect(text).not.toContain(stopped);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(h.sandbox.calls("pricing.get").length).toBeGreaterThanOrEqual(1);
    // Nothing is posted into any conversation.
    expect(h.fake.allMessages()).toEqual([]);
  });

  it("opens again within the balance cache without reading the account again", async () => {
    const h = await startSlackHarness();
    await h.openHome(OPERATOR);
    await h.openHome(OPERATOR);
    await h.settle();
    expect(h.fake.calls("views.publish")).toHaveLength(2);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(homeText(h.fake.home(OPERATOR.id))).toContain("Host Mode: no address is in Host Mode.");
  });
});
