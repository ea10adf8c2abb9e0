import type { Block, FileAttachment, Reply, Span } from "../../src/core/index.js";

/**
 * A Reply as Teams shows it: plain markdown text when it is only text, else an Adaptive Card
 * (schema 1.5) whose buttons are each an `Action.Execute` carrying the core's one-time token.
 * Pictures are image attachments beside the card; files are download links (`fileLink`).
 */
export const CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive";
export const BUTTON_VERB = "opsbot.press";

interface Mention {
  type: "mention";
  text: string;
  mentioned: { id: string; name: string };
}

export interface TeamsMessage {
  type: "message";
  text?: string;
  textFormat?: "markdown";
  attachments?: { contentType: string; content?: unknown; contentUrl?: string; name?: string }[];
  entities?: Mention[];
  summary?: string;
}

export type AdaptiveCard = Record<string, unknown> & { type: "AdaptiveCard"; version: "1.5" };

/** Makes a download link for a file of a reply (`<PUBLIC_URL>/files/<token>`). */
export type FileLinker = (file: FileAttachment) => Promise<string>;

/** Markdown's special characters shown as themselves. */
const escapeMarkdown = (text: string): string => text.replace(/([\\`*_[\]<>#~|])/g, "\\$1");

function spanText(span: Span, mentions: Mention[]): string {
  if (span.mention !== undefined) {
    const text = `<at>${span.text.replace(/[<>]/g, "")}</at>`;
    mentions.push({ type: "mention", text, mentioned: { id: span.mention, name: span.text } });
    return text;
  }
  const body = span.style === "code" ? `\`${span.text.replace(/`/g, "'")}\`` : escapeMarkdown(span.text);
  const styled = span.style === "bold" ? `**${body}**` : span.style === "italic" ? `_${body}_` : body;
  return span.href ? `[${styled}](${span.href})` : styled;
}

const spansText = (spans: readonly Span[], mentions: Mention[]): string =>
  spans.map((s) => spanText(s, mentions)).join("");

/** Only text: no fields, buttons, pictures or files. */
const textOnly = (reply: Reply): boolean =>
  reply.blocks.every(
    (b) => b.type === "header" || b.type === "text" || b.type === "context" || b.type === "divider",
  );

export async function renderMessage(reply: Reply, links: FileLinker): Promise<TeamsMessage> {
  const mentions: Mention[] = [];
  if (textOnly(reply)) {
    const text = reply.blocks
      .flatMap((b) => {
        if (b.type === "header") return [`**${escapeMarkdown(b.text)}**`];
        if (b.type === "text" || b.type === "context") return [spansText(b.spans, mentions)];
        return [];
      })
      .join("\n\n");
    return {
      type: "message",
      text: text || escapeMarkdown(reply.summary),
      textFormat: "markdown",
      ...(mentions.length > 0 && { entities: mentions }),
    };
  }
  const card = await renderCard(reply, links);
  const images = reply.blocks.flatMap((b) =>
    b.type === "image"
      ? [
          {
            contentType: "image/png",
            contentUrl: `data:image/png;base64,${Buffer.from(b.image.png).toString("base64")}`,
            name: b.image.filename,
          },
        ]
      : [],
  );
  return {
    type: "message",
    summary: reply.summary,
    attachments: [{ contentType: CARD_CONTENT_TYPE, content: card }, ...images],
  };
}

/** The reply as one Adaptive Card (an invoke's answer shows it in place of the pressed card). */
export async function renderCard(reply: Reply, links: FileLinker): Promise<AdaptiveCard> {
  const mentions: Mention[] = [];
  const body: unknown[] = [];
  for (const block of reply.blocks) body.push(...(await blockElements(block, mentions, links)));
  if (body.length === 0) body.push({ type: "TextBlock", text: escapeMarkdown(reply.summary), wrap: true });
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.5",
    body,
    ...(mentions.length > 0 && { msteams: { entities: mentions } }),
  };
}

async function blockElements(block: Block, mentions: Mention[], links: FileLinker): Promise<unknown[]> {
  switch (block.type) {
    case "header":
      return [
        { type: "TextBlock", text: escapeMarkdown(block.text), size: "Large", weight: "Bolder", wrap: true },
      ];
    case "text":
      return [{ type: "TextBlock", text: spansText(block.spans, mentions), wrap: true }];
    case "context":
      return [
        {
          type: "TextBlock",
          text: spansText(block.spans, mentions),
          isSubtle: true,
          size: "Small",
          wrap: true,
        },
      ];
    case "fields":
      return [
        {
          type: "FactSet",
          facts: block.fields.map((f) => ({ title: f.label, value: spansText(f.value, mentions) })),
        },
      ];
    case "buttons":
      return [
        {
          type: "ActionSet",
          actions: block.buttons.map((b) => ({
            type: "Action.Execute",
            title: b.label,
            verb: BUTTON_VERB,
            data: { token: b.token },
            ...(b.style && { style: b.style === "danger" ? "destructive" : "positive" }),
          })),
        },
      ];
    case "file": {
      const href = await links(block.file);
      const title = escapeMarkdown(block.file.title ?? block.file.filename);
      return [{ type: "TextBlock", text: `[${title}](${href})`, wrap: true }];
    }
    case "image":
      // The picture itself is an attachment beside the card; the card says what it shows.
      return [{ type: "TextBlock", text: escapeMarkdown(block.image.summary), isSubtle: true, wrap: true }];
    case "divider":
      return [{ type: "TextBlock", text: " ", separator: true }];
  }
}
