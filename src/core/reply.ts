/**
 * The platform-neutral reply model. The core builds replies from these blocks; each adapter has one
 * renderer (Block Kit, Telegram HTML + inline keyboard, plain text). Span text is raw: renderers
 * escape everything, because much of it (entity names, labels, service messages) comes from outside.
 */
export interface Span {
  text: string;
  style?: "bold" | "italic" | "code";
  href?: string;
  /**
   * Notifies someone: a Slack user (`U…`/`W…`) or user group (`S…`) id, rendered as Slack's
   * `<@U…>` / `<!subteam^S…>`; elsewhere the span's text is shown as it is (Telegram `@username`).
   */
  mention?: string;
}

export interface Field {
  label: string;
  value: Span[];
}

export interface Button {
  label: string;
  /** Opaque one-time token (≤ 32 chars); the action's state lives in the store. */
  token: string;
  style?: "primary" | "danger";
}

interface FileBase {
  filename: string;
  contentType: string;
  title?: string;
}

/**
 * A file of a reply: its bytes, or, for a file written to disk as it was made so memory stays flat
 * (an audit export of 100 000 rows), its path on this instance and its size; adapters stream it.
 */
export type FileAttachment = (FileBase & { bytes: Uint8Array }) | DiskFile;
export type DiskFile = FileBase & { path: string; sizeBytes: number; bytes?: undefined };

/** The file's size in bytes, wherever it is. */
export const fileSize = (file: FileAttachment): number =>
  file.bytes === undefined ? file.sizeBytes : file.bytes.byteLength;

/**
 * A picture (a chart, PNG) with the one line that says what it shows and its key numbers: the
 * caption where the platform shows one, and the alt text for screen readers.
 */
export interface ImageAttachment {
  filename: string;
  /** PNG bytes. */
  png: Uint8Array;
  width: number;
  height: number;
  summary: string;
}

export type Block =
  | { type: "header"; text: string }
  | { type: "text"; spans: Span[] }
  | { type: "fields"; fields: Field[] }
  | { type: "context"; spans: Span[] }
  | { type: "buttons"; buttons: Button[] }
  | { type: "file"; file: FileAttachment }
  | { type: "image"; image: ImageAttachment }
  | { type: "divider" };

export interface Reply {
  blocks: Block[];
  /** One plain line for notification previews and fallbacks (Slack `text`). */
  summary: string;
  /** `private`: only the user who typed sees it (errors, refusals); `public`: the conversation. */
  visibility: "public" | "private";
  /** After a button click: this reply replaces the message that carried the button. */
  replacesOriginal?: boolean;
  /**
   * Posted later (the notifier) in place of this message of the conversation (a Confirm's quote,
   * by the platform's message id): edited where the platform allows, else posted as a new message.
   * Editing the same message again is harmless, so a repeated delivery never shows twice.
   */
  replaces?: string;
  /**
   * A failure or alert about something whose story is told in a thread: one short line the whole
   * channel sees as well ("Delivery not confirmed after 10 min: …"). Unset: the thread only.
   */
  alert?: string;
  /**
   * A person's answer (to a command, a click) that goes out later through the notifier because
   * the platform could not take it now: it is sent whole and on its own, never folded into a
   * digest of notices. `messageId`: the platform's id of the message it answers (Telegram quotes
   * the command with it).
   */
  answers?: { messageId?: string };
  /**
   * The alert this message shows (src/core/alerts/): the notify worker records the message id it
   * got, so a later change of the alert edits it in place. `digestible`: its only buttons are the
   * alert's own, so a burst of alerts may fold into one digest that carries buttons for them all.
   */
  alertOf?: { id: string; digestible?: boolean };
  /**
   * A button that needs more before it acts (a reason to clear an AML case): the adapter opens
   * the form `form` (a key of the features' forms: a Slack modal, a Telegram reply prompt, a
   * console prompt) and what it gathers completes `line` into the command line that runs. The
   * button is not used up, and nothing is posted in the conversation.
   */
  asks?: {
    form: string;
    line: string;
    prompt: string /** The form's title (Slack: ≤ 24 characters). */;
    title?: string;
  };
  /**
   * The people this message pages (OPS_ONCALL's mentions on an escalation): a digest that folds it
   * in mentions them too, once, so a coalesced escalation still pages.
   */
  pages?: Span[];
}

export const plain = (text: string): Span => ({ text });
export const bold = (text: string): Span => ({ text, style: "bold" });
export const italic = (text: string): Span => ({ text, style: "italic" });
export const code = (text: string): Span => ({ text, style: "code" });
export const link = (text: string, href: string): Span => ({ text, href });

export const header = (text: string): Block => ({ type: "header", text });
export const text = (...spans: (Span | string)[]): Block => ({ type: "text", spans: spans.map(toSpan) });
export const context = (...spans: (Span | string)[]): Block => ({
  type: "context",
  spans: spans.map(toSpan),
});
export const fields = (...items: [label: string, value: Span | string | Span[]][]): Block => ({
  type: "fields",
  fields: items.map(([label, value]) => ({
    label,
    value: Array.isArray(value) ? value : [toSpan(value)],
  })),
});
export const buttons = (...items: Button[]): Block => ({ type: "buttons", buttons: items });
export const file = (attachment: FileAttachment): Block => ({ type: "file", file: attachment });
export const image = (attachment: ImageAttachment): Block => ({ type: "image", image: attachment });

function toSpan(value: Span | string): Span {
  return typeof value === "string" ? { text: value } : value;
}

/** A public reply to the conversation. */
export function publicReply(summary: string, blocks: Block[]): Reply {
  return { summary, blocks, visibility: "public" };
}

/** One short line only the user who typed sees: bad input, refusals, errors. */
export function errorReply(line: string): Reply {
  return { summary: line, blocks: [text(...codeMarked(line))], visibility: "private" };
}

/**
 * A line of ours whose `backticked` parts are code (a command to type): code spans, so each
 * platform shows them as its code (Slack would otherwise show look-alikes of the backticks).
 */
export function codeMarked(line: string): Span[] {
  return line
    .split(/`([^`\n]+)`/)
    .flatMap((part, i) => (part === "" ? [] : [i % 2 === 1 ? code(part) : plain(part)]));
}

/** The plain text of a span list, for fallbacks and the console. */
export const spansToText = (spans: readonly Span[]): string => spans.map((s) => s.text).join("");
