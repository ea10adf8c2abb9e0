/**
 * Escaping for Telegram's HTML parse mode. Everything that did not come from our own renderer
 * (service messages, labels, user names, addresses) goes through `escapeHtml`: Telegram refuses
 * a message with a bare `<`, `>` or `&`, and an unescaped `<a href=…>` from outside would be a link
 * we never meant to post.
 */
export function escapeHtml(text: string): string {
  return clean(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** For attribute values (`href`), where a `"` would end the attribute. */
export const escapeAttribute = (text: string): string => escapeHtml(text).replace(/"/g, "&quot;");

// Control characters other than tab and newline, and lone surrogates: Telegram rejects text that
// is not valid UTF-8, and control characters have no business in a chat message. (With the `u`
// flag a surrogate pair is one code point, so the class matches lone halves only.)
const UNSAFE = /[^\P{Cc}\n\t]|[\ud800-\udfff]/gu;

const clean = (text: string): string => text.replace(UNSAFE, "");

/** Only links a chat client opens safely; anything else is shown as text. */
export const isSafeHref = (href: string): boolean => /^(https?|tg):\/\/[^\s]+$/i.test(href);
