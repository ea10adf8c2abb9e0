import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { afterEach, describe, expect, it } from "vitest";
import { createWorld, OPERATOR } from "../support/app-world.js";
import { editCell } from "../support/audit-export.js";
import { testRedis } from "../support/redis.js";
import {
  botCertificate,
  CERT_ADDRESS,
  genuineExport,
  getPage,
  postPage,
  postRaw,
  visibleText,
} from "../support/verify-page.js";

/**
 * `/verify` on the running bot, over real HTTP (the bot as `npm start` runs it, Redis behind it):
 * a certificate the bot made and an export with its code are genuine, their files match, changed
 * ones are named; anything else is the "not genuine" page; every answer carries the security
 * headers; 20 MB and 30 requests a minute per address are the limits, one address's flood does not
 * lock out another.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

async function bot() {
  const world = await createWorld({ redis: { url: redis.url, prefix: redis.prefix } });
  const started = await world.start();
  return { ...started, world, page: `${started.origin}/verify` };
}

function expectSecurityHeaders(headers: Headers) {
  const csp = headers.get("content-security-policy") ?? "";
  expect(csp).toMatch(/default-src 'none'/);
  expect(csp).not.toMatch(/unsafe-inline|script-src/);
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("referrer-policy")).toBe("no-referrer");
  expect(headers.get("content-type")).toBe("text/html; charset=utf-8");
}

describe("the verification page", () => {
  it("a certificate the bot made: its link and code say genuine with address, time and level; its PDF matches, a changed one does not", async () => {
    const b = await bot();
    const empty = await getPage(b.page);
    expect(empty.status).toBe(200);
    expectSecurityHeaders(empty.headers);
    expect(empty.body).toMatch(/<form method="post" enctype="multipart\/form-data">/);
    expect(empty.body).not.toMatch(/<script/i);

    const { code, pdf } = await botCertificate(b.app, OPERATOR.id);
    const doc = await getDocument({ data: new Uint8Array(pdf) }).promise;
    const page = await doc.getPage(doc.numPages);
    const printed = (await page.getTextContent()).items.map((i) => ("str" in i ? i.str : "")).join("");
    const link = `https://opsbot.test/verify?code=${code}`;
    expect(printed).toContain(link);

    const viaLink = await getPage(`${b.page}?code=${encodeURIComponent(code)}`);
    expect(viaLink.status).toBe(200);
    expectSecurityHeaders(viaLink.headers);
    const text = visibleText(viaLink.body);
    expect(text).toMatch(/^Genuine · Verify/);
    expect(text).toContain(`Address ${CERT_ADDRESS}`);
    expect(text).toMatch(/Certified at \d{4}-\d\d-\d\dT/);
    expect(text).toContain("Risk level low");

    const withPdf = await postPage(b.page, {
      code,
      file: { name: "certificate.pdf", type: "application/pdf", bytes: pdf },
    });
    expect(withPdf.status).toBe(200);
    expect(visibleText(withPdf.body)).toMatch(/File: matches\. This PDF is the one issued with this code/);
    const changed = Buffer.from(pdf);
    changed.writeUInt8((changed.at(-20) ?? 0) ^ 1, changed.length - 20);
    const withChanged = await postPage(b.page, {
      code,
      file: { name: "certificate.pdf", type: "application/pdf", bytes: changed },
    });
    expect(visibleText(withChanged.body)).toMatch(/File: does not match\. This PDF is not the one/);
  });

  it("an audit export code: range, rows and last hash; its CSV unaltered; an edited cell names its row", async () => {
    const b = await bot();
    const { made, code } = await genuineExport(b.app.deps, 25);
    const shown = visibleText((await getPage(`${b.page}?code=${code}`)).body);
    expect(shown).toContain("Range 2026-11-02..2026-11-02");
    expect(shown).toContain("Rows 25");
    expect(shown).toContain(`Last hash ${made.lastHash}`);

    const csv = { name: "audit.csv", type: "text/csv" };
    const unaltered = await postPage(b.page, { code, file: { ...csv, bytes: made.csv } });
    expect(visibleText(unaltered.body)).toMatch(/File: matches\. The file is unaltered: 25 rows/);
    const edited = await postPage(b.page, { code, file: { ...csv, bytes: editCell(made, 310, 6, "0.50") } });
    expect(visibleText(edited.body)).toMatch(
      /File: does not match\. Altered: the first row that does not match is seq 310/,
    );
    // The code alone, no file chosen (a browser still sends an empty file part): the verdict only.
    const noFile = await postPage(b.page, {
      code,
      file: { name: "", type: "application/octet-stream", bytes: "" },
    });
    expect(visibleText(noFile.body)).toMatch(/Genuine/);
    expect(noFile.body).not.toMatch(/File:/);
  });

  it("unknown, forged and malformed input is the not-genuine page (200), escaped, never an error", async () => {
    const b = await bot();
    const { code } = await genuineExport(b.app.deps, 3);
    const forged = `${code.slice(0, -1)}${code.endsWith("A") ? "B" : "A"}`;
    const hostile = `"><script>alert(1)</script>`;
    for (const given of [
      forged,
      "OPS-CERT-AAAAAAAAAA-AAAAAAAAAAAAAAAAAAAAAAAAAA",
      hostile,
      "x".repeat(5_000),
      "%E0%A4%A",
    ]) {
      const answer = await getPage(`${b.page}?code=${encodeURIComponent(given)}`);
      expect(answer.status, given.slice(0, 30)).toBe(200);
      expectSecurityHeaders(answer.headers);
      expect(visibleText(answer.body)).toMatch(/Not genuine/);
      expect(answer.body).not.toContain("<script>");
    }
    const raw = await getPage(`${b.page}?code=%E0%A4%A`);
    expect(raw.status).toBe(200);
    const echoed = await getPage(`${b.page}?code=${encodeURIComponent(hostile)}`);
    expect(echoed.body).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");

    const malformed: [string, string][] = [
      ["multipart/form-data", "--x\r\nnonsense"],
      ["multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="code"\r\n\r\nOPS-'],
      ["text/plain", "code=OPS-CERT-1"],
      ["application/json", JSON.stringify({ code })],
    ];
    for (const [type, body] of malformed) {
      const answer = await postRaw(b.page, type, body);
      expect(answer.status, type).toBe(200);
      expectSecurityHeaders(answer.headers);
      expect(visibleText(answer.body)).toMatch(/Not genuine/);
      expect(answer.body).not.toMatch(/Error:|at .*\.ts:\d+/);
    }
    expect(b.logs.filter((l) => /"level":50/.test(l))).toEqual([]);
  });

  it("a file over 20 MB is refused (413) and nothing is checked", async () => {
    const b = await bot();
    const { code } = await genuineExport(b.app.deps, 3);
    const big = new Uint8Array(20 * 1_048_576 + 1).fill(0x41);
    const answer = await postPage(b.page, {
      code,
      file: { name: "audit.csv", type: "text/csv", bytes: big },
    });
    expect(answer.status).toBe(413);
    expectSecurityHeaders(answer.headers);
    expect(visibleText(answer.body)).toMatch(/File too large/);
    expect(answer.body).not.toMatch(/File: /);
  });

  it("more than 30 requests a minute from one address get 429; 1000 from one address leave another answered", async () => {
    const b = await bot();
    const statuses: number[] = [];
    for (let i = 0; i < 1_000; i += 1) statuses.push((await getPage(b.page, "127.0.0.2")).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    const limited = await getPage(b.page, "127.0.0.2");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expectSecurityHeaders(limited.headers);
    expect(visibleText(limited.body)).toMatch(/At most 30 checks a minute/);
    // Another address: answered. A second instance on the same Redis counts the flood too.
    expect((await getPage(b.page, "127.0.0.3")).status).toBe(200);
    const second = await b.world.start();
    expect((await getPage(`${second.origin}/verify`, "127.0.0.2")).status).toBe(429);
    expect((await getPage(`${second.origin}/verify`, "127.0.0.5")).status).toBe(200);
    const { code } = await genuineExport(b.app.deps, 2);
    expect(visibleText((await getPage(`${b.page}?code=${code}`, "127.0.0.4")).body)).toMatch(/Genuine/);
  });
});
