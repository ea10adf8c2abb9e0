import { createHash } from "node:crypto";
import { type CodeVerdict, type FileCheck, factsOf, type VerdictFact } from "../core/index.js";
import { Html, html } from "./html.js";

/**
 * The `/verify` page: one form (a code, optionally the file it came with) and, once asked, the
 * verdict: what the code certifies, and whether the file is the one it was issued for. Plain HTML
 * and one stylesheet in the page itself (allowed by its hash in the CSP): no script, nothing
 * fetched from anywhere.
 */
export const MAX_FILE_MB = 20;
/** What the page repeats of a code it was given, at most (a code is 47 characters). */
const MAX_CODE_ECHO = 100;

const STYLE = `
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff}
main{max-width:44rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.6rem;margin:0 0 .5rem}
h2{font-size:1.3rem;margin:0 0 .5rem}
code,.value{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;overflow-wrap:anywhere}
.verdict{border:2px solid;border-radius:6px;padding:1rem;margin:1.25rem 0}
.genuine{border-color:#1d6b3a;background:#eef8f1}
.not-genuine{border-color:#9b1c2c;background:#fdf0f2}
.verdict p{margin:.5rem 0 0}
.mismatch{border-left:4px solid #9b1c2c;padding-left:.5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0 0}
dt{font-weight:600}
dd{margin:0}
form p{margin:1rem 0}
label{display:block;font-weight:600;margin-bottom:.25rem}
.hint{display:block;color:#4a4a4a;font-size:.9rem}
input[type=text]{box-sizing:border-box;width:100%;padding:.5rem;font:inherit;font-family:ui-monospace,Menlo,Consolas,monospace;border:1px solid #6b6b6b;border-radius:4px}
input[type=file]{font:inherit}
button{font:inherit;padding:.5rem 1.25rem;border:2px solid #1a3f8f;border-radius:4px;background:#1a3f8f;color:#fff;cursor:pointer}
:focus-visible{outline:3px solid #c55a00;outline-offset:2px}
`.trim();

/** The page's headers: no script at all, the one inline stylesheet by its hash, forms only back here. */
export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": [
    "default-src 'none'",
    `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

export interface PageState {
  /** The code as given (repeated in the form, shortened). */
  code?: string;
  verdict?: CodeVerdict;
  file?: FileCheck;
  /** Instead of a verdict: why none could be given (too large, too many requests, unavailable). */
  notice?: { title: string; line: string };
}

const facts = (list: readonly VerdictFact[]): Html =>
  html`<dl>${list.map((f) => html`<dt>${f.label}</dt><dd class="value">${f.value}</dd>`)}</dl>`;

function verdictSection(verdict: CodeVerdict, factList: readonly VerdictFact[], file?: FileCheck): Html {
  if (!verdict.genuine)
    return html`<section class="verdict not-genuine" aria-labelledby="verdict">
<h2 id="verdict">Not genuine</h2>
<p>This code is not genuine: ${verdict.why}.</p>
</section>`;
  const what = verdict.kind === "certificate" ? "an AML certificate" : "an audit export";
  return html`<section class="verdict genuine" aria-labelledby="verdict">
<h2 id="verdict">Genuine</h2>
<p>This code was issued for ${what}. It certifies:</p>
${facts(factList)}
${file && html`<p class="file-check${file.matches ? "" : " mismatch"}"><strong>${file.matches ? "File: matches." : "File: does not match."}</strong> ${file.line}</p>`}
</section>`;
}

export function renderPage(state: PageState): string {
  const code = (state.code ?? "").trim().slice(0, MAX_CODE_ECHO);
  const heading =
    state.notice?.title ?? (state.verdict ? (state.verdict.genuine ? "Genuine" : "Not genuine") : "");
  const body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${heading ? `${heading} · ` : ""}Verify a certificate or an audit export</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
<h1>Verify a certificate or an audit export</h1>
<p>Enter the code printed on an AML certificate or posted with an audit export (<code>OPS-CERT-…</code> or <code>OPS-AUDIT-…</code>). Attach the file too, and it is checked against the code.</p>
${state.notice && html`<section class="verdict not-genuine" aria-labelledby="verdict"><h2 id="verdict">${state.notice.title}</h2><p>${state.notice.line}</p></section>`}
${state.verdict && verdictSection(state.verdict, factsOf(state.verdict), state.file)}
<form method="post" enctype="multipart/form-data">
<p><label for="code">Code</label>
<input id="code" name="code" type="text" value="${code}" required maxlength="${MAX_CODE_ECHO}" autocomplete="off" spellcheck="false" autocapitalize="characters"></p>
<p><label for="file">File (optional)</label>
<span class="hint" id="file-hint">The certificate PDF or the export CSV the code came with, at most ${MAX_FILE_MB} MB.</span>
<input id="file" name="file" type="file" accept=".pdf,.csv,application/pdf,text/csv" aria-describedby="file-hint"></p>
<p><button type="submit">Verify</button></p>
</form>
</main>
</body>
</html>
`;
  return body.text;
}
