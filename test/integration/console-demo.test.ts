import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_ADDRESSES } from "../../src/sandbox/families/screening/demo-addresses.js";
import { exitWithin, freePort } from "../support/processes.js";

/**
 * The console demo as a newcomer runs it (`printf 'help\nprices\n' | npm start`), as a real
 * program on a pipe: the transcript on stdout is the conversation and nothing else; the JSON logs
 * go to a file named once on stderr, or to stderr when LOG_LEVEL is set.
 */
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  logDir: string;
}

async function demo(input: string, env: Record<string, string> = {}, exitMs = 60_000): Promise<Run> {
  const logDir = mkdtempSync(join(tmpdir(), "opsbot-demo-"));
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      // os.tmpdir() follows TMPDIR: the log file of this run lands in its own directory.
      TMPDIR: logDir,
      PORT: String(await freePort()),
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdin.end(input);
  const { code } = await exitWithin(child, exitMs, "the demo at the end of its input");
  return { code, stdout, stderr, logDir };
}

const jsonLines = (text: string): string[] => text.split("\n").filter((line) => /^\s*\{.*"level"/.test(line));

describe("console demo on a pipe", () => {
  it("prints the conversation only; logs go to a file it names once on stderr; it exits 0 at the end of input", async () => {
    const run = await demo("help\nprices\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("What I can do");
    expect(run.stdout).toContain("Price list");
    expect(jsonLines(run.stdout)).toEqual([]);
    expect(run.stdout).not.toContain('"msg"');

    const logFile = join(run.logDir, "opsbot.log");
    const notices = run.stderr.split("\n").filter((line) => line.includes(logFile));
    expect(notices).toEqual([`Logs go to ${logFile} (set LOG_LEVEL to see them on stderr instead).`]);
    expect(jsonLines(run.stderr)).toEqual([]);
    expect(existsSync(logFile)).toBe(true);
    const logged = jsonLines(readFileSync(logFile, "utf8")).map((line) => JSON.parse(line).msg);
    expect(logged).toContain("opsbot started");
    expect(logged).toContain("stopped");
  });

  it("a high-risk screening opens its case, and the demo still ends with its input: the case's SLA, an hour away, is not waited for", async () => {
    // Bounded well under the 60 s the demo waits for results still coming.
    const run = await demo(`screen ${DEMO_ADDRESSES.highRisk}\n`, {}, 30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/opened AML case C1/);
  });

  it("with LOG_LEVEL set, logs go to stderr at that level and stdout stays the conversation", async () => {
    const run = await demo("prices\n", { LOG_LEVEL: "debug" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Price list");
    expect(jsonLines(run.stdout)).toEqual([]);
    const levels = jsonLines(run.stderr).map((line) => JSON.parse(line).level as number);
    expect(levels).toContain(20);
    expect(existsSync(join(run.logDir, "opsbot.log"))).toBe(false);
  });
});
