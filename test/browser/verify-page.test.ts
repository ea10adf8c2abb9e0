import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import axe from "axe-core";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorld, OPERATOR } from "../support/app-world.js";
import { editCell } from "../support/audit-export.js";
import { botCertificate, CERT_ADDRESS, genuineExport } from "../support/verify-page.js";

/**
 * `/verify` in a real browser: Debian's Chromium (installed by `npm test` when missing and root,
 * like redis-server) driven by playwright-core, keyboard only. A genuine code pasted shows its
 * verdict; a genuine export uploaded is "unaltered"; one with an edited cell names that row. Each
 * state has no console error (a blocked inline style or script would be one) and passes axe-core;
 * screenshots of the three go to test-output/verify-page/ (not committed).
 */
const CHROMIUM = "/usr/bin/chromium";
const SHOTS = fileURLToPath(new URL("../../test-output/verify-page/", import.meta.url));
const INSTALL_HINT =
  "Chromium is not installed at /usr/bin/chromium. Install Debian's package (apt-get install -y chromium) or run `npm test`, which installs it when run as root.";

let context: BrowserContext;
let profile: string;
let files: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(INSTALL_HINT);
  profile = mkdtempSync(join(tmpdir(), "opsbot-chromium-"));
  files = mkdtempSync(join(tmpdir(), "opsbot-verify-files-"));
  mkdirSync(SHOTS, { recursive: true });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  for (const dir of [profile, files]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page whose console errors and uncaught errors are collected. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, errors };
}

/** axe-core's violations of the page as it is (run through the debugging protocol, not the page's CSP). */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];
  // A string: the test's TypeScript has no DOM types; this runs in the page.
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(tags)} } })`,
  )) as axe.AxeResults;
  return result.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`,
  );
}

/** A property of the element that has the keyboard focus. */
const focused = (page: Page, property: "id" | "textContent"): Promise<unknown> =>
  page.evaluate(`document.activeElement?.${property}`);

/**
 * Fills the form with the keyboard alone: Tab to the code, type it, Tab to the file, Tab, Enter.
 * The file itself is handed to the focused input as the OS dialog would: a key press that opens the
 * chooser races Playwright's interception of it (the listener is switched on without waiting), which
 * timed out on a loaded CI machine.
 */
async function submitByKeyboard(page: Page, code: string, file?: string): Promise<void> {
  await page.keyboard.press("Tab");
  expect(await focused(page, "id")).toBe("code");
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(code);
  await page.keyboard.press("Tab");
  expect(await focused(page, "id")).toBe("file");
  if (file) {
    await page.locator("#file").setInputFiles(file);
    expect(await focused(page, "id")).toBe("file");
  }
  await page.keyboard.press("Tab");
  expect(await focused(page, "textContent")).toBe("Verify");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
}

describe("the verification page in Chromium", () => {
  it("keyboard only: a pasted code's verdict, an export unaltered, an edited one naming its row; no console errors; axe passes", {
    timeout: 120_000,
  }, async () => {
    const world = await createWorld();
    const bot = await world.start();
    const { code: certCode } = await botCertificate(bot.app, OPERATOR.id);
    const { made, code: exportCode } = await genuineExport(bot.app.deps, 30);
    const genuineFile = join(files, "audit-2026-11-02.csv");
    const editedFile = join(files, "audit-2026-11-02-edited.csv");
    writeFileSync(genuineFile, made.csv);
    writeFileSync(editedFile, editCell(made, 317, 6, "0.10"));

    const { page, errors } = await openPage();
    await page.goto(`${bot.origin}/verify`);
    expect(await page.title()).toBe("Verify a certificate or an audit export");
    expect(await accessibilityViolations(page)).toEqual([]);

    await submitByKeyboard(page, certCode);
    const verdict = page.locator("section.verdict");
    expect(await verdict.locator("h2").textContent()).toBe("Genuine");
    expect(await verdict.textContent()).toContain(CERT_ADDRESS);
    expect(await verdict.textContent()).toMatch(/Risk level\s*low/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "1-genuine-code.png"), fullPage: true });

    await submitByKeyboard(page, exportCode, genuineFile);
    expect(await verdict.locator(".file-check").textContent()).toMatch(/File: matches\..*unaltered: 30 rows/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "2-export-unaltered.png"), fullPage: true });

    await submitByKeyboard(page, exportCode, editedFile);
    expect(await verdict.locator(".file-check").textContent()).toMatch(
      /File: does not match\..*first row that does not match is seq 317/,
    );
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "3-export-altered.png"), fullPage: true });

    expect(errors).toEqual([]);
    expect(existsSync(join(SHOTS, "3-export-altered.png"))).toBe(true);
  });
});
