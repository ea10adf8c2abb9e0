import { describe, expect, it } from "vitest";
import { SlackApiError } from "../../../adapters/slack/errors.js";
import { publicReply, text } from "../../../src/core/reply.js";
import type { JobQueue } from "../../../src/jobs/queue.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening.js";
import { CHANNEL, messageText, OPERATOR, startSlackHarness, waitFor } from "./harness.js";

const STATEMENT_ADDRESS = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW";

/** Records every send slot the notify worker reserves, as asked: the channel's key and the gap (ms). */
const recordingPaces =
  (paced: [string, number, number][]) =>
  (queues: JobQueue): JobQueue => ({
    ...queues,
    pace: (key, gapMs, notBeforeMs = 0) => {
      paced.push([key, gapMs, notBeforeMs]);
      return queues.pace(key, gapMs, notBeforeMs);
    },
  });

describe("notifications: later messages in the same channel", () => {
  it("a screening still running is answered at once, and its result is posted later into the channel", async () => {
    const h = await startSlackHarness({ sandbox: { screening: { maxWaitMs: 60 } } });
    const address = DEMO_ADDRESSES.highRisk;
    h.sandbox.screening.setDuration(300, address);
    await h.command(`/screen ${address}`);
    await h.settle();

    const [pending] = h.fake.channelMessages(CHANNEL);
    expect(messageText(pending)).toMatch(/is still running; the result will be posted here/);
    expect(h.fake.calls("chat.postMessage")).toEqual([]);

    const result = await waitFor(
      () => h.fake.channelMessages(CHANNEL).find((m) => m.via === "chat.postMessage"),
      "the posted result",
    );
    expect(h.fake.calls("chat.postMessage").map((c) => c.params.channel)).toEqual([CHANNEL]);
    expect(messageText(result)).toContain("*Score*\n8.4 / 10");
    expect(result.text).toMatch(/\S/);
    expect(h.sandbox.calls("screening.create")).toHaveLength(1);
  });

  it("a statement file is uploaded (upload URL, bytes, complete) into the channel that asked", async () => {
    const h = await startSlackHarness();
    await h.command(`/statement ${STATEMENT_ADDRESS} 2025-01-01 2025-01-31 pdf`);
    await h.settle();
    const ordered = messageText(h.fake.channelMessages(CHANNEL)[0]);
    const orderNo = /Statement (REP[A-Z0-9]+) ordered/.exec(ordered)?.[1] ?? "";
    expect(orderNo).not.toBe("");

    await waitFor(() => h.fake.calls("files.completeUploadExternal").length > 0, "the file upload", 8_000);
    await h.settle();
    const [asked] = h.fake.calls("files.getUploadURLExternal");
    const artifact = h.sandbox.reports.order(orderNo)?.artifact;
    expect(asked?.params).toMatchObject({
      filename: expect.stringMatching(/\.pdf$/),
      length: String(artifact?.bytes.length),
    });
    expect(h.fake.calls("upload").map((c) => c.status)).toEqual([200]);
    const [complete] = h.fake.calls("files.completeUploadExternal");
    expect(complete?.params.channel_id).toBe(CHANNEL);
    expect(complete?.params.initial_comment).toContain(`Statement ${orderNo} is ready`);

    const [shared] = h.fake.files();
    expect(shared?.shared).toBe(true);
    expect(shared?.bytes?.equals(Buffer.from(artifact?.bytes ?? []))).toBe(true);
    const post = h.fake.channelMessages(CHANNEL).find((m) => m.via === "files.completeUploadExternal");
    expect(post?.files?.map((f) => f.id)).toEqual([shared?.id]);
    // The text and the file went up in one posting: no separate text message.
    expect(h.fake.calls("chat.postMessage")).toEqual([]);
  });
});

describe("notifications: Slack's limits and outages", () => {
  const notice = publicReply("Energy delivered", [text("Energy delivered to ", "TXYZ")]);

  it("send() turns a 429 into a retryable error with retryAfterMs, a 500 into a retryable one", async () => {
    const h = await startSlackHarness();
    h.fake.fail("chat.postMessage", { kind: "429", retryAfter: 7 });
    const limited = await h.adapter.send({ platform: "slack", id: CHANNEL }, notice).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(SlackApiError);
    expect(limited).toMatchObject({
      code: "ratelimited",
      retryable: true,
      retryAfterMs: 7_000,
      method: "chat.postMessage",
    });

    h.fake.fail("chat.postMessage", { kind: "500" });
    const down = await h.adapter.send({ platform: "slack", id: CHANNEL }, notice).catch((e: unknown) => e);
    expect(down).toMatchObject({ code: "http_500", retryable: true });
    // No hidden retries inside the Web API client: the queue owns retrying.
    expect(h.fake.calls("chat.postMessage").map((c) => c.status)).toEqual([429, 500]);
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
  });

  it("send() marks an error no retry can fix (channel_not_found, not_in_channel) as permanent", async () => {
    const h = await startSlackHarness();
    h.fake.refuseChannel("C0GONE", "channel_not_found");
    h.fake.refuseChannel("C0NOTIN", "not_in_channel");
    for (const id of ["C0GONE", "C0NOTIN"]) {
      const error = await h.adapter.send({ platform: "slack", id }, notice).catch((e: unknown) => e);
      expect(error).toMatchObject({ retryable: false });
      expect((error as Error).message).not.toContain("xoxb-");
    }
  });

  it("the notify queue waits out a 429 and delivers once; a gone channel is dropped with a clear log", async () => {
    const paced: [string, number, number][] = [];
    const h = await startSlackHarness({ queues: recordingPaces(paced) });
    h.fake.fail("chat.postMessage", { kind: "429", retryAfter: 1 });
    await h.deps.notifier.post({ platform: "slack", id: CHANNEL, threadId: "1700.0001" }, notice);
    const posted = await waitFor(() => h.fake.channelMessages(CHANNEL)[0], "the notification", 5_000);
    // The channel's slot, then the channel's first slot after Slack's 1 s pause, the retry's.
    const channel = `notify:slack:${CHANNEL}`;
    expect(paced).toEqual([
      [channel, 0, 0],
      [channel, 0, 1_000],
    ]);
    expect(posted.threadTs).toBe("1700.0001");
    expect(h.fake.calls("chat.postMessage").map((c) => c.status)).toEqual([429, 200]);

    h.fake.refuseChannel("C0GONE", "channel_not_found");
    await h.deps.notifier.post({ platform: "slack", id: "C0GONE" }, notice);
    await h.settle();
    expect(h.fake.calls("chat.postMessage").filter((c) => c.params.channel === "C0GONE")).toHaveLength(1);
    const dropped = h.logger.records.find(
      (r) => r.level === "error" && /notification dropped/.test(r.msg ?? ""),
    );
    expect(dropped?.obj).toMatchObject({ code: "channel_not_found", attempt: 1 });
  });

  it("a public answer Slack refuses on both paths is queued and posted when Slack is back", async () => {
    const h = await startSlackHarness();
    h.fake.fail("response_url", { kind: "429", retryAfter: 1 });
    h.fake.fail("chat.postMessage", { kind: "500" }, 2);
    await h.command("/help");
    await waitFor(() => h.fake.channelMessages(CHANNEL)[0], "the answer");
    expect(h.fake.calls("chat.postMessage").map((c) => c.status)).toEqual([500, 500, 200]);
    expect(messageText(h.fake.channelMessages(CHANNEL)[0])).toContain("What I can do");
    expect(h.fake.ephemerals(OPERATOR.id)).toEqual([]);
  });
});
