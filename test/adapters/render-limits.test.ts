import { describe, expect, it } from "vitest";
import { renderReply as renderConsole } from "../../adapters/console/render.js";
import { renderReply as renderSlack } from "../../adapters/slack/render/blocks.js";
import { renderReply as renderTelegram } from "../../adapters/telegram/render/html.js";
import { captionOf } from "../../adapters/telegram/send.js";
import { MAX_REPLY_PARTS, splitReply, TELEGRAM_TEXT_LIMIT } from "../../adapters/telegram/split.js";
import { renderPrices, serviceNames } from "../../src/core/account/prices-render.js";
import { renderBatch, renderVerdict } from "../../src/core/compliance/compliance-render.js";
import {
  renderBandwidthDelegated,
  renderDelegationConfirmed,
} from "../../src/core/energy/energy-notices-render.js";
import {
  type Block,
  bold,
  buttons,
  code,
  context,
  fields,
  header,
  italic,
  link,
  plain,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../../src/core/reply.js";
import { renderNoticeDigest } from "../../src/core/service-events/notice-digest-render.js";
import { createAccountBook, DEFAULT_API_KEY } from "../../src/sandbox/accounts.js";
import { priceList } from "../../src/sandbox/families/account/pricing.js";
import { priceListSchema } from "../../src/service/pricing.js";
import { PLATFORM_FACTS } from "../../src/wiring/platforms.js";
import { blocksProblem } from "../fakes/slack-blocks.js";
import { parseTelegramHtml } from "../fakes/telegram-html.js";

/**
 * Property-style: every reply rendered from hostile input (long lists, hundreds of hashes, long
 * labels, control, bidi and zero-width characters, markup) stays within the platforms' documented
 * limits. Slack (Block Kit reference): 50 blocks a message; a section's text 3000 characters; 10
 * fields of 2000; a header 150; a context block 10 elements (we hold each to 2000); 25 elements
 * an actions block; a button's text 75 and value 2000. Telegram (Bot API): 4096 characters a
 * message after entities are parsed, 1024 a caption, 64 bytes of callback_data; and one reply
 * never becomes more than MAX_REPLY_PARTS messages. No bidi override or isolate reaches any
 * platform. Inputs come from a seeded generator, so a failure can be replayed.
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;
const CONTROL = /[^\P{Cc}\n\t]/u;

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY = [
  "\u202E",
  "\u2066",
  "\u2069",
  "\u202A",
  "\u200B",
  "\u200D",
  "\uFEFF",
  "\u0000",
  "\u001b[31m",
  "\u0007",
  "\r\n",
  "\n",
  "\t",
  "<b>",
  "</a>",
  "&amp;",
  "&",
  "<!channel>",
  "@here",
  "*bold*",
  "_i_",
  "`x`",
  "~s~",
  "<https://evil.test|click>",
  "🚀",
  "👩‍👩‍👧",
  "é",
  "\ud800",
  " ",
  "abc",
  "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
];

function hostileString(rand: () => number, maxLength: number): string {
  const target = Math.floor(rand() ** 3 * maxLength);
  let out = "";
  while (out.length < target) {
    out +=
      rand() < 0.5
        ? (NASTY[Math.floor(rand() * NASTY.length)] ?? "")
        : "x".repeat(1 + Math.floor(rand() * 200));
  }
  return out;
}

function hostileSpan(rand: () => number): Span {
  const t = hostileString(rand, 3500);
  const pick = rand();
  if (pick < 0.15) return bold(t);
  if (pick < 0.3) return italic(t);
  if (pick < 0.45) return code(t);
  if (pick < 0.55) return link(t, rand() < 0.5 ? `https://tronscan.org/#/${t}` : `javascript:${t}`);
  return plain(t);
}

const spans = (rand: () => number, max: number): Span[] =>
  Array.from({ length: 1 + Math.floor(rand() * max) }, () => hostileSpan(rand));

function hostileReply(rand: () => number): Reply {
  const blocks: Block[] = [];
  const count = 1 + Math.floor(rand() * 60);
  let buttonCount = 0;
  for (let i = 0; i < count; i++) {
    const kind = Math.floor(rand() * 6);
    if (kind === 0) blocks.push(header(hostileString(rand, 500)));
    else if (kind === 1) blocks.push(text(...spans(rand, 4)));
    else if (kind === 2)
      blocks.push(
        fields(
          ...Array.from({ length: 1 + Math.floor(rand() * 30) }, (): [string, Span[]] => [
            hostileString(rand, 300),
            spans(rand, 4),
          ]),
        ),
      );
    else if (kind === 3) blocks.push(context(...spans(rand, 6)));
    else if (kind === 4 && buttonCount < 40) {
      const n = 1 + Math.floor(rand() * 10);
      buttonCount += n;
      blocks.push(
        buttons(
          ...Array.from({ length: n }, (_, j) => ({
            label: hostileString(rand, 200),
            token: `tok${i}x${j}`.padEnd(22, "A"),
          })),
        ),
      );
    } else blocks.push({ type: "divider" });
  }
  return publicReply(hostileString(rand, 5000), blocks);
}

/** Every text a Slack message shows, for the character checks. */
function slackTexts(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(slackTexts);
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) =>
      k === "value" || k === "action_id" ? [] : slackTexts(v),
    );
  return [];
}

function expectWithinSlack(reply: Reply): void {
  const message = renderSlack(reply);
  expect(blocksProblem(message.blocks)).toBeUndefined();
  expect(message.blocks.length).toBeLessThanOrEqual(50);
  for (const block of message.blocks) {
    if (block.type === "context") {
      expect(block.elements.length).toBeLessThanOrEqual(10);
      for (const element of block.elements) expect(element.text.length).toBeLessThanOrEqual(2000);
    }
    if (block.type === "section" && "fields" in block) {
      expect(block.fields.length).toBeLessThanOrEqual(10);
      for (const field of block.fields) expect(field.text.length).toBeLessThanOrEqual(2000);
    }
    if (block.type === "section" && "text" in block) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    if (block.type === "header") expect(block.text.text.length).toBeLessThanOrEqual(150);
    if (block.type === "actions") {
      expect(block.elements.length).toBeLessThanOrEqual(25);
      for (const b of block.elements) expect(b.text.text.length).toBeLessThanOrEqual(75);
    }
  }
  expect(message.text.length).toBeLessThanOrEqual(3000);
  for (const shown of slackTexts([message.text, message.blocks])) {
    expect(shown).not.toMatch(BIDI);
    expect(shown).not.toMatch(CONTROL);
  }
}

function expectWithinTelegram(reply: Reply): void {
  const rendered = renderTelegram(reply);
  const parts = splitReply(rendered.html);
  expect(parts.length).toBeLessThanOrEqual(MAX_REPLY_PARTS);
  for (const part of parts) {
    // Telegram counts the text after parsing, not the markup.
    const parsed = parseTelegramHtml(part);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(part).not.toMatch(BIDI);
    expect(part).not.toMatch(CONTROL);
  }
  for (const row of rendered.keyboard?.inline_keyboard ?? [])
    for (const button of row) {
      const data = "callback_data" in button ? button.callback_data : "";
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
      expect(button.text).not.toMatch(BIDI);
    }
  const file = { filename: "x.csv", contentType: "text/csv", bytes: new Uint8Array(), title: reply.summary };
  const caption = captionOf(file, rendered.caption);
  if (caption !== undefined) {
    expect(caption.length).toBeLessThanOrEqual(1024);
    expect(caption).not.toMatch(BIDI);
  }
}

function expectCleanConsole(reply: Reply): void {
  const { text: out } = renderConsole(reply, { tty: false });
  expect(out).not.toMatch(BIDI);
  expect(out).not.toMatch(CONTROL);
}

function expectWithinEveryPlatform(reply: Reply): void {
  expectWithinSlack(reply);
  expectWithinTelegram(reply);
  expectCleanConsole(reply);
}

const EXPLORER = "https://tronscan.org/#/transaction/";
const hashes = (rand: () => number, n: number): string[] =>
  Array.from({ length: n }, (_, i) =>
    i % 7 === 3
      ? hostileString(rand, 300)
      : Array.from({ length: 64 }, () => "0123456789abcdef"[Math.floor(rand() * 16)]).join(""),
  );

describe("every reply rendered from hostile input stays within Slack's and Telegram's limits", () => {
  it("random replies: long texts, many fields and buttons, control, bidi and markup characters (60 seeds)", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const reply = hostileReply(prng(seed));
      try {
        expectWithinEveryPlatform(reply);
      } catch (error) {
        throw new Error(`seed ${seed}: ${(error as Error).message}`);
      }
    }
  });

  it("a delegation notice with 500 tx_hashes and a 10 000-character order id", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rand = prng(seed);
      const event = {
        event: "delegation.confirmed" as const,
        delivery_id: "1",
        order_id: hostileString(rand, 10_000) || "x",
        order_type: hostileString(rand, 3000),
        tx_hashes: hashes(rand, 500),
        receive_address: hostileString(rand, 3000),
        energy_amount: 65_000,
        confirmed_at: hostileString(rand, 2000),
      };
      const reply = renderDelegationConfirmed(event, EXPLORER);
      expectWithinEveryPlatform(reply);
      expect(splitReply(renderTelegram(reply).html)).toHaveLength(1);
      const bandwidth = renderBandwidthDelegated(
        { ...event, event: "bandwidth.delegated", rental_label: hostileString(rand, 3000) },
        EXPLORER,
      );
      expectWithinEveryPlatform(bandwidth);
    }
  });

  it("a price list with hundreds of periods, tiers and providers, labels hostile: one Telegram message", () => {
    const account = createAccountBook().add({ apiKey: DEFAULT_API_KEY });
    const names = ["energy_1h", "energy_5m", "host", "aml", "bandwidth"] as const;
    const raw = JSON.parse(
      JSON.stringify(priceList(account, Date.parse("2025-03-04T09:30:00Z"), [...names])),
    );
    const rand = prng(7);
    for (const name of ["energy_5m", "energy_1h"]) {
      const service = raw.data.services[name];
      const [first] = service.periods;
      service.periods = Array.from({ length: 300 }, (_, i) => ({
        ...first,
        id: `p${i}`,
        label: hostileString(rand, 200),
        is_current: i === 250,
        tiers: Array.from({ length: 50 }, (_, j) => ({
          ...(first.tiers?.[0] ?? { min_energy: 0, max_energy: null, price: 90 }),
          label: hostileString(rand, 100),
          min_energy: j * 1000,
        })),
      }));
    }
    raw.data.services.aml.providers = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `${hostileString(rand, 60)}${i}`,
        { price: "1", price_trx: "1", available: true },
      ]),
    );
    raw.data.services.host.rates = {
      ...raw.data.services.host.rates,
      ...Object.fromEntries(
        Array.from({ length: 300 }, (_, i) => [`rate_${i}_${hostileString(rand, 50)}`, i]),
      ),
    };
    const list = priceListSchema.parse(raw);
    const reply = renderPrices(list, serviceNames(list));
    expectWithinEveryPlatform(reply);
    const parts = splitReply(renderTelegram(reply).html);
    expect(parts.length).toBeLessThanOrEqual(2);
    const shown = parts.join("\n");
    expect(shown).toContain("▶");
    expect(shown).toMatch(/… and 292 more periods/);
    expect(shown).toMatch(/… and 288 more providers/);
  });

  it("compliance verdicts and a batch with hostile deny-list labels and errors", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const rand = prng(seed);
      const verdict = {
        address: hostileString(rand, 500),
        blocked: true,
        category: "aml_risk" as const,
        severity: hostileString(rand, 500),
        reason_code: hostileString(rand, 500),
        label: `abc\u202Egnp.exe${hostileString(rand, 3000)}`,
        checked_at: hostileString(rand, 100),
      };
      expectWithinEveryPlatform(renderVerdict(verdict));
      const rows = Array.from({ length: 1000 }, () => ({
        address: hostileString(rand, 80),
        verdict: { ...verdict, address: hostileString(rand, 80), error: hostileString(rand, 300) },
      }));
      expectWithinEveryPlatform(renderBatch(rows, hostileString(rand, 50)));
    }
  });

  it("a digest of 200 hostile notices stays within each platform's limits", () => {
    const rand = prng(11);
    const notices = Array.from({ length: 200 }, () =>
      publicReply(hostileString(rand, 300), [header(hostileString(rand, 40)), text(...spans(rand, 3))]),
    );
    for (const platform of ["slack", "telegram"] as const) {
      const reply = renderNoticeDigest(notices, PLATFORM_FACTS.get(platform)!.limits);
      if (platform === "slack") expectWithinSlack(reply);
      else expectWithinTelegram(reply);
    }
  });
});
