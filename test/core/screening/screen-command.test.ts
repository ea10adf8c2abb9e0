import { describe, expect, it } from "vitest";
import type { ConversationRef } from "../../../src/core/invocation.js";
import { PROVIDERS_TTL_MS } from "../../../src/core/screening/screening-providers.js";
import { createPollScreeningHandler } from "../../../src/core/screening/screening-tracking.js";
import { DEMO_ADDRESSES, tronAddressFrom } from "../../../src/sandbox/families/screening.js";
import { amlPriceSun } from "../../../src/sandbox/price-book.js";
import {
  type CoreHarness,
  channel,
  headersTimeoutDispatcher,
  operator,
  replyButtons,
  replyText,
  useCoreHarness,
  viewer,
} from "../../support/core-harness.js";

const PRICE_SUN = amlPriceSun("provider_a");
const PRICE = "3.266667 TRX";
const EVM = "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae";
const harness = useCoreHarness();

let seq = 0;
const freshAddress = (): string => tronAddressFrom(`core-screen-${process.pid}-${seq++}`);
const creates = (h: CoreHarness) => h.sandbox.calls("screening.create");
const keyOf = (call: { headers: Record<string, string> }) => call.headers["x-idempotency-key"];
/** Expected percentage of a share_fraction, computed independently of the renderer. */
const pct = (share: string) => `${Number((Number(share) * 100).toFixed(1))}%`;
const problem = (status: number, code: number, detail: string) => ({
  kind: "reply" as const,
  reply: {
    status,
    json: { type: "about:blank", title: "Error", status, detail, instance: "/apiv2/screening", code },
    headers: { "content-type": "application/problem+json" },
  },
});

describe("screen: results", () => {
  it("screens a TRON address on the detected network with the first available provider", async () => {
    const h = await harness.setup();
    const before = h.sandbox.account.balanceSun;
    const address = DEMO_ADDRESSES.lowRisk;
    const reply = await h.run(operator, `screen ${address}`);

    const body = replyText(reply);
    expect(reply.visibility).toBe("public");
    expect(body).toContain(`Address: ${address}`);
    expect(body).toContain("Network: trx");
    expect(body).toContain("Provider: provider_a");
    expect(body).toContain("Score: 0.5 / 10");
    expect(body).toContain("Level: low risk");
    expect(body).toContain("Sanctions: self: no; exposure: none");
    for (const e of h.sandbox.screening.scoreOf(address).exposure) {
      expect(body).toContain(`• ${e.category} ${pct(e.share_fraction)} (${e.direction}, `);
    }
    expect(body).not.toContain("Triggered rules");
    expect(body).toContain(`Charged ${PRICE} · order A`);

    const [call, ...others] = creates(h);
    expect(others).toEqual([]);
    expect(call?.body).toEqual({ address, network: "trx", provider: "provider_a", wait_for_result: true });
    expect(keyOf(call ?? { headers: {} })).toMatch(/^screen\.[A-Za-z0-9_-]+:[0-9a-f]{24}$/);
    expect(h.sandbox.calls("screening.providers")).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
    expect(h.scheduled).toEqual([]);
  });

  it("shows score, sanctions, rules and the primary entity of a sanctioned address", async () => {
    const h = await harness.setup();
    const address = DEMO_ADDRESSES.sanctioned;
    const finding = h.sandbox.screening.scoreOf(address);
    const sanctionsShare = finding.exposure.find((e) => e.category === "sanctions")?.share_fraction ?? "";
    const body = replyText(await h.run(operator, `screen ${address}`));

    expect(body).toContain("Screening: high risk");
    expect(body).toContain("Score: 9.8 / 10");
    expect(body).toContain(`Sanctions: self: SANCTIONED; exposure: source ${pct(sanctionsShare)}`);
    expect(body).toContain("Triggered rules\n• sanctions exposure — high\n• mixer exposure — high");
    expect(body).toMatch(/Primary entity: Sanctioned [^\n]+ \(sanctions\)/);
  });

  it("shows the score on the provider's own scale, never rescaled", async () => {
    const h = await harness.setup();
    h.sandbox.account.providers = ["provider_a", "provider_b"];
    const body = replyText(await h.run(operator, `screen ${DEMO_ADDRESSES.sanctioned} trx provider_b`));
    expect(body).toContain("Provider: provider_b");
    expect(body).toContain("Score: 98 / 100");
    expect(creates(h)[0]?.body).toMatchObject({ provider: "provider_b", network: "trx" });
  });

  it("reports a reused result as a cache hit, charged once", async () => {
    const h = await harness.setup();
    const address = freshAddress();
    const before = h.sandbox.account.balanceSun;
    await h.run(operator, `screen ${address}`);
    const other: ConversationRef = { platform: "slack", id: "C0OTHER" };
    const reply = await h.run(operator, `screen ${address}`, other);

    expect(replyText(reply)).toContain("Cache hit — not charged");
    expect(replyText(reply)).not.toContain("Charged");
    const [first, second] = creates(h);
    expect(creates(h)).toHaveLength(2);
    expect(keyOf(second ?? { headers: {} })).not.toBe(keyOf(first ?? { headers: {} }));
    expect(h.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
  });

  it("answers a repeat of the same command with the same order, not a new paid one", async () => {
    const h = await harness.setup();
    const address = freshAddress();
    const before = h.sandbox.account.balanceSun;
    const first = await h.run(operator, `screen ${address}`);
    const again = await h.run(operator, `screen ${address}`);

    const [a, b] = creates(h);
    expect(keyOf(b ?? { headers: {} })).toBe(keyOf(a ?? { headers: {} }));
    expect(h.sandbox.screening.orders()).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
    const order = /order (A[0-9a-f]{14})/.exec(replyText(first))?.[1];
    expect(replyText(again)).toContain(`order ${order}`);
    expect(replyText(again)).toMatch(/Same request as at .* UTC: this is that screening, not a new one/);
  });

  it("says when the address has no activity, and charges nothing", async () => {
    const h = await harness.setup();
    const before = h.sandbox.account.balanceSun;
    const reply = await h.run(operator, `screen ${DEMO_ADDRESSES.inactive}`);
    expect(reply.summary).toMatch(/skipped: the address has no activity — not charged/);
    expect(replyText(reply)).toContain("Skipped: address has no activity — not charged");
    expect(h.sandbox.account.balanceSun).toBe(before);
    expect(creates(h)).toHaveLength(1);
  });

  it("says a failed check failed and was refunded", async () => {
    const h = await harness.setup();
    const before = h.sandbox.account.balanceSun;
    const reply = await h.run(operator, `screen ${DEMO_ADDRESSES.failing}`);
    expect(replyText(reply)).toMatch(/Screening A[0-9a-f]{14} of \S+ failed \(provider_error\)\./);
    expect(replyText(reply)).toContain("Refunded — not charged");
    expect(h.sandbox.account.balanceSun).toBe(before);
    expect(h.scheduled).toEqual([]);
  });
});

describe("screen: a check slower than the synchronous wait", () => {
  it("answers 'still running', polls, and posts the result into the conversation", async () => {
    const h = await harness.setup({ sandbox: { screening: { maxWaitMs: 60 } } });
    const address = DEMO_ADDRESSES.highRisk;
    h.sandbox.screening.setDuration(400, address);
    const conversation: ConversationRef = { platform: "telegram", id: "-1001", threadId: "7" };
    const reply = await h.run(operator, `screen ${address}`, conversation);

    const id = h.sandbox.screening.orders()[0]?.id ?? "";
    expect(reply.summary).toBe(`Screening ${id} is still running; the result will be posted here.`);
    expect(replyText(reply)).toContain(`Charged ${PRICE}, payment pending`);
    expect(h.scheduled).toEqual([
      {
        job: { kind: "poll-screening", clientOrderId: id, conversation },
        options: { delayMs: 2_000, jobId: `poll-screening:${id}` },
      },
    ]);
    expect(h.delivered).toEqual([]);

    await h.waitFor(() => h.delivered.length === 1, "the posted result");
    const posted = h.delivered[0];
    expect(posted?.conversation).toEqual(conversation);
    expect(replyText(posted?.reply ?? { blocks: [], summary: "", visibility: "public" })).toContain(
      "Score: 8.4 / 10",
    );
    expect(h.notifications.map((n) => n.dedupKey)).toEqual([`screening:${id}`]);
    expect(h.sandbox.calls("screening.read").every((c) => c.path === `/apiv2/screening/${id}`)).toBe(true);
    expect(h.sandbox.calls("screening.read").length).toBeGreaterThanOrEqual(1);
    await h.settle();
    expect(creates(h)).toHaveLength(1);
  });

  it("posts a clear line when the pending check then fails", async () => {
    const h = await harness.setup({ sandbox: { screening: { maxWaitMs: 60 } } });
    const address = freshAddress();
    h.sandbox.screening.setDuration(300, address);
    h.sandbox.screening.setFails(address);
    await h.run(operator, `screen ${address}`);
    await h.waitFor(() => h.delivered.length === 1, "the posted failure");
    const text = replyText(h.delivered[0]?.reply ?? { blocks: [], summary: "", visibility: "public" });
    expect(text).toMatch(/Screening A[0-9a-f]{14} of \S+ failed \(provider_error\)\./);
    expect(text).toContain("Refunded — not charged");
  });
});

describe("screen: ambiguous network", () => {
  it("asks with one button per network, and a click screens on that network", async () => {
    const h = await harness.setup();
    const reply = await h.run(operator, `screen ${EVM}`);
    const labels = replyButtons(reply).map((b) => b.label);
    expect(labels.slice(0, 3)).toEqual(["eth", "bsc", "arb"]);
    expect(labels.at(-1)).toBe("Cancel");
    expect(labels).toContain("xdc");
    expect(replyText(reply)).toContain(`A screening is billed (${PRICE} with provider_a)`);
    expect(creates(h)).toEqual([]);

    const bsc = replyButtons(reply).find((b) => b.label === "bsc")?.token ?? "";
    const refused = await h.click(viewer, bsc);
    expect(refused.summary).toMatch(/needs the operator role/);
    expect(creates(h)).toEqual([]);

    const result = await h.click(operator, bsc);
    expect(result.replacesOriginal).toBe(true);
    expect(replyText(result)).toContain("Network: bsc");
    expect(creates(h).map((c) => c.body)).toEqual([
      { address: EVM, network: "bsc", provider: "provider_a", wait_for_result: true },
    ]);

    const eth = replyButtons(reply).find((b) => b.label === "eth")?.token ?? "";
    expect((await h.click(operator, eth)).summary).toBe("Already handled.");
    expect(creates(h)).toHaveLength(1);
  });

  it("offers only the networks an available provider covers", async () => {
    const h = await harness.setup();
    h.sandbox.account.providers = ["provider_b"];
    const reply = await h.run(operator, `screen ${EVM}`);
    expect(replyButtons(reply).map((b) => b.label)).toEqual(["eth", "Cancel"]);
  });
});

describe("screen: refused before anything is ordered", () => {
  it.each([
    ["screen hello", /"hello" is too short for an address/],
    [
      `screen ${DEMO_ADDRESSES.lowRisk} ethereum`,
      /"ethereum" is not a network ticker \(did you mean eth\?\)/,
    ],
    ["screen TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T trx", /checksum failed/],
    ["screen", /no address given/],
    ["screen qqqqqqqqqqqqqqqq", /could not tell the network of "qqqqqqqqqqqqqqqq": add it after the address/],
  ])("%s → one line, no service call", async (line, expected) => {
    const h = await harness.setup();
    const reply = await h.run(operator, line);
    expect(reply.visibility).toBe("private");
    expect(reply.blocks).toHaveLength(1);
    expect(reply.summary).toMatch(expected);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("refuses a viewer: a screening is billed", async () => {
    const h = await harness.setup();
    const reply = await h.run(viewer, `screen ${DEMO_ADDRESSES.lowRisk}`);
    expect(reply.summary).toBe(
      "screen needs the operator role; you are a viewer. Ask an admin to add slack:U0VIEW to OPS_OPERATORS.",
    );
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("names the available providers when the one asked for is not the account's", async () => {
    const h = await harness.setup();
    const reply = await h.run(operator, `screen ${DEMO_ADDRESSES.lowRisk} trx provider_b`);
    expect(reply.summary).toBe(
      "Provider provider_b is not available to this account (available: provider_a); nothing was ordered.",
    );
    expect(creates(h)).toEqual([]);
  });

  it("names the providers that cover the network when the one asked for does not", async () => {
    const h = await harness.setup();
    h.sandbox.account.providers = ["provider_a", "provider_b"];
    const reply = await h.run(operator, `screen ${EVM} bsc provider_b`);
    expect(reply.summary).toBe(
      "Provider provider_b does not cover bsc (it covers btc, eth, trx); providers available for bsc: provider_a. Nothing was ordered.",
    );
    expect(creates(h)).toEqual([]);
  });

  it("says no provider is available for the network when the only one is out of service", async () => {
    const h = await harness.setup();
    h.sandbox.screening.setProviderAvailable("provider_a", false);
    const reply = await h.run(operator, `screen ${DEMO_ADDRESSES.lowRisk}`);
    expect(reply.summary).toBe(
      "No provider for trx is available right now: provider_a (quota_exhausted). Nothing was ordered; try again later.",
    );
    expect(creates(h)).toEqual([]);
  });

  it("refuses a screening above OPS_MAX_ORDER_TRX, and one beyond the daily limit", async () => {
    const capped = await harness.setup({ settings: { maxOrderTrx: "3" } });
    const one = await capped.run(operator, `screen ${freshAddress()}`);
    expect(one.summary).toBe(
      "This screening would cost 3.266667 TRX, above the cap of 3 TRX per order (OPS_MAX_ORDER_TRX).",
    );
    expect(creates(capped)).toEqual([]);

    const daily = await harness.setup({ settings: { dailyLimitTrx: "5" } });
    expect(replyText(await daily.run(operator, `screen ${freshAddress()}`))).toContain(`Charged ${PRICE}`);
    const second = await daily.run(operator, `screen ${freshAddress()}`);
    expect(second.summary).toMatch(/only 1\.733333 TRX is left today of your daily limit of 5 TRX/);
    expect(creates(daily)).toHaveLength(1);
  });
});

describe("screen: the providers list", () => {
  it("is read once per 5 minutes", async () => {
    const h = await harness.setup();
    await h.run(operator, `screen ${freshAddress()}`);
    await h.run(operator, `screen ${freshAddress()}`);
    expect(h.sandbox.calls("screening.providers")).toHaveLength(1);
    h.clock.advance(PROVIDERS_TTL_MS + 1);
    await h.run(operator, `screen ${freshAddress()}`);
    expect(h.sandbox.calls("screening.providers")).toHaveLength(2);
  });
});

describe("screen: service errors, one line each", () => {
  it("4002: the provider was withdrawn from the account after the list was cached", async () => {
    const h = await harness.setup();
    h.sandbox.account.providers = ["provider_a", "provider_b"];
    await h.run(operator, `screen ${freshAddress()}`);
    h.sandbox.account.providers = ["provider_a"];
    const reply = await h.run(operator, `screen ${freshAddress()} trx provider_b`);
    expect(reply.summary).toBe(
      "Provider provider_b is not available to this account (code 4002); the screening was not placed.",
    );
    expect(creates(h).map((c) => c.status)).toEqual([200, 400]);
    // The stale list was dropped: the next command reads a fresh one and refuses before ordering.
    await h.run(operator, `screen ${freshAddress()} trx provider_b`);
    expect(h.sandbox.calls("screening.providers")).toHaveLength(2);
    expect(creates(h)).toHaveLength(2);
  });

  it("4004: the provider does not cover the network; nothing was charged", async () => {
    const h = await harness.setup();
    const before = h.sandbox.account.balanceSun;
    h.sandbox.inject("screening.create", problem(400, 4004, "provider_a does not cover trx"));
    const reply = await h.run(operator, `screen ${freshAddress()}`);
    expect(reply.summary).toBe("Provider provider_a does not cover trx (code 4004); nothing was charged.");
    expect(h.sandbox.account.balanceSun).toBe(before);
  });

  it("4020: insufficient balance", async () => {
    const h = await harness.setup();
    h.sandbox.account.balanceSun = 1_000;
    const reply = await h.run(operator, `screen ${freshAddress()}`);
    expect(reply.summary).toBe(
      `Not enough balance on the service account for a screening (${PRICE} with provider_a) (code 4020); nothing was charged. Top up the account and try again.`,
    );
    expect(creates(h).map((c) => c.status)).toEqual([402]);
    expect(h.sandbox.account.balanceSun).toBe(1_000);
  });

  it("5030: the provider went out of service after the list was cached", async () => {
    const h = await harness.setup();
    await h.run(operator, `screen ${freshAddress()}`);
    h.sandbox.screening.setProviderAvailable("provider_a", false);
    const reply = await h.run(operator, `screen ${freshAddress()}`);
    expect(reply.summary).toBe(
      "Provider provider_a is temporarily unavailable (code 5030); the screening was not placed. Try again later.",
    );
    expect(creates(h).map((c) => c.status)).toEqual([200, 503]);
  });

  it("429: the service is busy", async () => {
    const h = await harness.setup();
    h.sandbox.inject("screening.create", {
      kind: "reply",
      reply: { status: 429, json: { message: "API rate limit exceeded" }, headers: { "retry-after": "2" } },
    });
    const reply = await h.run(operator, `screen ${freshAddress()}`);
    expect(reply.summary).toBe("The service is busy (rate limit); try again in 2 s.");
    expect(h.sandbox.screening.orders()).toEqual([]);
  });

  it("timeout: says the outcome is unknown, and the same command then shows the order charged once", async () => {
    const h = await harness.setup({ client: { dispatcher: headersTimeoutDispatcher(150) } });
    const address = freshAddress();
    const before = h.sandbox.account.balanceSun;
    h.sandbox.inject("screening.create", { kind: "delay", ms: 400 });
    const reply = await h.run(operator, `screen ${address}`);
    expect(reply.summary).toBe(
      "The service did not answer in time, so it is not known whether the screening was placed. Run the same command again within 5 minutes: it carries the same idempotency key, so you get that screening's result and are not charged twice.",
    );
    // The service did place it after all; the user retries once it has.
    await h.waitFor(() => h.sandbox.screening.orders().length === 1, "the late order");
    const retry = await h.run(operator, `screen ${address}`);
    expect(replyText(retry)).toContain(`Charged ${PRICE}`);
    expect(replyText(retry)).toContain(`order ${h.sandbox.screening.orders()[0]?.id}`);
    const [a, b] = creates(h);
    expect(keyOf(b ?? { headers: {} })).toBe(keyOf(a ?? { headers: {} }));
    expect(h.sandbox.screening.orders()).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
  });
});

describe("screen: a lost send, then a refusal", () => {
  it("timeout then 429 on the transport's resends keeps the key: the user's retry is not a second paid order", async () => {
    const h = await harness.setup({
      client: { dispatcher: headersTimeoutDispatcher(150), maxAttempts: 3 },
    });
    const address = freshAddress();
    const before = h.sandbox.account.balanceSun;
    const busy = {
      status: 429,
      json: { message: "API rate limit exceeded" },
      headers: { "retry-after": "1" },
    };
    h.sandbox.inject("screening.create", { kind: "delay", ms: 400 });
    h.sandbox.inject("screening.create", { kind: "reply", reply: busy }, 2);
    const reply = await h.run(operator, `screen ${address}`);
    expect(reply.summary).toContain("it is not known whether the screening was placed");
    await h.waitFor(() => h.sandbox.screening.orders().length === 1, "the late order");
    const retry = await h.run(operator, `screen ${address}`);
    expect(replyText(retry)).toContain(`order ${h.sandbox.screening.orders()[0]?.id}`);
    const keys = creates(h).map((c) => keyOf(c));
    expect(new Set(keys).size).toBe(1);
    expect(h.sandbox.screening.orders()).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
  });
});

describe("the poll-screening handler", () => {
  it("posts one line when the service no longer knows the order", async () => {
    const h = await harness.setup();
    const poll = createPollScreeningHandler(h.deps);
    const conversation: ConversationRef = { platform: "console", id: "local" };
    const answer = await poll({ kind: "poll-screening", clientOrderId: "A0123456789abcd", conversation });
    expect(answer).toEqual({ done: true });
    expect(h.notifications.map((n) => n.reply.summary)).toEqual([
      "Could not read screening A0123456789abcd: The service refused: order A0123456789abcd not found (code 4040).",
    ]);
    expect(h.sandbox.calls("screening.read").map((c) => c.status)).toEqual([404]);
  });

  it("asks again while the order is pending, and says so when it stops waiting", async () => {
    const h = await harness.setup({ sandbox: { screening: { maxWaitMs: 10 } } });
    const address = freshAddress();
    h.sandbox.screening.setDuration(60_000, address);
    await h.run(operator, `screen ${address}`);
    const id = h.sandbox.screening.orders()[0]?.id ?? "";
    const delays = [500, null];
    const poll = createPollScreeningHandler(h.deps, { delayMs: (attempt) => delays[attempt] ?? null });
    const job = { kind: "poll-screening" as const, clientOrderId: id, conversation: channel };

    expect(await poll({ ...job, attempt: 0 })).toEqual({ again: true, delayMs: 500 });
    expect(h.notifications).toEqual([]);
    expect(await poll({ ...job, attempt: 1 })).toEqual({ done: true });
    expect(h.notifications.map((n) => n.reply.summary)).toEqual([
      `Screening ${id} has still not finished; the bot stopped waiting for it. Its result stays readable on the service under this order id.`,
    ]);
  });
});
