import type {
  Block,
  Button,
  Field,
  FileAttachment,
  ImageAttachment,
  Reply,
} from "../../../src/core/index.js";
import { formatCount } from "../../../src/core/index.js";
import { clipMrkdwn, clipPlain, inertText, plainText, spansToMrkdwn, spanToMrkdwn } from "./mrkdwn.js";

/**
 * Reply → Block Kit. Every text passes through `mrkdwn.ts`; every Block Kit limit is enforced
 * here, so Slack never refuses a message with `invalid_blocks` because a service sent a long
 * text: long texts are split into several sections, fields into sections of ten, buttons into
 * rows of 25, and a reply that still needs more than 50 blocks loses middle blocks (never its
 * buttons) with a line that says so.
 */
export const BLOCK_KIT_LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  fieldText: 2000,
  fieldsPerSection: 10,
  headerText: 150,
  /** Slack documents 3000 for a text object; context lines are short, so the stricter 2000 costs nothing. */
  contextText: 2000,
  buttonText: 75,
  buttonValue: 2000,
  elementsPerActions: 25,
  /** The `text` fallback: Slack shows it in notifications, where more is never read. */
  fallbackText: 3000,
} as const;

/** Our buttons' `action_id` prefix: the actions listener handles only these. */
export const ACTION_ID_PREFIX = "opsbot:";

interface PlainTextObject {
  type: "plain_text";
  text: string;
  emoji?: boolean;
}
interface MrkdwnObject {
  type: "mrkdwn";
  text: string;
}
interface SlackButton {
  type: "button";
  action_id: string;
  text: PlainTextObject;
  value: string;
  style?: "primary" | "danger";
}
export type SlackBlock =
  | { type: "header"; text: PlainTextObject }
  | { type: "section"; text: MrkdwnObject }
  | { type: "section"; fields: MrkdwnObject[] }
  | { type: "context"; elements: MrkdwnObject[] }
  | { type: "actions"; elements: SlackButton[] }
  | { type: "divider" };

/** A file to share; an image carries its alt text. */
export type SlackUpload = FileAttachment & { altText?: string };

export interface SlackMessage {
  /** Plain fallback for notifications and clients without Block Kit (escaped mrkdwn). */
  text: string;
  blocks: SlackBlock[];
  /** File and image blocks are not Block Kit: they are uploaded next to the message. */
  files: SlackUpload[];
}

const mrkdwn = (text: string): MrkdwnObject => ({ type: "mrkdwn", text });
const plain = (text: string, max: number): PlainTextObject => ({
  type: "plain_text",
  text: clipPlain(plainText(text), max),
  emoji: true,
});

export function renderReply(reply: Reply, lead: readonly SlackBlock[] = []): SlackMessage {
  const files: SlackUpload[] = [];
  const blocks: SlackBlock[] = [...lead];
  const buttonIndex = { next: 0 };
  for (const block of reply.blocks) {
    if (block.type === "file") files.push(block.file);
    else if (block.type === "image") files.push(imageUpload(block.image));
    else blocks.push(...renderBlock(block, buttonIndex));
  }
  return {
    text: clipMrkdwn(inertText(reply.summary), BLOCK_KIT_LIMITS.fallbackText),
    blocks: fitBlockCount(blocks),
    files,
  };
}

/** A picture goes up as a PNG file, its summary as its title and its alt text. */
const imageUpload = (image: ImageAttachment): SlackUpload => ({
  filename: image.filename,
  contentType: "image/png",
  bytes: image.png,
  title: image.summary,
  altText: image.summary,
});

/** True when a reply is nothing but files and pictures: its summary goes with the upload. */
export const onlyFiles = (reply: Reply): boolean =>
  reply.blocks.length > 0 && reply.blocks.every((b) => b.type === "file" || b.type === "image");

function renderBlock(
  block: Exclude<Block, { type: "file" } | { type: "image" }>,
  buttonIndex: { next: number },
): SlackBlock[] {
  switch (block.type) {
    case "header":
      return plainText(block.text).trim() === ""
        ? []
        : [{ type: "header", text: plain(block.text, BLOCK_KIT_LIMITS.headerText) }];
    case "text":
      return splitText(spansToMrkdwn(block.spans)).map((text) => ({ type: "section", text: mrkdwn(text) }));
    case "fields":
      return fieldSections(block.fields);
    case "context": {
      const text = spansToMrkdwn(block.spans);
      if (text.trim() === "") return [];
      return [{ type: "context", elements: [mrkdwn(clipNoted(text, BLOCK_KIT_LIMITS.contextText))] }];
    }
    case "buttons":
      return buttonRows(block.buttons, buttonIndex);
    case "divider":
      return [{ type: "divider" }];
  }
}

/** Long text → sections of at most 3000 characters, cut at line ends where there are any. */
export function splitText(text: string, max: number = BLOCK_KIT_LIMITS.sectionText): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const line of text.split("\n")) {
    const candidate = current === "" ? line : `${current}\n${line}`;
    if (candidate.length <= max) {
      current = candidate;
      continue;
    }
    if (current.trim() !== "") chunks.push(current);
    current = clipNoted(line, max);
  }
  if (current.trim() !== "") chunks.push(current);
  return chunks;
}

/**
 * Cut to `max` with a note of how much was left out, never a bare "…" (the reader should know
 * that something is missing, and how much).
 */
function clipNoted(text: string, max: number): string {
  if (text.length <= max || max < 200) return clipMrkdwn(text, max);
  // The note is under 40 characters; the count is of the text as rendered (markup included).
  const shown = clipMrkdwn(text, max - 40);
  return `${shown} (${formatCount(text.length - shown.length + 1)} more characters not shown)`;
}

function fieldSections(fields: readonly Field[]): SlackBlock[] {
  const sections: SlackBlock[] = [];
  for (let i = 0; i < fields.length; i += BLOCK_KIT_LIMITS.fieldsPerSection) {
    const chunk = fields.slice(i, i + BLOCK_KIT_LIMITS.fieldsPerSection);
    sections.push({ type: "section", fields: chunk.map(fieldText) });
  }
  return sections;
}

function fieldText(field: Field): MrkdwnObject {
  const label = inertText(field.label).trim();
  const value = spansToMrkdwn(field.value);
  const text = label === "" ? value : `*${label}*\n${value}`;
  // A field's text may not be empty: a blank value still shows its label.
  return mrkdwn(clipNoted(text.trim() === "" ? " " : text, BLOCK_KIT_LIMITS.fieldText));
}

function buttonRows(buttons: readonly Button[], index: { next: number }): SlackBlock[] {
  const elements: SlackButton[] = buttons
    // A token longer than Slack's value limit could not come back whole: such a button would lie.
    .filter((b) => b.token.length > 0 && b.token.length <= BLOCK_KIT_LIMITS.buttonValue)
    .map((b) => ({
      type: "button",
      // Unique in the message, as Slack requires; the token travels in `value`.
      action_id: `${ACTION_ID_PREFIX}${index.next++}`,
      // Judged after cleaning: a label of control characters only would leave Slack an empty text.
      text: plain(plainText(b.label).trim() === "" ? "…" : b.label, BLOCK_KIT_LIMITS.buttonText),
      value: b.token,
      ...(b.style && { style: b.style }),
    }));
  const rows: SlackBlock[] = [];
  for (let i = 0; i < elements.length; i += BLOCK_KIT_LIMITS.elementsPerActions) {
    rows.push({ type: "actions", elements: elements.slice(i, i + BLOCK_KIT_LIMITS.elementsPerActions) });
  }
  return rows;
}

/** At most 50 blocks: middle blocks go first, the buttons always stay. */
function fitBlockCount(blocks: SlackBlock[]): SlackBlock[] {
  const max = BLOCK_KIT_LIMITS.blocksPerMessage;
  if (blocks.length <= max) return blocks;
  const actions = blocks.filter((b) => b.type === "actions").slice(0, max - 2);
  const others = blocks.filter((b) => b.type !== "actions");
  const keep = max - actions.length - 1;
  const dropped = others.length - keep;
  const notice: SlackBlock = {
    type: "context",
    elements: [
      mrkdwn(`… ${dropped} more part${dropped === 1 ? "" : "s"} not shown (Slack shows 50 blocks).`),
    ],
  };
  return [...others.slice(0, keep), notice, ...actions];
}

/**
 * The reply as one mrkdwn text, for where Slack takes no blocks (a file's `initial_comment`).
 * Buttons are left out: a message that has them is posted with blocks.
 */
export function renderMrkdwnText(reply: Reply): string {
  const lines: string[] = [];
  for (const block of reply.blocks) {
    switch (block.type) {
      case "header":
        lines.push(`*${inertText(block.text).trim()}*`);
        break;
      case "text":
      case "context":
        lines.push(spansToMrkdwn(block.spans));
        break;
      case "fields":
        for (const f of block.fields) lines.push(`*${inertText(f.label).trim()}*: ${spansToMrkdwn(f.value)}`);
        break;
      case "divider":
        lines.push("———");
        break;
      case "buttons":
      case "file":
      case "image":
        break;
    }
  }
  const text = lines.filter((line) => line.trim() !== "" && line !== "**").join("\n");
  return clipMrkdwn(text === "" ? inertText(reply.summary) : text, BLOCK_KIT_LIMITS.sectionText);
}

export const hasButtons = (reply: Reply): boolean => reply.blocks.some((b) => b.type === "buttons");

// User ids come from the signed payload; anything unexpected is shown as text, never as markup.
const mention = (userId: string): string =>
  /^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : inertText(userId);

/** A context line naming who pressed which button, shown on top of the message it replaced. */
export function pressedByBlock(label: string, userId: string): SlackBlock {
  const what = inertText(label).trim();
  const line = what === "" ? `Pressed by ${mention(userId)}` : `*${what}* by ${mention(userId)}`;
  return { type: "context", elements: [mrkdwn(line)] };
}

/** A context line on a public answer: who typed which command, so the channel can tell. */
export function ranByBlock(commandLine: string, userId: string): SlackBlock {
  const typed = spanToMrkdwn({ text: clipPlain(commandLine, 200), style: "code" });
  return { type: "context", elements: [mrkdwn(`${mention(userId)} ran ${typed}`)] };
}
