import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createFileLinks, FILE_CHUNK_BYTES } from "../../../adapters/teams/files.js";
import type { DiskFile } from "../../../src/core/reply.js";
import { createHttpServer } from "../../../src/http/server.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import { type TestRedis, testRedis } from "../../support/redis.js";

/**
 * A reply's file behind its signed 24 h link: kept in the shared store in pieces, so the instance
 * that made the link and any other serve it alike; streamed a piece at a time, never read whole;
 * gone after a day.
 */
const DAY_MS = 24 * 3_600_000;
const SECRET = "s3cret-s3cret-s3cret";
const dirs: string[] = [];
let redis: TestRedis | undefined;
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  await redis?.cleanup();
  redis = undefined;
});

async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `opsbot-test-${name}-`));
  dirs.push(dir);
  return dir;
}

/** A CSV of about `megabytes` MB written as the export writes it (a line at a time). */
async function writeCsv(path: string, megabytes: number): Promise<DiskFile> {
  const line = `${"x".repeat(99)}\n`;
  async function* lines() {
    for (let i = 0; i < megabytes * 10_486; i += 1) yield `${i},${line}`;
  }
  await pipeline(lines, createWriteStream(path));
  return { filename: "audit.csv", contentType: "text/csv", path, sizeBytes: (await stat(path)).size };
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

const idOf = (link: string) => link.slice(link.lastIndexOf("/") + 1).split(".")[0] ?? "";

describe("teams: a file behind its link", () => {
  it("a 30 MB export made on one instance is streamed by another, byte for byte, after its own temp file is gone", async () => {
    redis = testRedis();
    const storeOf = () =>
      createRedisStore({ redis: (redis as TestRedis).connect(), prefix: redis?.prefix ?? "" });
    const options = { secret: SECRET, publicUrl: "https://opsbot.test" };
    const here = createFileLinks({ ...options, store: storeOf() });
    const thereStore = storeOf();
    const there = await serve(createFileLinks({ ...options, store: thereStore }));
    try {
      const exportDir = await tempDir("export");
      const file = await writeCsv(join(exportDir, "audit-2026-02-01_2026-02-28.csv"), 30);
      const digest = await sha256(file.path);
      const link = await here.link(file);
      // The export's own temp file is removed (15 minutes after it was made): the link still serves it.
      await rm(exportDir, { recursive: true, force: true });

      // Kept in pieces no larger than one chunk (base64), never as one value of the whole file.
      const pieces = Math.ceil(file.sizeBytes / FILE_CHUNK_BYTES);
      const last = await thereStore.get(`teams:file:${idOf(link)}:${pieces - 1}`);
      expect(last?.length).toBeGreaterThan(0);
      expect(await thereStore.get(`teams:file:${idOf(link)}:${pieces}`)).toBeNull();
      const first = (await thereStore.get(`teams:file:${idOf(link)}:0`)) ?? "";
      expect(Buffer.from(first, "base64").length).toBe(FILE_CHUNK_BYTES);

      const got = await there.get(link);
      expect(got.status).toBe(200);
      expect(got.headers.get("content-length")).toBe(String(file.sizeBytes));
      expect(got.headers.get("content-disposition")).toBe('attachment; filename="audit.csv"');
      const served = join(await tempDir("served"), "served.csv");
      await pipeline(got.body as unknown as NodeJS.ReadableStream, createWriteStream(served));
      expect(await sha256(served)).toBe(digest);
    } finally {
      await there.http.close();
    }
  });

  it("a small file in a reply is served whole; an altered or expired link is a 404", async () => {
    let now = Date.parse("2026-03-01T00:00:00Z");
    const store = createMemoryStore({ now: () => now });
    const files = createFileLinks({
      store,
      secret: SECRET,
      publicUrl: "https://opsbot.test",
      now: () => now,
    });
    const { get, http } = await serve(files);
    try {
      const exportDir = await tempDir("export-small");
      const small = join(exportDir, "small.csv");
      await writeFile(small, "seq,hash\n1,ab\n");
      const onDisk = await files.link({
        filename: "s.csv",
        contentType: "text/csv",
        path: small,
        sizeBytes: 14,
      });
      const inReply = await files.link({
        filename: "certificate.pdf",
        contentType: "application/pdf",
        bytes: Buffer.from("%PDF-1.7 certificate"),
      });
      expect(await (await get(onDisk)).text()).toBe("seq,hash\n1,ab\n");
      const pdf = await get(inReply);
      expect(pdf.headers.get("content-type")).toBe("application/pdf");
      expect(await pdf.text()).toBe("%PDF-1.7 certificate");

      const altered = `${inReply.slice(0, -3)}${inReply.endsWith("AAA") ? "BBB" : "AAA"}`;
      expect((await get(altered)).status).toBe(404);
      now += DAY_MS + 1;
      expect((await get(inReply)).status).toBe(404);
      expect(await store.get(`teams:file:${idOf(inReply)}:0`)).toBeNull();
    } finally {
      await http.close();
    }
  });
});
