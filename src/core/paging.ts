import { fail, ok, type ParseResult } from "./parse/result.js";

/**
 * Lists that can outgrow one message (`schedule list`, `cases`) are shown a page at a time, as
 * `watch list [page]` is: the page asked for (past the last: the last), and a note that says the
 * page count and the command for the next page.
 */
export interface Page<T> {
  shown: T[];
  page: number;
  pages: number;
}

/** `text` as a page number (absent: 1); bad input is one line naming `usage`. */
export function parsePage(text: string | undefined, usage: string): ParseResult<number> {
  if (text === undefined) return ok(1);
  const page = Number(text);
  return /^\d{1,6}$/.test(text) && page >= 1
    ? ok(page)
    : fail(`${usage} takes a page number, e.g. ${usage} 2`);
}

export function pageOf<T>(items: readonly T[], page: number, size: number): Page<T> {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(Math.max(1, page), pages);
  return { shown: items.slice((current - 1) * size, current * size), page: current, pages };
}

/** "Page 2 of 3; cases 3 for the next." — undefined when everything fits one page. */
export function pageNote(command: string, page: Page<unknown>): string | undefined {
  if (page.pages <= 1) return undefined;
  const last = page.page >= page.pages;
  return `Page ${page.page} of ${page.pages}; ${command} ${last ? 1 : page.page + 1} for ${last ? "the first" : "the next"}.`;
}
