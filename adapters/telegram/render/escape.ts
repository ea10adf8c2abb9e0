/**
 * Escaping for Telegram's HTML parse mode. Everything that did not come from our own renderer
 * (service messages, labels, user names, addresses) goes through `escapeHtml`: Telegram refuses
 * a message with a bare `<`, `>` or `&`, and an unescaped `<a href=…>` from outside would be a link
 * we never meant to post.
 */
export function escapeHtml(text: string): string {
  return clean(text);
}

/** For attribute values (`href`), where a `"` would end the attribute. */
export const escapeAttribute = (text: string): string => escapeHtml(text).replace(/"/g, "&quot;");

// C0 controls other than tab and newline, DEL, and lone surrogates: Telegram rejects text that
// is not valid UTF-8, and control characters have no business in a chat message.
const UNSAFE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export const clean = (text: string): string => text.replace(UNSAFE, "");

/** Only links a chat client opens safely; anything else is shown as text. */
export const isSafeHref = (href: string): boolean => /^(https?|tg):\/\/[^\s]+$/i.test(href);
