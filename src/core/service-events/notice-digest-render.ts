import type { MessageLimits } from "../ports.js";
import {
  type Block,
  context,
  header,
  plain,
  publicReply,
  type Reply,
  type Span,
  spansToText,
  text,
} from "../reply.js";
import { digestNouns } from "./registry.js";

/**
 * Several notices that waited for the same conversation, as one message: "12 deliveries
 * confirmed", then one line per notice (its summary, which names the order, and every transaction
 * link it carried). Used when a burst outruns the platform's pace (`PlatformFacts.sendGapMs`).
 * A digest never exceeds one message of the platform (`PlatformFacts.limits`): the caller adds
 * notices while they fit. Each notice is counted by the noun its event's definition gives its
 * header (`digestNouns`).
 */

/**
 * Only notices may be summarised. A person's answer (a price table, help, a balance) is posted
 * whole, on its own; files, images and buttons cannot be folded into a list either. An alert whose
 * only buttons are its own (Ack, Snooze, Resolve) can: the digest carries buttons for all the
 * alerts it lists (src/core/alerts/digest-buttons.ts, added by the notify worker).
 */
export function canDigest(reply: Reply): boolean {
  if (reply.answers !== undefined) return false;
  if (reply.alertOf?.digestible && reply.replaces === undefined)
    return reply.blocks.every((b) => b.type !== "file" && b.type !== "image");
  return reply.blocks.every((b) => b.type !== "file" && b.type !== "image" && b.type !== "buttons");
}

const OTHER: [string, string] = ["notification", "notifications"];
const CONTEXT_LINES = 3;
/** Markup around a link and a line (bullets, `<url|text>`, `<a href="">`, escapes). */
const LINK_OVERHEAD = 20;
const LINE_OVERHEAD = 8;

function nounOf(reply: Reply): [string, string] {
  const head = reply.blocks.find((b) => b.type === "header");
  const noun = head?.type === "header" ? digestNouns.get(head.text) : undefined;
  return noun ? [noun[0], noun[1]] : OTHER;
}

/** The summary, then every link of the notice (its transactions). */
function lineOf(reply: Reply): Span[] {
  const links = reply.blocks.flatMap((b) => spansOf(b).filter((s) => s.href !== undefined));
  const line: Span[] = [plain(`• ${reply.summary}`)];
  for (const [i, link] of links.entries()) line.push(plain(i === 0 ? " — " : ", "), link);
  return line;
}

function spansOf(block: Block): Span[] {
  if (block.type === "text" || block.type === "context") return block.spans;
  if (block.type === "fields") return block.fields.flatMap((f) => f.value);
  return [];
}

const sizeOf = (line: readonly Span[]): number =>
  line.reduce((n, s) => n + s.text.length + (s.href ? s.href.length + LINK_OVERHEAD : 0), LINE_OVERHEAD);

/** The title: "12 deliveries confirmed", or "12 notifications" with a count per kind below. */
function titleOf(replies: readonly Reply[]): { title: string; breakdown?: string } {
  const counts = new Map<string, { noun: [string, string]; n: number }>();
  for (const reply of replies) {
    const noun = nounOf(reply);
    const entry = counts.get(noun[1]) ?? { noun, n: 0 };
    entry.n += 1;
    counts.set(noun[1], entry);
  }
  const phrase = ({ noun, n }: { noun: [string, string]; n: number }) =>
    `${n} ${n === 1 ? noun[0] : noun[1]}`;
  const groups = [...counts.values()];
  if (groups.length === 1) return { title: phrase(groups[0]!) };
  return { title: `${replies.length} ${OTHER[1]}`, breakdown: groups.map(phrase).join(", ") };
}

/** Packs lines into text blocks of at most `blockChars` (estimated). */
function pack(lines: readonly Span[][], blockChars: number): Span[][] {
  const blocks: Span[][] = [];
  let current: Span[] = [];
  let size = 0;
  for (const line of lines) {
    const n = sizeOf(line);
    if (current.length > 0 && size + n > blockChars) {
      blocks.push(current);
      current = [];
      size = 0;
    }
    if (current.length > 0) current.push(plain("\n"));
    current.push(...line);
    size += n;
  }
  if (current.length > 0) blocks.push(current);
  return blocks;
}

/** What one notice costs of a digest's `budget`. */
export const digestCost = (reply: Reply): number => sizeOf(lineOf(reply));

/**
 * The characters available to the lines: title, breakdown and three short context notes aside.
 * Greedy packing fills each text block at least half, so the lines need at most
 * 2 × budget / `blockChars` + 1 blocks, plus five: a platform's limits are chosen to keep that
 * within its count of blocks (adapters/slack/platform.ts).
 */
export const digestBudget = (limits: MessageLimits): number => limits.maxChars - 800;

/** Everyone the digest's notices page, each once (by the id a mention names, else its text). */
function pagedBy(replies: readonly Reply[]): Span[] {
  const seen = new Map<string, Span>();
  for (const span of replies.flatMap((r) => r.pages ?? [])) {
    const key = span.mention ?? span.text.trim();
    if (key !== "" && !seen.has(key)) seen.set(key, span);
  }
  return [...seen.values()].flatMap((s, i) => (i === 0 ? [s] : [plain(" "), s]));
}

const escalatedLine = (replies: readonly Reply[]): string => {
  const n = replies.filter((r) => r.pages !== undefined).length;
  return n === 1 ? "1 escalation below." : `${n} escalations below.`;
};

/** Distinct context notes (why it is in the alert channel, …), at most three. */
function contextsOf(replies: readonly Reply[]): string[] {
  const notes = new Set<string>();
  for (const reply of replies)
    for (const block of reply.blocks)
      if (block.type === "context" && notes.size < CONTEXT_LINES) notes.add(spansToText(block.spans));
  return [...notes];
}

export function renderNoticeDigest(replies: readonly Reply[], limits: MessageLimits): Reply {
  const { title, breakdown } = titleOf(replies);
  const blocks: Block[] = [header(title)];
  const paged = pagedBy(replies);
  if (paged.length > 0) blocks.push(text(...paged, plain(`: ${escalatedLine(replies)}`)));
  if (breakdown) blocks.push(text(breakdown));
  for (const spans of pack(replies.map(lineOf), limits.blockChars)) blocks.push(text(...spans));
  for (const note of contextsOf(replies)) blocks.push(context(note));
  return publicReply(breakdown ? `${title}: ${breakdown}` : title, blocks);
}
