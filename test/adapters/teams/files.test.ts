import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createFileLinks } from "../../../adapters/teams/files.js";
import type { DiskFile } from "../../../src/core/reply.js";
import { createHttpServer } from "../../../src/http/server.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";

/**
 * A reply's file written to disk (an audit export) behind its signed 24 h link: served from the
 * bot's own directory, streamed, never read whole into the store; removed once expired.
 */
const DAY_MS = 24 * 3_600_000;
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `opsbot-test-${name}-`));
  dirs.push(dir);
  return dir;
}

/** A CSV of about `megabytes` MB written as the export writes it (a line at a time). */
async function writeCsv(path: string, megabytes: number): Promise<void> {
  const line = `${"x".repeat(99)}\n`;
  async function* lines() {
    for (let i = 0; i < megabytes * 10_486; i += 1) yield `${i},${line}`;
  }
  await pipeline(lines, createWriteStream(path));
}

const sha256 = async (path: string) => {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
};

async function serve(files: ReturnType<typeof createFileLinks>) {
  const http = createHttpServer({ routes: [files.route] });
  const port = await http.listen(0, "127.0.0.1");
  return {
    get: (link: string) => fetch(link.replace("https://opsbot.test", `http://127.0.0.1:${port}`)),
    http,
  };
}

describe("teams: a file on disk behind its link", () => {
  it("a 30 MB export is copied to the bot's directory and streamed; the store keeps only its name; swept after a day", async () => {
    let now = Date.parse("2026-03-01T00:00:00Z");
    const store = createMemoryStore({ now: () => now });
    const exportDir = await tempDir("export");
    const filesDir = await tempDir("teams-files");
    const path = join(exportDir, "audit-2026-02-01_2026-02-28.csv");
    await writeCsv(path, 30);
    const digest = await sha256(path);
    const { size } = await stat(path);
    const file: DiskFile = { filename: "audit.csv", contentType: "text/csv", path, sizeBytes: size };
    const files = createFileLinks({
      store,
      secret: "s3cret-s3cret-s3cret",
      publicUrl: "https://opsbot.test",
      now: () => now,
      dir: filesDir,
    });
    const { get, http } = await serve(files);
    try {
      const link = await files.link(file);
      const id = link.slice(link.lastIndexOf("/") + 1).split(".")[0] ?? "";
      const record = (await store.get(`teams:file:${id}`)) ?? "";
      expect(record.length).toBeLessThan(200);
      expect(record).not.toContain("base64");

      // The export's own temp file is removed (15 minutes after it was made): the link still serves it.
      await rm(exportDir, { recursive: true, force: true });
      const got = await get(link);
      expect(got.status).toBe(200);
      expect(got.headers.get("content-length")).toBe(String(size));
      expect(got.headers.get("content-disposition")).toBe('attachment; filename="audit.csv"');
      const served = join(await tempDir("served"), "served.csv");
      await pipeline(got.body as unknown as NodeJS.ReadableStream, createWriteStream(served));
      expect(await sha256(served)).toBe(digest);

      expect(await files.sweep()).toBe(0);
      expect(await readdir(filesDir)).toHaveLength(1);
      now += DAY_MS + 1;
      expect((await get(link)).status).toBe(404);
      expect(await files.sweep()).toBe(1);
      expect(await readdir(filesDir)).toEqual([]);
    } finally {
      await http.close();
    }
  });

  it("a small file on disk goes to the shared store (another instance serves it); a large one only where its copy is", async () => {
    const store = createMemoryStore();
    const exportDir = await tempDir("export-small");
    const small = join(exportDir, "small.csv");
    await writeFile(small, "seq,hash\n1,ab\n");
    const large = join(exportDir, "large.csv");
    await writeCsv(large, 2);
    const options = { store, secret: "s3cret-s3cret-s3cret", publicUrl: "https://opsbot.test" };
    const here = createFileLinks({ ...options, dir: await tempDir("here") });
    const there = await serve(createFileLinks({ ...options, dir: await tempDir("there") }));
    try {
      const smallLink = await here.link({
        filename: "s.csv",
        contentType: "text/csv",
        path: small,
        sizeBytes: 14,
      });
      const largeLink = await here.link({
        filename: "l.csv",
        contentType: "text/csv",
        path: large,
        sizeBytes: (await stat(large)).size,
      });
      const got = await there.get(smallLink);
      expect(await got.text()).toBe("seq,hash\n1,ab\n");
      expect((await there.get(largeLink)).status).toBe(404);
    } finally {
      await there.http.close();
    }
  });
});
