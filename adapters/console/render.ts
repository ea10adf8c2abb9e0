import {
  type Block,
  type Button,
  type FileAttachment,
  fileSize,
  type ImageAttachment,
  type Reply,
  type Span,
} from "../../src/core/index.js";

/**
 * Reply → plain text for a terminal or a pipe. Styling (bold, dim) only on a TTY, so piped
 * output stays clean. Every text from outside is stripped of control characters, so a service
 * message cannot move the cursor or recolour the terminal.
 */
export interface RenderOptions {
  tty: boolean;
  /** Where each file or image block was saved, printed under its `[file]` / `[image]` line. */
  savedPaths?: ReadonlyMap<FileAttachment | ImageAttachment, string>;
}

export interface Rendered {
  text: string;
  /** The buttons in the order they are numbered: `[1]` is `buttons[0]`. */
  buttons: Button[];
}

const BOLD = "\u001b[1m";
const DIM = "\u001b[2m";
const RESET = "\u001b[0m";
// Keep newlines and tabs; drop every other control character (ESC starts terminal sequences)
// and the bidi overrides that make text read differently from what it is.
const CONTROL = /[^\P{Cc}\n\t]|[\u202a-\u202e\u2066-\u2069]/gu;

export const clean = (s: string): string => s.replace(CONTROL, "");

export function renderReply(reply: Reply, options: RenderOptions): Rendered {
  const lines: string[] = [];
  const buttons: Button[] = [];
  for (const block of reply.blocks) lines.push(...renderBlock(block, options, buttons));
  if (lines.length === 0) lines.push(clean(reply.summary));
  return { text: lines.join("\n"), buttons };
}

function renderBlock(block: Block, options: RenderOptions, buttons: Button[]): string[] {
  switch (block.type) {
    case "header": {
      const title = clean(block.text);
      return [options.tty ? `${BOLD}${title}${RESET}` : title, "=".repeat(Array.from(title).length)];
    }
    case "text":
      return [spans(block.spans, options.tty)];
    case "fields":
      return block.fields.map((f) => `${clean(f.label)}: ${spans(f.value, options.tty)}`);
    case "context": {
      const line = spans(block.spans, false);
      return [options.tty ? `${DIM}${line}${RESET}` : line];
    }
    case "buttons":
      return [buttonLine(block.buttons, buttons)];
    case "file":
      return fileLines(block.file, options.savedPaths?.get(block.file));
    case "image":
      return imageLines(block.image, options.savedPaths?.get(block.image));
    case "divider":
      return ["----"];
  }
}

function buttonLine(items: readonly Button[], numbered: Button[]): string {
  const parts = items.map((button) => {
    numbered.push(button);
    return `[${numbered.length}] ${clean(button.label)}`;
  });
  return parts.join("  ");
}

function fileLines(file: FileAttachment, savedPath: string | undefined): string[] {
  const name = clean(file.filename);
  const lines = [`[file] ${name} (${formatSize(fileSize(file))})`];
  if (file.title) lines[0] += ` ${clean(file.title)}`;
  if (savedPath) lines.push(`saved to ${savedPath}`);
  return lines;
}

/** A picture cannot be shown on a terminal: what it shows, and where the PNG was saved. */
function imageLines(image: ImageAttachment, savedPath: string | undefined): string[] {
  const lines = [`[image] ${clean(image.summary)}`];
  lines.push(
    savedPath ? `saved to ${savedPath}` : `${clean(image.filename)} (${image.width}×${image.height} PNG)`,
  );
  return lines;
}

function spans(list: readonly Span[], tty: boolean): string {
  return list
    .map((span) => {
      const body = clean(span.text);
      const styled = tty && span.style === "bold" ? `${BOLD}${body}${RESET}` : body;
      return span.href && span.href !== span.text ? `${styled} <${clean(span.href)}>` : styled;
    })
    .join("");
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
