import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import type { Block, Button, FileAttachment, ImageAttachment, Reply, Span } from "../../../src/core/index.js";
import { clean, escapeAttribute, escapeHtml, isSafeHref } from "./escape.js";

/**
 * Reply → Telegram: HTML text (parse_mode "HTML"), an inline keyboard whose `callback_data` is
 * the core's short button token, and the files to upload. Every text from the reply is escaped;
 * the only markup in the result is the markup written here.
 */
export interface RenderedMessage {
  html: string;
  keyboard?: InlineKeyboardMarkup;
  files: FileAttachment[];
  /** Pictures, sent as photos with their summary as the caption; absent when there are none. */
  photos?: ImageAttachment[];
  /** For a reply of only files: the summary, as the first file's caption (escaped). */
  caption?: string;
}

/** Telegram's limit on `callback_data`, in bytes. */
export const CALLBACK_DATA_MAX_BYTES = 64;
/** Buttons per keyboard row: more get too narrow to read on a phone. */
const BUTTONS_PER_ROW = 3;

export function renderReply(reply: Reply): RenderedMessage {
  const lines: string[] = [];
  const rows: InlineKeyboardButton[][] = [];
  const files: FileAttachment[] = [];
  const photos: ImageAttachment[] = [];
  for (const block of reply.blocks) {
    if (block.type === "buttons") rows.push(...keyboardRows(block.buttons));
    else if (block.type === "file") files.push(block.file);
    else if (block.type === "image") photos.push(block.image);
    else lines.push(renderBlock(block));
  }
  const body = lines.join("\n").trim();
  const summary = escapeHtml(reply.summary);
  // A reply without text still says what it is: as the text above its buttons, or as a caption.
  const html = body === "" && (rows.length > 0 || files.length + photos.length === 0) ? summary : body;
  return {
    html,
    files,
    ...(photos.length > 0 && { photos }),
    ...(rows.length > 0 && { keyboard: { inline_keyboard: rows } }),
    ...(html === "" && summary !== "" && { caption: summary }),
  };
}

type TextBlock = Exclude<Block, { type: "buttons" } | { type: "file" } | { type: "image" }>;

function renderBlock(block: TextBlock): string {
  switch (block.type) {
    case "header":
      return `<b>${escapeHtml(block.text)}</b>`;
    case "text":
      return renderSpans(block.spans);
    case "fields":
      return block.fields.map((f) => `<b>${escapeHtml(f.label)}:</b> ${renderSpans(f.value)}`).join("\n");
    case "context":
      return renderSpans(block.spans, true);
    case "divider":
      return "";
  }
}

/** `muted` (context lines) sets plain spans in italics; code and links keep their own look. */
function renderSpans(spans: readonly Span[], muted = false): string {
  return spans.map((span) => renderSpan(span, muted)).join("");
}

function renderSpan(span: Span, muted: boolean): string {
  const body = escapeHtml(span.text);
  if (body === "") return "";
  // Telegram does not nest entities inside <code>, so a code span with a link stays a link.
  if (span.href !== undefined && isSafeHref(span.href)) {
    const inner =
      span.style === "bold" ? `<b>${body}</b>` : span.style === "italic" ? `<i>${body}</i>` : body;
    return `<a href="${escapeAttribute(span.href)}">${inner}</a>`;
  }
  switch (span.style) {
    case "bold":
      return `<b>${body}</b>`;
    case "italic":
      return `<i>${body}</i>`;
    case "code":
      return `<code>${body}</code>`;
    default:
      return muted ? `<i>${body}</i>` : body;
  }
}

function keyboardRows(buttons: readonly Button[]): InlineKeyboardButton[][] {
  const rows: InlineKeyboardButton[][] = [];
  for (let i = 0; i < buttons.length; i += BUTTONS_PER_ROW) {
    rows.push(buttons.slice(i, i + BUTTONS_PER_ROW).map(toKeyboardButton));
  }
  return rows;
}

function toKeyboardButton(button: Button): InlineKeyboardButton {
  // The token is the core's short random id; a longer one means a bug, and Telegram would refuse
  // the whole message, so fail here with a message that says why.
  if (Buffer.byteLength(button.token) > CALLBACK_DATA_MAX_BYTES) {
    throw new Error(`button token is longer than Telegram's ${CALLBACK_DATA_MAX_BYTES}-byte callback_data`);
  }
  // Button labels are plain text in the Bot API: no escaping, but no control characters either.
  return { text: clean(button.label.replace(/\p{Cc}/gu, " ")), callback_data: button.token };
}
