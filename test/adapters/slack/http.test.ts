import { describe, expect, it, onTestFinished } from "vitest";
import { signSlackRequest } from "../../../adapters/slack/verify.js";
import { STORE_UNAVAILABLE_LINE } from "../../../src/core/faults/store-unavailable.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import type { Store } from "../../../src/store/store.js";
import { createFakeSlackApi, FAKE_SLACK_TEAM } from "../../fakes/slack-api.js";
import { testRedis } from "../../support/redis.js";
import { CHANNEL, messageText, OPERATOR, type SlackHarness, startSlackHarness, waitFor } from "./harness.js";

/** What Slack was asked besides the token check at start. */
const slackCalls = (h: SlackHarness) => h.fake.calls().filter((c) => c.method !== "auth.test");

function expectNoEffect(h: SlackHarness): void {
  expect(h.sandbox.calls()).toEqual([]);
  expect(slackCalls(h)).toEqual([]);
  expect(h.fake.allMessages()).toEqual([]);
}

const balanceForm = (team = FAKE_SLACK_TEAM) =>
  new URLSearchParams({
    team_id: team,
    channel_id: CHANNEL,
    user_id: OPERATOR.id,
    user_name: OPERATOR.name,
    command: "/balance",
    text: "",
    response_url: "https://hooks.slack.com/commands/T0/1/x",
    trigger_id: "1.2.forged",
  }).toString();
const FORM = "application/x-www-form-urlencoded";

describe("POST /slack/events: request signing", () => {
  it("answers 401 to a forged signature and does nothing", async () => {
    const h = await startSlackHarness();
    const response = await h.post(
      { raw: balanceForm(), contentType: FORM },
      { signature: `v0=${"0".repeat(64)}` },
    );
    expect(response.status).toBe(401);
    await h.settle();
    expectNoEffect(h);
    expect(h.logger.records.find((r) => r.level === "warn")?.msg).toMatch(/SLACK_SIGNING_SECRET/);
  });

  it("answers 401 to a request signed with another secret, or changed after signing", async () => {
    const h = await startSlackHarness();
    const ts = String(Math.floor(Date.now() / 1000));
    const other = signSlackRequest("not-the-secret", ts, balanceForm());
    expect(
      (await h.post({ raw: balanceForm(), contentType: FORM }, { timestamp: Number(ts), signature: other }))
        .status,
    ).toBe(401);
    const signedForOther = signSlackRequest("8f742231b10e8888abcd99yyyzzz85a5", ts, balanceForm("T0OTHER"));
    expect(
      (
        await h.post(
          { raw: balanceForm(), contentType: FORM },
          { timestamp: Number(ts), signature: signedForOther },
        )
      ).status,
    ).toBe(401);
    expect((await h.post({ raw: balanceForm(), contentType: FORM }, { signature: "" })).status).toBe(401);
    await h.settle();
    expectNoEffect(h);
  });

  it("answers 401 to a stale and to a future timestamp (5-minute window both ways)", async () => {
    const h = await startSlackHarness();
    const now = Math.floor(Date.now() / 1000);
    const stale = await h.post({ raw: balanceForm(), contentType: FORM }, { timestamp: now - 6 * 60 });
    const future = await h.post({ raw: balanceForm(), contentType: FORM }, { timestamp: now + 6 * 60 });
    expect([stale.status, future.status]).toEqual([401, 401]);
    await h.settle();
    expectNoEffect(h);
    expect(h.logger.records.filter((r) => r.level === "warn").map((r) => r.obj.reason)).toEqual([
      "stale",
      "future",
    ]);
  });

  it("takes a properly signed request at the edge of the window", async () => {
    const h = await startSlackHarness();
    const now = Math.floor(Date.now() / 1000);
    const { response } = await h.command("/help", { timestamp: now - 4 * 60 });
    expect(response.status).toBe(200);
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
  });

  it("answers Slack's unsigned ssl_check with 200 and does nothing", async () => {
    const h = await startSlackHarness();
    const response = await h.post(
      { raw: `ssl_check=1&${balanceForm()}`, contentType: FORM },
      { signature: "" },
    );
    expect(response.status).toBe(200);
    await h.settle();
    expectNoEffect(h);
  });

  it("echoes the Events API url_verification challenge of a signed request only", async () => {
    const h = await startSlackHarness();
    const raw = JSON.stringify({
      token: "t",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    const ok = await h.post({ raw, contentType: "application/json" });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    expect((await h.post({ raw, contentType: "application/json" }, { signature: "v0=00" })).status).toBe(401);
  });

  it("answers 400 to a signed body that is not Slack's form or JSON", async () => {
    const h = await startSlackHarness();
    expect((await h.post({ raw: "{not json", contentType: "application/json" })).status).toBe(400);
    await h.settle();
    expectNoEffect(h);
  });
});

describe("POST /slack/events: workspace", () => {
  it("refuses a command and a click from another workspace than SLACK_TEAM_ID, with no effect", async () => {
    const h = await startSlackHarness({ teamId: FAKE_SLACK_TEAM });
    const { response } = await h.command("/balance", { team: "T0OTHERTEAM" });
    expect(response.status).toBe(403);
    const fakeMessage = {
      ts: "1.1",
      channel: CHANNEL,
      text: "",
      via: "test",
      edits: 0,
      blocks: [
        {
          type: "actions",
          elements: [
            {
              type: "button",
              action_id: "opsbot:0",
              text: { type: "plain_text", text: "Confirm" },
              value: "tok",
            },
          ],
        },
      ],
    };
    expect((await h.click(fakeMessage, "Confirm", { team: "T0OTHERTEAM" })).status).toBe(403);
    await h.settle();
    expectNoEffect(h);
    expect(h.logger.records.filter((r) => r.level === "warn").map((r) => r.obj.team)).toEqual([
      "T0OTHERTEAM",
      "T0OTHERTEAM",
    ]);

    // The served workspace still works.
    expect((await h.command("/help")).response.status).toBe(200);
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
  });
});

describe("POST /slack/events: the store", () => {
  it("answers the one line and runs nothing when the once-only mark cannot be stored", async () => {
    const store = createMemoryStore();
    const broken: Store = {
      ...store,
      close: () => store.close(),
      setIfNotExists: async (key, value, ttlMs) => {
        if (key.startsWith("slack:request:")) throw new Error("connection lost");
        return store.setIfNotExists(key, value, ttlMs);
      },
    };
    const h = await startSlackHarness({ store: broken });
    const { response } = await h.command("/balance");
    // The ack does not wait on the store; the line reaches the user privately by response_url.
    expect(response.status).toBe(200);
    await h.settle();
    expect(h.sandbox.calls()).toEqual([]);
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
    expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toEqual([STORE_UNAVAILABLE_LINE]);
    expect(h.logger.records.find((r) => r.level === "error")?.msg).toMatch(/against the store/);
  });
});

describe("POST /slack/events: the ack waits on nothing but the signature", () => {
  it("acks a command while its once-only mark is still being stored, and runs it once the mark is taken", async () => {
    const store = createMemoryStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: Store = {
      ...store,
      close: () => store.close(),
      setIfNotExists: async (key, value, ttlMs) => {
        if (key.startsWith("slack:request:")) await held;
        return store.setIfNotExists(key, value, ttlMs);
      },
    };
    const h = await startSlackHarness({ store: slow });
    const { response } = await h.command("/balance");
    // Acked (empty body: not the "storage is unavailable" line) with the store's answer still held back.
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    expect(h.sandbox.calls()).toEqual([]);
    release();
    await h.settle();
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(messageText(h.fake.channelMessages(CHANNEL)[0])).toContain("Account balance");
  });
});

describe("POST /slack/events: Slack retries", () => {
  it("runs a click once when Slack delivers it twice at once, and tells nobody it was already handled", async () => {
    const h = await startSlackHarness();
    await h.command(`/energy ${tronAddress("slack-click-retry")} 65k`);
    await h.settle();
    const quote = structuredClone(h.fake.channelMessages(CHANNEL).at(-1));
    if (!quote) throw new Error("no quote was posted");
    const click = { actionTs: "1700000003.000100" };
    const [first, retry] = await Promise.all([
      h.click(quote, /^Confirm/, click),
      h.click(quote, /^Confirm/, { ...click, headers: { "x-slack-retry-num": "1" } }),
    ]);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect([await first.text(), await retry.text()]).toEqual(["", ""]);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(h.fake.ephemerals(OPERATOR.id)).toEqual([]);
    expect(h.fake.channelMessages(CHANNEL).find((m) => m.ts === quote.ts)?.edits).toBe(1);
    expect(h.logger.records.filter((r) => /already handled; ignored/.test(r.msg ?? ""))).toHaveLength(1);
  });

  it("runs a command once when Slack re-sends it (X-Slack-Retry-Num)", async () => {
    const h = await startSlackHarness();
    const { response, request } = await h.command("/balance");
    expect(response.status).toBe(200);
    await h.settle();
    const retry = await h.post(request, {
      headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" },
    });
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe("");
    await h.settle();
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(messageText(h.fake.channelMessages(CHANNEL)[0])).toContain("Account balance");
  });

  it("runs it once across two instances sharing the store", async () => {
    const redis = testRedis();
    onTestFinished(() => redis.cleanup());
    const storeA = createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
    const storeB = createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
    const a = await startSlackHarness({ store: storeA });
    const b = await startSlackHarness({ store: storeB, fake: a.fake });
    const { request } = await a.command("/balance");
    await a.settle();
    expect((await b.post(request, { headers: { "x-slack-retry-num": "1" } })).status).toBe(200);
    await b.settle();
    expect(a.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(b.sandbox.calls()).toEqual([]);
    expect(a.fake.channelMessages(CHANNEL)).toHaveLength(1);
  });
});

describe("start", () => {
  it("is not ready while Slack refuses the token, says what to check, and retries until it is accepted", async () => {
    const fake = await createFakeSlackApi();
    onTestFinished(() => fake.close());
    fake.fail("auth.test", { kind: "error", error: "invalid_auth" }, 2);
    const h = await startSlackHarness({ fake, startRetryMs: 20 });
    expect(h.adapter.ready()).toBe(false);
    const logged = h.logger.records.find((r) => r.level === "error");
    expect(logged?.msg).toMatch(/verify SLACK_BOT_TOKEN/);
    await waitFor(() => h.adapter.ready(), "the adapter to become ready");
    expect(fake.calls("auth.test")).toHaveLength(3);
  });
});
