/**
 * HTML from tagged templates: every value put into a template is escaped unless it is itself
 * `Html` (a template's result), so what the page repeats of its input can never become markup.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = string | number | Html | readonly Html[] | undefined | null | false;

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const render = (value: Value): string => {
  if (value === undefined || value === null || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map((v: Html) => v.text).join("");
  return escapeHtml(String(value));
};

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}
