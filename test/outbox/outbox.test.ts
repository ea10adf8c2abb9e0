import { afterEach, describe, expect, it, vi } from "vitest";
import { renderReply as renderSlack } from "../../adapters/slack/render/blocks.js";
import { type Clock, sleep, systemClock } from "../../src/clock.js";
import type { ConversationRef, Platform } from "../../src/core/invocation.js";
import { createMemoryLogger } from "../../src/core/logger.js";
import { platformFacts } from "../../src/core/platforms.js";
import { type ChatAdapter, ChatSendError } from "../../src/core/ports.js";
import {
  buttons,
  fields,
  file,
  header,
  link,
  publicReply,
  type Reply,
  spansToText,
  text,
} from "../../src/core/reply.js";
import { decodeReply, encodeReply } from "../../src/core/reply-codec.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import {
  type Backoff,
  DEFAULT_BACKOFF,
  isPermanentError,
  type JobHandler,
  type JobQueue,
  retryDelayMs,
} from "../../src/jobs/queue.js";
import { mailboxKey } from "../../src/outbox/mailbox.js";
import { createNotifier, NOTIFY_QUEUE, NOTIFY_RETRY, startNotifyWorker } from "../../src/outbox/outbox.js";
import { createMemoryStore } from "../../src/store/memory-store.js";
import { createRedisStore } from "../../src/store/redis-store.js";
import type { Store } from "../../src/store/store.js";
import { PLATFORM_FACTS } from "../../src/wiring/platforms.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const SLACK_A: ConversationRef = { platform: "slack", id: "C0A" };
const SLACK_B: ConversationRef = { platform: "slack", id: "C0B", threadId: "1700000000.000100" };
const TG: ConversationRef = { platform: "telegram", id: "42" };
const FAST_RETRY = { attempts: 5, backoff: { delayMs: 50, maxDelayMs: 200 } };
const noGap = () => 0;
/** The pace the worker keeps by default: each platform's own (`PlatformFacts.sendGapMs`). */
const notifyGapMs = (c: ConversationRef) => platformFacts(PLATFORM_FACTS, c.platform).sendGapMs(c);
/** A waiting notice's job looks again this often (3 s in production). */
const WATCH_MS = 100;

interface Sent {
  conversation: ConversationRef;
  reply: Reply;
  at: number;
}

/** A chat adapter that records what it posted, and when on `now`; `behave` may throw to play an outage. */
function fakeAdapter(
  platform: Platform,
  behave: (call: number, c: ConversationRef) => Promise<void> = async () => {},
  now: Clock = systemClock,
) {
  const sent: Sent[] = [];
  const calls: ConversationRef[] = [];
  const adapter: ChatAdapter = {
    platform,
    async send(conversation, reply) {
      calls.push(conversation);
      await behave(calls.length, conversation);
      sent.push({ conversation, reply, at: now() });
      return { messageId: `m${sent.length}` };
    },
  };
  return { adapter, sent, calls };
}

const reply = (line: string): Reply => publicReply(line, [text(line)]);
/** A message with its own buttons (a case, an agent's quote): never folded into a digest. */
const withButtons = (line: string, action: string): Reply =>
  publicReply(line, [text(line), buttons({ label: "Take", token: action, style: "primary" })]);
const caseMessage = (i: number) => withButtons(`AML case C${i} opened`, `case-take:C${i}`);
const agentQuote = (i: number) => withButtons(`Agent billing asks for energy (R${i})`, `confirm:R${i}`);
const hashOf = (i: number) => i.toString(16).padStart(64, "a");
const delivery = (i: number): Reply =>
  publicReply(`Energy delivered: 65,000 energy to TXYZ…abcd (order 5M${i})`, [
    header("Energy delivered"),
    fields(
      ["Order", `5M${i}`],
      ["Transactions", link(hashOf(i), `https://tronscan.org/#/transaction/${hashOf(i)}`)],
    ),
  ]);
/** The listed lines of a digest (its text blocks after the title), one per notice. */
const lines = (r: Reply): string[] =>
  r.blocks
    .flatMap((b) => (b.type === "text" ? spansToText(b.spans).split("\n") : []))
    .filter((l) => l.startsWith("• "));

/** What each message showed, where and when: a notice alone as one line, a digest as its lines. */
const shown = (sent: readonly Sent[]) =>
  sent.map((s) => ({
    at: s.at,
    to: s.conversation.id,
    lines: lines(s.reply).length > 0 ? lines(s.reply) : [`• ${s.reply.summary}`],
  }));

async function settled(queues: JobQueue): Promise<boolean> {
  const c = await queues.counts(NOTIFY_QUEUE);
  return c.waiting + c.active + c.delayed === 0;
}
const outage = () => Object.assign(new Error("service unavailable"), { status: 503 });

describe("notifications on BullMQ", () => {
  let redis: TestRedis;
  const open: JobQueue[] = [];
  let store: Store;

  function instance(): JobQueue {
    const queues = createBullQueues({ connection: { url: redis.url }, prefix: redis.prefix });
    open.push(queues);
    return queues;
  }

  function setup() {
    redis = testRedis();
    store = createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
  }

  afterEach(async () => {
    await Promise.all(open.splice(0).map((q) => q.close()));
    await redis.cleanup();
  });

  it("delivers once after two failed sends, file bytes intact", async () => {
    setup();
    const queues = instance();
    const slack = fakeAdapter("slack", async (n) => {
      if (n <= 2) throw outage();
    });
    const logger = createMemoryLogger();
    await startNotifyWorker(queues, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger,
      gapMs: noGap,
    });
    const bytes = new Uint8Array([0, 1, 2, 127, 128, 254, 255]);
    const original = publicReply("statement ready", [
      text("Your statement"),
      file({ filename: "s.csv", contentType: "text/csv", bytes, title: "Statement" }),
    ]);

    await createNotifier(queues, { store, retry: FAST_RETRY, watchMs: WATCH_MS }).post(SLACK_B, original);

    await vi.waitFor(() => expect(slack.sent).toHaveLength(1));
    expect(slack.calls).toHaveLength(3);
    expect(slack.sent[0]!.conversation).toEqual(SLACK_B);
    expect(slack.sent[0]!.reply).toEqual(original);
    const block = slack.sent[0]!.reply.blocks[1];
    expect(block?.type === "file" && block.file.bytes).toBeInstanceOf(Uint8Array);
    expect(logger.records.map((r) => [r.level, r.obj.attempt, r.obj.conversation])).toEqual([
      ["warn", 1, "slack:C0B:1700000000.000100"],
      ["warn", 2, "slack:C0B:1700000000.000100"],
    ]);
    // Drained, nothing left that could send it again.
    await vi.waitFor(async () =>
      expect(await queues.counts(NOTIFY_QUEUE)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 }),
    );
    expect(slack.calls).toHaveLength(3);
  });

  it("drops at once, with an error log, a message the platform refuses for good", async () => {
    setup();
    const queues = instance();
    const slack = fakeAdapter("slack", async () => {
      throw Object.assign(new Error("channel_not_found"), { retryable: false, code: "channel_not_found" });
    });
    const logger = createMemoryLogger();
    await startNotifyWorker(queues, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger,
      gapMs: noGap,
    });
    await createNotifier(queues, { store, retry: FAST_RETRY, watchMs: WATCH_MS }).post(
      SLACK_A,
      reply("gone"),
    );

    await vi.waitFor(async () => expect((await queues.counts(NOTIFY_QUEUE)).failed).toBe(1));
    expect(slack.calls).toHaveLength(1);
    expect(logger.records).toHaveLength(1);
    expect(logger.records[0]).toMatchObject({
      level: "error",
      obj: { code: "channel_not_found", attempt: 1 },
    });
    expect(logger.records[0]!.msg).toMatch(/check that the bot can still post/);
  });

  it("delivers a queued message after a restart of every queue and worker", async () => {
    setup();
    const first = instance();
    const down = fakeAdapter("slack", async () => {
      throw outage();
    });
    await startNotifyWorker(first, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", down.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      gapMs: noGap,
    });
    const retry = { attempts: 10, backoff: { delayMs: 200, maxDelayMs: 200 } };
    await createNotifier(first, { store, retry, watchMs: WATCH_MS }).post(SLACK_A, reply("survivor"));
    await vi.waitFor(() => expect(down.calls).toHaveLength(1));
    await first.close();
    expect((await instance().counts(NOTIFY_QUEUE)).delayed).toBe(1);

    const second = instance();
    const up = fakeAdapter("slack");
    await startNotifyWorker(second, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", up.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      gapMs: noGap,
    });
    await vi.waitFor(() => expect(up.sent).toHaveLength(1));
    expect(up.sent[0]!.reply.summary).toBe("survivor");
    expect(down.calls).toHaveLength(1);
    await vi.waitFor(async () => expect(await settled(second)).toBe(true));
    expect(up.calls).toHaveLength(1);
  });

  it("a burst interrupted by a restart is posted once after it, none lost", async () => {
    setup();
    const first = instance();
    const slow = fakeAdapter("slack");
    const options = { store, watchMs: WATCH_MS, logger: createMemoryLogger(), gapMs: () => 1_500 };
    await startNotifyWorker(first, {
      ...options,
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slow.adapter]]),
    });
    const notifier = createNotifier(first, {
      store,
      retry: FAST_RETRY,
      watchMs: WATCH_MS,
    });
    await notifier.post(SLACK_A, delivery(0), "r0");
    await vi.waitFor(() => expect(slow.sent).toHaveLength(1));
    // The rest wait for the channel's next slot, 1.5 s later: the instance stops before it.
    for (let i = 1; i < 40; i += 1) await notifier.post(SLACK_A, delivery(i), `r${i}`);
    await first.close();
    expect(slow.sent).toHaveLength(1);

    const second = instance();
    const up = fakeAdapter("slack");
    await startNotifyWorker(second, {
      ...options,
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", up.adapter]]),
    });
    await vi.waitFor(async () => expect(await settled(second)).toBe(true), { timeout: 5_000 });
    const listed = [...slow.sent, ...up.sent].flatMap((s) =>
      s.reply.summary.startsWith("Energy delivered") ? [`• ${s.reply.summary}`] : lines(s.reply),
    );
    expect(up.sent.length).toBeGreaterThan(0);
    expect(listed).toEqual(Array.from({ length: 40 }, (_, i) => expect.stringContaining(`(order 5M${i})`)));
  });

  it("posts a repeated dedupKey once; what waited goes out as one digest", async () => {
    setup();
    const queues = instance();
    const notifier = createNotifier(queues, {
      store,
      retry: FAST_RETRY,
      watchMs: WATCH_MS,
    });
    await notifier.post(SLACK_A, reply("first"), "delivery-1");
    await notifier.post(SLACK_A, reply("replayed"), "delivery-1");
    await notifier.post(SLACK_A, reply("other"), "delivery-2");
    await notifier.post(SLACK_A, reply("no key"));
    await notifier.post(SLACK_A, reply("no key"));

    const slack = fakeAdapter("slack");
    await startNotifyWorker(queues, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      gapMs: () => 100,
    });
    await vi.waitFor(async () => expect(await settled(queues)).toBe(true));
    // The four waited for the worker: one message lists them, in order.
    expect(slack.sent).toHaveLength(1);
    expect(slack.sent[0]!.reply.summary).toBe("4 notifications");
    expect(lines(slack.sent[0]!.reply)).toEqual(["• first", "• other", "• no key", "• no key"]);
    expect(await store.get("notify:dedup:delivery-1")).not.toBeNull();
  });

  it("splits a big burst into digests that each fit one Slack message, every notice exactly once", async () => {
    setup();
    const queues = instance();
    const slack = fakeAdapter("slack");
    const notifier = createNotifier(queues, {
      store,
      retry: FAST_RETRY,
      watchMs: WATCH_MS,
    });
    const count = 400;
    for (let i = 0; i < count; i += 1) await notifier.post(SLACK_A, delivery(i));
    await startNotifyWorker(queues, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      gapMs: () => 100,
    });
    await vi.waitFor(async () => expect(await settled(queues)).toBe(true), { timeout: 10_000 });
    expect(slack.sent.length).toBeGreaterThan(1);
    const listed = slack.sent.flatMap((s) => lines(s.reply));
    expect(listed).toEqual(Array.from({ length: count }, (_, i) => expect.stringContaining(`order 5M${i})`)));
    for (const { reply } of slack.sent) {
      expect(reply.summary).toMatch(/^\d+ deliveries confirmed$/);
      const rendered = renderSlack(reply);
      expect(rendered.blocks.length).toBeLessThanOrEqual(50);
      expect(JSON.stringify(rendered.blocks).length).toBeLessThan(40_000);
      for (const block of rendered.blocks)
        if (block.type === "section" && "text" in block)
          expect(block.text.text.length).toBeLessThanOrEqual(3000);
    }
    expect(listed[399]).toContain(hashOf(399));
    const hrefs = slack.sent.flatMap((s) =>
      s.reply.blocks.flatMap((b) =>
        b.type === "text" ? b.spans.flatMap((x) => (x.href ? [x.href] : [])) : [],
      ),
    );
    expect(hrefs).toHaveLength(count);
    expect(hrefs[7]).toBe(`https://tronscan.org/#/transaction/${hashOf(7)}`);
  });

  it("two instances sharing Redis post a burst exactly once, in order", async () => {
    setup();
    const [one, two] = [instance(), instance()];
    const slack = fakeAdapter("slack", async () => sleep(5));
    for (const queues of [one, two])
      await startNotifyWorker(queues, {
        platforms: PLATFORM_FACTS,
        adapters: new Map([["slack", slack.adapter]]),
        store,
        watchMs: WATCH_MS,
        logger: createMemoryLogger(),
        gapMs: () => 50,
      });
    const notifiers = [one, two].map((q) =>
      createNotifier(q, { store, retry: FAST_RETRY, watchMs: WATCH_MS }),
    );
    for (let i = 0; i < 60; i += 1) await notifiers[i % 2]!.post(SLACK_A, reply(`n${i}`), `k${i}`);
    await vi.waitFor(async () => expect((await settled(one)) && (await settled(two))).toBe(true), {
      timeout: 10_000,
    });
    // A message is a notice alone or a digest of several; together they list each once, in order.
    const all = slack.sent.flatMap((s) =>
      /^\d+ notifications$/.test(s.reply.summary) ? lines(s.reply) : [`• ${s.reply.summary}`],
    );
    expect(all).toEqual(Array.from({ length: 60 }, (_, i) => `• n${i}`));
  });
});

/**
 * A job queue the test drives by hand on a fake clock: nothing runs until `runUntil`. Up to the
 * worker's concurrency jobs run at once, and `sleep` (the worker's wait in process, or a slow
 * send) is over when `runUntil` brings the clock there. A parked or retried job comes back
 * `lateMs` after its delay, as Redis's timer (a 100 ms tick while idle) wakes one; a failed job is
 * retried after the queues' own `retryDelayMs` (an error's retry-after included). Send slots are
 * reserved on the clock.
 */
function drivenQueue(clock: { now: number }, lateMs: number) {
  let worker: { handler: JobHandler<unknown>; concurrency: number } | undefined;
  /** Waiting or delayed; a job that runs is in `active` instead. */
  const jobs: DrivenJob[] = [];
  const active = new Set<string>();
  const sleepers: { at: number; wake: () => void }[] = [];
  const slots = new Map<string, number>();
  let failed = 0;
  let ids = 0;
  const queue: JobQueue = {
    async add(_queue, name, data, options = {}) {
      const id = options.jobId ?? `job-${ids++}`;
      if (active.has(id) || jobs.some((j) => j.id === id)) return;
      jobs.push({
        id,
        name,
        data: JSON.parse(JSON.stringify(data)),
        dueAt: clock.now + (options.delayMs ?? 0),
        attemptsMade: 0,
        attempts: options.attempts ?? 1,
        backoff: options.backoff ?? DEFAULT_BACKOFF,
      });
    },
    async process<T>(_queue: string, handler: JobHandler<T>, { concurrency }: { concurrency: number }) {
      worker = { handler: handler as JobHandler<unknown>, concurrency };
      return { close: async () => {} };
    },
    async counts() {
      const waiting = jobs.filter((j) => j.dueAt <= clock.now).length;
      return { waiting, active: active.size, delayed: jobs.length - waiting, failed };
    },
    remove: async () => {},
    async pace(key, gapMs, notBeforeMs = 0) {
      const slot = Math.max(clock.now + notBeforeMs, slots.get(key) ?? 0);
      slots.set(key, slot + Math.max(0, gapMs));
      return slot - clock.now;
    },
    repeat: async () => {},
    close: async () => {},
  };

  function start(run: JobHandler<unknown>, job: DrivenJob): void {
    active.add(job.id);
    const { id, name, data, attemptsMade } = job;
    void run({ id, name, data, attemptsMade, maxAttempts: job.attempts })
      .then(
        (outcome) => {
          if (outcome === "done") return;
          const next = JSON.parse(JSON.stringify(outcome.data ?? data));
          jobs.push({ ...job, data: next, dueAt: clock.now + outcome.laterMs + lateMs });
        },
        (error: unknown) => {
          const made = attemptsMade + 1;
          if (isPermanentError(error) || made >= job.attempts) failed += 1;
          else
            jobs.push({
              ...job,
              attemptsMade: made,
              dueAt: clock.now + retryDelayMs(job.backoff, made, error) + lateMs,
            });
        },
      )
      .finally(() => active.delete(id));
  }

  /** Lets the running jobs go on until each is done or asleep until a later time. */
  async function settle(): Promise<void> {
    for (let turns = 0; active.size > sleepers.length; turns += 1) {
      if (turns > 1_000) throw new Error("a job waits on something other than the driven clock");
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Runs what comes due by `until`, earliest first, moving the clock to each wake-up; then sets it there. */
  async function runUntil(until: number): Promise<void> {
    while (worker !== undefined) {
      await settle();
      const room = worker.concurrency - active.size;
      const due = jobs.filter((j) => j.dueAt <= clock.now).sort((a, b) => a.dueAt - b.dueAt);
      if (room > 0 && due.length > 0) {
        for (const job of due.slice(0, room)) {
          jobs.splice(jobs.indexOf(job), 1);
          start(worker.handler, job);
        }
        continue;
      }
      const next = Math.min(...sleepers.map((s) => s.at), ...(room > 0 ? jobs.map((j) => j.dueAt) : []));
      if (next > until) break;
      clock.now = Math.max(clock.now, next);
      for (const sleeper of sleepers.filter((s) => s.at <= clock.now)) {
        sleepers.splice(sleepers.indexOf(sleeper), 1);
        sleeper.wake();
      }
    }
    clock.now = Math.max(clock.now, until);
  }

  /** A wait on the fake clock: over when `runUntil` gets there. */
  const sleep = (ms: number) =>
    new Promise<void>((wake) => sleepers.push({ at: clock.now + Math.max(0, ms), wake }));
  /** A failover lost the queued jobs `lost` picks (their store writes stayed). */
  const drop = (lost: (job: DrivenJob) => boolean) => {
    for (const job of jobs.filter(lost)) jobs.splice(jobs.indexOf(job), 1);
  };
  return { queue, runUntil, sleep, drop };
}

interface DrivenJob {
  id: string;
  name: string;
  data: unknown;
  dueAt: number;
  attemptsMade: number;
  attempts: number;
  backoff: Backoff;
}

describe("notifications on a driven queue and clock", () => {
  it("sends each batch at its slot, with what came while it waited, not when the parked job is woken", async () => {
    const clock = { now: 0 };
    const { queue, runUntil, sleep: onClock } = drivenQueue(clock, 100);
    const store = createMemoryStore({ now: () => clock.now });
    const sent: { at: number; lines: string[] }[] = [];
    const slack: ChatAdapter = {
      platform: "slack",
      async send(_conversation, r) {
        sent.push({ at: clock.now, lines: lines(r).length > 0 ? lines(r) : [`• ${r.summary}`] });
        return { messageId: `m${sent.length}` };
      },
    };
    const notifier = createNotifier(queue, { store, retry: FAST_RETRY, watchMs: 60_000 });
    const waited: number[] = [];
    await startNotifyWorker(queue, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack]]),
      store,
      logger: createMemoryLogger(),
      watchMs: 60_000,
      // One slot every 700 ms: far enough that a lead parks in the queue between slots.
      gapMs: () => 700,
      now: () => clock.now,
      async sleep(ms) {
        waited.push(ms);
        // Posted while the lead waits in process for its slot: it still goes out in that slot.
        if (waited.length === 1) await notifier.post(SLACK_A, reply("s4"));
        await onClock(ms);
      },
    });

    await notifier.post(SLACK_A, reply("s1"));
    await runUntil(0);
    expect(sent).toEqual([{ at: 0, lines: ["• s1"] }]);

    // The next slot is at 700: the lead parks, and what comes meanwhile waits with it.
    await notifier.post(SLACK_A, reply("s2"));
    await runUntil(10);
    await notifier.post(SLACK_A, reply("s3"));
    await runUntil(500);
    expect(sent).toHaveLength(1);
    // Woken 100 ms late (at 550), it waits the rest in process and sends at the slot.
    await runUntil(700);
    expect(sent).toEqual([
      { at: 0, lines: ["• s1"] },
      { at: 700, lines: ["• s2", "• s3", "• s4"] },
    ]);

    // A later notice gets the slot after, not the one just used.
    await notifier.post(SLACK_A, reply("s5"));
    await runUntil(1_000);
    expect(sent).toHaveLength(2);
    await runUntil(2_000);
    expect(sent.slice(2)).toEqual([{ at: 1_400, lines: ["• s5"] }]);
    // Parked in the queue until just before each slot; only the rest was waited in process.
    expect(waited.every((ms) => ms > 0 && ms < 700)).toBe(true);
  });
  it("paces one conversation gapMs apart and coalesces what waited, without pacing the others", async () => {
    const clock = { now: 0 };
    const driven = drivenQueue(clock, 100);
    const store = createMemoryStore({ now: () => clock.now });
    const slack = fakeAdapter("slack", undefined, () => clock.now);
    await startNotifyWorker(driven.queue, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      concurrency: 4,
      gapMs: (c) => (c.platform === "slack" ? 250 : 0),
      now: () => clock.now,
      sleep: driven.sleep,
    });
    const notifier = createNotifier(driven.queue, { store, retry: FAST_RETRY, watchMs: WATCH_MS });
    await notifier.post(SLACK_A, reply("a1"));
    await driven.runUntil(10);
    for (const line of ["a2", "a3", "a4"]) await notifier.post(SLACK_A, reply(line));
    // A thread of another channel: its own pace.
    await notifier.post(SLACK_B, reply("b1"));

    // The channel's next slot is 250 ms after its first send: nothing of it goes out before.
    await driven.runUntil(249);
    expect(shown(slack.sent)).toEqual([
      { at: 0, to: "C0A", lines: ["• a1"] },
      { at: 10, to: "C0B", lines: ["• b1"] },
    ]);
    await driven.runUntil(250);
    expect(shown(slack.sent).slice(2)).toEqual([{ at: 250, to: "C0A", lines: ["• a2", "• a3", "• a4"] }]);
    await driven.runUntil(5_000);
    expect(await settled(driven.queue)).toBe(true);
    expect(slack.sent).toHaveLength(3);
  });

  it("a 429 with Retry-After pauses the whole channel: no other send of it until the time is up", async () => {
    const clock = { now: 0 };
    const driven = drivenQueue(clock, 100);
    const store = createMemoryStore({ now: () => clock.now });
    const thread: ConversationRef = { ...SLACK_A, threadId: "1700000000.000200" };
    const limited = new ChatSendError("chat.postMessage: ratelimited", {
      code: "ratelimited",
      retryable: true,
      retryAfterMs: 600,
    });
    const slack = fakeAdapter(
      "slack",
      async (n) => {
        if (n === 1) throw limited;
      },
      () => clock.now,
    );
    await startNotifyWorker(driven.queue, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      concurrency: 4,
      gapMs: () => 50,
      now: () => clock.now,
      sleep: driven.sleep,
    });
    const notifier = createNotifier(driven.queue, { store, retry: FAST_RETRY, watchMs: WATCH_MS });
    await notifier.post(SLACK_A, reply("one"));
    // Refused at 0: wait 600 ms.
    await driven.runUntil(10);
    expect(slack.calls).toHaveLength(1);
    await notifier.post(SLACK_A, reply("two"));
    await notifier.post(thread, reply("in a thread of the channel"));

    // During the pause nothing is tried, neither the channel's other notices nor its threads.
    await driven.runUntil(599);
    expect(slack.calls).toHaveLength(1);

    await driven.runUntil(5_000);
    expect(slack.calls).toHaveLength(3);
    expect(slack.sent.every((s) => s.at >= 600)).toBe(true);
    const channel = slack.sent.find((s) => s.conversation.threadId === undefined)!;
    expect(lines(channel.reply)).toEqual(["• one", "• two"]);
    expect(slack.sent.find((s) => s.conversation.threadId === thread.threadId)?.reply.summary).toBe(
      "in a thread of the channel",
    );
  });

  it("a channel answering 429 at 1 message a second still takes 30 case messages in about 30 s", async () => {
    const clock = { now: 0 };
    const driven = drivenQueue(clock, 100);
    const store = createMemoryStore({ now: () => clock.now });
    // Slack's limit, measured where the posts arrive: 1 a second per channel, else 429 Retry-After 1.
    // A post leaves at its slot and arrives after the network's latency: 40 ms on every 7th call.
    let lastArrival = Number.NEGATIVE_INFINITY;
    const refused: number[] = [];
    const slack = fakeAdapter(
      "slack",
      async (n) => {
        if (n % 7 === 0) await driven.sleep(40);
        if (clock.now - lastArrival < 1_000) {
          refused.push(clock.now);
          throw new ChatSendError("chat.postMessage: ratelimited", {
            code: "ratelimited",
            retryable: true,
            retryAfterMs: 1_000,
          });
        }
        lastArrival = clock.now;
      },
      () => clock.now,
    );
    await startNotifyWorker(driven.queue, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      now: () => clock.now,
      sleep: driven.sleep,
    });
    const notifier = createNotifier(driven.queue, { store, watchMs: WATCH_MS });
    for (let i = 1; i <= 30; i += 1) await notifier.post(SLACK_A, caseMessage(i));

    await driven.runUntil(36_000);
    expect(refused.length).toBeGreaterThan(0);
    expect(slack.sent.map((s) => s.reply.summary)).toEqual(
      Array.from({ length: 30 }, (_, i) => `AML case C${i + 1} opened`),
    );
    // Each refusal cost the one slot Slack asked for, never a growing backoff.
    const gaps = slack.sent.slice(1).map((s, i) => s.at - slack.sent[i]!.at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(2_100);
  });

  it("an agents' request waits behind the channel's delivery notices and answers, however many queued first", async () => {
    const clock = { now: 0 };
    const driven = drivenQueue(clock, 100);
    const store = createMemoryStore({ now: () => clock.now });
    const slack = fakeAdapter("slack", undefined, () => clock.now);
    await startNotifyWorker(driven.queue, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      now: () => clock.now,
      sleep: driven.sleep,
    });
    const notifier = createNotifier(driven.queue, { store, watchMs: WATCH_MS });
    for (let i = 1; i <= 10; i += 1)
      await notifier.post(SLACK_A, agentQuote(i), `agent-request:R${i}`, { priority: "low" });
    await driven.runUntil(10);
    await notifier.post(SLACK_A, delivery(1));
    await notifier.post(SLACK_A, { ...reply("balance: 120 TRX"), answers: {} });

    await driven.runUntil(2_500);
    expect(shown(slack.sent)).toEqual([
      { at: 0, to: "C0A", lines: ["• Agent billing asks for energy (R1)"] },
      { at: 1_000, to: "C0A", lines: ["• Energy delivered: 65,000 energy to TXYZ…abcd (order 5M1)"] },
      { at: 2_000, to: "C0A", lines: ["• balance: 120 TRX"] },
    ]);
    // A person's answer waits only behind people's and alerts' notices, never behind the agents'.
    expect(await notifier.pending?.(SLACK_A)).toBe(false);
    await driven.runUntil(20_000);
    expect(slack.sent.slice(3).map((s) => s.reply.summary)).toEqual(
      Array.from({ length: 9 }, (_, i) => `Agent billing asks for energy (R${i + 2})`),
    );
  });

  it("keeps delivering to other conversations while one keeps failing", async () => {
    const clock = { now: 0 };
    const driven = drivenQueue(clock, 100);
    const store = createMemoryStore({ now: () => clock.now });
    const tries: string[] = [];
    // Slack is down for the whole test (each try takes 50 ms); Telegram works.
    const slack = fakeAdapter("slack", async () => {
      tries.push("slack");
      await driven.sleep(50);
      throw outage();
    });
    const telegram = fakeAdapter("telegram", async () => {
      tries.push("telegram");
    });
    await startNotifyWorker(driven.queue, {
      platforms: PLATFORM_FACTS,
      adapters: new Map<Platform, ChatAdapter>([
        ["slack", slack.adapter],
        ["telegram", telegram.adapter],
      ]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      // One job at a time: a failing conversation must not keep it.
      concurrency: 1,
      gapMs: noGap,
      now: () => clock.now,
      sleep: driven.sleep,
    });
    const notifier = createNotifier(driven.queue, {
      store,
      retry: { attempts: 100, backoff: { delayMs: 100, maxDelayMs: 100 } },
    });

    for (let i = 0; i < 3; i += 1) await notifier.post(SLACK_A, reply(`slack ${i}`));
    await driven.runUntil(1_000);
    expect(tries.length).toBeGreaterThanOrEqual(3);
    const before = tries.length;
    await notifier.post(TG, reply("telegram"));
    await driven.runUntil(2_000);

    // The next send is Telegram's, and Slack is still being tried after it.
    const after = tries.slice(before);
    expect(after[0]).toBe("telegram");
    expect(after.slice(1).filter((t) => t === "slack").length).toBeGreaterThanOrEqual(2);
    expect(telegram.sent.map((s) => s.reply.summary)).toEqual(["telegram"]);
    expect(slack.sent).toHaveLength(0);
    // The failing conversation's sender keeps retrying: its notices stay queued.
    const counts = await driven.queue.counts(NOTIFY_QUEUE);
    expect(counts.waiting + counts.delayed + counts.active).toBeGreaterThan(0);
    expect(counts.failed).toBe(0);
  });
});

describe("notifications after a failover lost part of what a post wrote", () => {
  /** A driven queue, a memory store and a worker on one fake clock; Slack paced 1 s per channel. */
  async function world(
    o: { durable?: () => () => Promise<void>; workerStore?: (store: Store) => Store } = {},
  ) {
    const clock = { now: 0 };
    const driven = drivenQueue(clock, 100);
    const store = createMemoryStore({ now: () => clock.now });
    const slack = fakeAdapter("slack", undefined, () => clock.now);
    await startNotifyWorker(driven.queue, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([["slack", slack.adapter]]),
      store: o.workerStore?.(store) ?? store,
      watchMs: WATCH_MS,
      retry: FAST_RETRY,
      logger: createMemoryLogger(),
      now: () => clock.now,
      sleep: driven.sleep,
    });
    const notifier = createNotifier(driven.queue, { store, retry: FAST_RETRY, watchMs: WATCH_MS, ...o });
    const listed = () => shown(slack.sent).flatMap((s) => s.lines);
    return { driven, store, notifier, listed };
  }

  it("a repeated post queues the sender its first post lost: the notice goes out once, at once", async () => {
    const { driven, notifier, listed } = await world();
    await notifier.post(SLACK_A, reply("delivered"), "k1");
    driven.drop((job) => job.name === "notify");
    // The service sends the webhook again; the router posts the same notice again.
    await notifier.post(SLACK_A, reply("delivered"), "k1");
    await driven.runUntil(0);
    expect(listed()).toEqual(["• delivered"]);
    await driven.runUntil(120_000);
    expect(listed()).toEqual(["• delivered"]);
  });

  it("a watch job queues a lead's lost job again instead of waiting out its lead mark", async () => {
    const { driven, notifier, listed } = await world();
    await notifier.post(SLACK_A, reply("first"), "k1");
    driven.drop((job) => job.name === "notify");
    // The lead mark names the lost job: this notice queues a watch job instead of a sender.
    await notifier.post(SLACK_A, reply("second"), "k2");
    // The lead mark lives 60 s; the watch job looks after WATCH_MS.
    await driven.runUntil(5 * WATCH_MS);
    expect(listed()).toEqual(["• first", "• second"]);
    await driven.runUntil(120_000);
    expect(listed()).toEqual(["• first", "• second"]);
  });

  it("numbers a notice above what was sent when the counter lost its tail", async () => {
    const { driven, store, notifier, listed } = await world();
    for (const line of ["n1", "n2", "n3"]) await notifier.post(SLACK_A, reply(line), line);
    await driven.runUntil(5_000);
    expect(listed()).toEqual(["• n1", "• n2", "• n3"]);
    // The new master's counter is behind the watermark the sender wrote after the failover.
    await store.set(`notify:box:${mailboxKey(SLACK_A)}:seq`, "1");
    await notifier.post(SLACK_A, reply("n4"), "n4");
    await driven.runUntil(10_000);
    expect(listed()).toEqual(["• n1", "• n2", "• n3", "• n4"]);
  });

  it("a notice stored at a number the sender is passing (the counter went back in a failover) is sent, not skipped", async () => {
    const seqKey = `notify:box:${mailboxKey(SLACK_A)}:seq`;
    let whileGathering: (() => Promise<void>) | undefined;
    const { driven, store, notifier, listed } = await world({
      // The sender's read of the mailbox, with something happening right after it.
      workerStore: (inner) => ({
        ...inner,
        async getMany(keys) {
          const values = await inner.getMany(keys);
          const during = whileGathering;
          whileGathering = undefined;
          await during?.();
          return values;
        },
      }),
    });
    // Numbers 1–4 were lost with the old master: holes the sender will pass.
    await store.set(seqKey, "4");
    whileGathering = async () => {
      // The new master's counter is behind; a retried post takes number 1 meanwhile.
      await store.set(seqKey, "0");
      await notifier.post(SLACK_A, reply("late"), "late");
    };
    await notifier.post(SLACK_A, reply("n5"), "n5");
    await driven.runUntil(120_000);
    expect(listed().sort()).toEqual(["• late", "• n5"]);
  });

  it("a post whose writes no replica confirmed fails; its retry sends the notice once", async () => {
    let confirms = 0;
    const { driven, notifier, listed } = await world({
      durable: () => async () => {
        confirms += 1;
        if (confirms === 1) throw new Error("the master changed while the job was stored: not confirmed");
      },
    });
    await expect(notifier.post(SLACK_A, reply("delivered"), "k1")).rejects.toThrow(/master changed/);
    await notifier.post(SLACK_A, reply("delivered"), "k1");
    expect(confirms).toBe(2);
    await driven.runUntil(120_000);
    expect(listed()).toEqual(["• delivered"]);
  });
});

describe("notifications in demo mode (memory queue and store)", () => {
  let queues: JobQueue | undefined;
  afterEach(() => queues?.close());

  /** A memory queue and store, a worker pacing `fake`'s platform 100 ms apart, and a notifier. */
  async function paced(fake: ReturnType<typeof fakeAdapter>) {
    queues = createMemoryQueues();
    const store = createMemoryStore();
    await startNotifyWorker(queues, {
      platforms: PLATFORM_FACTS,
      adapters: new Map([[fake.adapter.platform, fake.adapter]]),
      store,
      watchMs: WATCH_MS,
      logger: createMemoryLogger(),
      gapMs: () => 100,
    });
    return createNotifier(queues, { store, retry: FAST_RETRY, watchMs: WATCH_MS });
  }

  it("retries, deduplicates and delivers", async () => {
    queues = createMemoryQueues();
    const store = createMemoryStore();
    const console = fakeAdapter("console", async (n) => {
      if (n === 1) throw outage();
    });
    await startNotifyWorker(queues, {
      platforms: PLATFORM_FACTS,
      store,
      adapters: new Map([["console", console.adapter]]),
      logger: createMemoryLogger(),
    });
    const notifier = createNotifier(queues, { store, retry: FAST_RETRY, watchMs: WATCH_MS });
    const session: ConversationRef = { platform: "console", id: "tty" };
    await notifier.post(session, reply("hello"), "k");
    await notifier.post(session, reply("hello again"), "k");
    await vi.waitFor(() => expect(console.sent).toHaveLength(1));
    expect(console.calls).toHaveLength(2);
    await vi.waitFor(async () => expect(await settled(queues!)).toBe(true));
    expect(console.sent.map((s) => s.reply.summary)).toEqual(["hello"]);
  });

  it("coalesces a burst the same way: every notice once, in order", async () => {
    const slack = fakeAdapter("slack");
    const notifier = await paced(slack);
    for (let i = 0; i < 30; i += 1) await notifier.post(SLACK_A, delivery(i), `d${i}`);
    await vi.waitFor(async () => expect(await settled(queues!)).toBe(true), { timeout: 5_000 });
    const listed = slack.sent.flatMap((s) =>
      s.reply.summary.startsWith("Energy delivered") ? [`• ${s.reply.summary}`] : lines(s.reply),
    );
    expect(listed).toEqual(Array.from({ length: 30 }, (_, i) => expect.stringContaining(`(order 5M${i})`)));
    expect(slack.sent.length).toBeLessThan(5);
    expect(slack.sent.at(-1)?.reply.summary).toMatch(/^\d+ deliveries confirmed$/);
  });

  it("a notice that replaces a message is sent alone through replace(), between digests", async () => {
    const slack = fakeAdapter("slack");
    const replaced: { messageId: string; reply: Reply }[] = [];
    slack.adapter.replace = async (_conversation, messageId, r) => {
      replaced.push({ messageId, reply: r });
      return { messageId };
    };
    const notifier = await paced(slack);
    for (let i = 0; i < 3; i += 1) await notifier.post(SLACK_A, delivery(i), `d${i}`);
    await notifier.post(SLACK_A, { ...reply("Energy delegated"), replaces: "1700000000.000200" }, "o");
    for (let i = 3; i < 6; i += 1) await notifier.post(SLACK_A, delivery(i), `d${i}`);
    await vi.waitFor(async () => expect(await settled(queues!)).toBe(true), { timeout: 5_000 });
    expect(replaced.map((r) => [r.messageId, r.reply.summary])).toEqual([
      ["1700000000.000200", "Energy delegated"],
    ]);
    // The replacing reply reaches the adapter without the field (it is the notifier's instruction).
    expect(replaced[0]?.reply.replaces).toBeUndefined();
    expect(slack.sent.map((s) => s.reply.summary).join("\n")).not.toContain("Energy delegated");
  });

  it("a notice that answers a Telegram message goes out as that answer, never in a digest of the chat's others", async () => {
    const telegram = fakeAdapter("telegram");
    const notifier = await paced(telegram);
    const answering: ConversationRef = { ...TG, replyTo: "7" };
    await notifier.post(TG, reply("chat 1"));
    await notifier.post(answering, reply("answer"));
    await notifier.post(TG, reply("chat 2"));
    await vi.waitFor(async () => expect(await settled(queues!)).toBe(true), { timeout: 5_000 });
    const answer = telegram.sent.filter((s) => s.conversation.replyTo === "7");
    expect(answer.map((s) => s.reply.summary)).toEqual(["answer"]);
    const chat = telegram.sent.filter((s) => s.conversation.replyTo === undefined);
    expect(
      chat.flatMap((s) => (lines(s.reply).length > 0 ? lines(s.reply) : [`• ${s.reply.summary}`])),
    ).toEqual(["• chat 1", "• chat 2"]);
  });

  it("refuses, without retrying, a conversation whose platform has no adapter", async () => {
    queues = createMemoryQueues();
    const logger = createMemoryLogger();
    const store = createMemoryStore();
    await startNotifyWorker(queues, { adapters: new Map(), platforms: PLATFORM_FACTS, store, logger });
    await createNotifier(queues, { store, retry: FAST_RETRY, watchMs: WATCH_MS }).post(TG, reply("x"));
    await vi.waitFor(async () => expect((await queues!.counts(NOTIFY_QUEUE)).failed).toBe(1));
    expect(logger.records.map((r) => [r.level, r.obj.err])).toEqual([
      ["error", "no telegram adapter is configured"],
    ]);
  });
});

describe("notification settings", () => {
  it("round-trips a reply through JSON with its file bytes", () => {
    const bytes = new Uint8Array(300).map((_, i) => i % 256);
    const original = publicReply("f", [file({ filename: "r.pdf", contentType: "application/pdf", bytes })]);
    const travelled = decodeReply(JSON.parse(JSON.stringify(encodeReply(original))));
    expect(travelled).toEqual(original);
  });

  it("retries for about a day and paces each platform by its limits", () => {
    const { attempts, backoff } = NOTIFY_RETRY;
    let total = 0;
    for (let n = 1; n < attempts; n += 1)
      total += Math.min(backoff.maxDelayMs, backoff.delayMs * 2 ** (n - 1));
    expect(total).toBeGreaterThan(23 * 3_600_000);
    expect(total).toBeLessThanOrEqual(24 * 3_600_000);
    expect(notifyGapMs({ platform: "slack", id: "C1" })).toBe(1_000);
    expect(notifyGapMs({ platform: "telegram", id: "42" })).toBe(1_000);
    expect(notifyGapMs({ platform: "telegram", id: "-100123" })).toBe(3_000);
    expect(notifyGapMs({ platform: "console", id: "tty" })).toBe(0);
  });
});
