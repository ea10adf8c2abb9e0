import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { freePort, LOOPBACK, stopChild } from "../support/processes.js";

/**
 * `compose.yaml` without a Docker engine: parsed as Compose reads it (YAML merge keys on), then
 * checked for what production needs: a Redis that keeps its data and never evicts, two bot
 * replicas built from the Dockerfile that share it and read .env, health checks everywhere, and
 * one published port in front whose proxy spreads over exactly the bot replicas. Redis's own
 * command line is run by a real redis-server to see that it takes the settings.
 */
const ROOT = process.cwd();

interface Healthcheck {
  test: string[] | string;
}
interface Service {
  image?: string;
  build?: string | { context: string };
  command?: string[];
  environment?: Record<string, string>;
  env_file?: string | string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: Healthcheck;
  ports?: string[];
  volumes?: string[];
  configs?: { source: string; target: string }[];
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  configs?: Record<string, { content?: string }>;
}

const compose = parse(readFileSync(join(ROOT, "compose.yaml"), "utf8"), { merge: true }) as Compose;
const services = compose.services;
const bots = Object.entries(services).filter(([, s]) => s.build !== undefined);
const redisDirs: string[] = [];
afterAll(() => {
  for (const dir of redisDirs) rmSync(dir, { recursive: true, force: true });
});

describe("compose.yaml", () => {
  it("uses only keys Compose knows, and declares every volume and config its services use", () => {
    for (const key of Object.keys(compose)) {
      expect(
        ["name", "services", "volumes", "configs", "networks", "secrets"].includes(key) ||
          key.startsWith("x-"),
        key,
      ).toBe(true);
    }
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(":")[0] ?? "";
        if (!source.startsWith(".") && !source.startsWith("/"))
          expect(compose.volumes, `${name}: ${source}`).toHaveProperty(source);
      }
      for (const config of service.configs ?? []) expect(compose.configs, name).toHaveProperty(config.source);
      for (const dependency of Object.keys(service.depends_on ?? {}))
        expect(services, name).toHaveProperty(dependency);
    }
  });

  it("runs two bot replicas built from the Dockerfile, sharing one Redis, reading .env, waiting for Redis to be healthy", () => {
    expect(bots.map(([name]) => name)).toHaveLength(2);
    const redisUrls = new Set<string>();
    for (const [name, bot] of bots) {
      expect(bot.build, name).toBe(".");
      expect([bot.env_file].flat(), name).toEqual([".env"]);
      const url = new URL(bot.environment?.REDIS_URL ?? "");
      expect(url.protocol, name).toBe("redis:");
      expect(services, `${name}: REDIS_URL names a service`).toHaveProperty(url.hostname);
      expect(services[url.hostname]?.image, name).toMatch(/^redis:/);
      expect(bot.depends_on?.[url.hostname]?.condition, name).toBe("service_healthy");
      redisUrls.add(url.href);
      // The replicas publish nothing: the proxy is the one way in.
      expect(bot.ports, name).toBeUndefined();
    }
    expect([...redisUrls]).toHaveLength(1);
    // .env holds secrets: never in the image, never committed.
    expect(readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n")).toContain(".env");
    expect(readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n")).toContain(".env");
  });

  it("checks the health of every service; the bots' check asks their own PORT for /healthz", () => {
    for (const [name, service] of Object.entries(services)) {
      const test = [service.healthcheck?.test ?? []].flat();
      expect(["CMD", "CMD-SHELL"], name).toContain(test[0]);
    }
    for (const [name, bot] of bots) {
      const command = [bot.healthcheck?.test ?? []].flat().join(" ");
      expect(command, name).toContain(`http://127.0.0.1:${bot.environment?.PORT}/healthz`);
    }
  });

  it("publishes one port, on a proxy whose upstreams are exactly the bot replicas with /healthz checks", () => {
    const published = Object.entries(services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([name]) => name)).toEqual(["proxy"]);
    const proxy = services.proxy!;
    expect(proxy.ports).toHaveLength(1);
    const [target] = (proxy.ports?.[0] ?? "").split(":").reverse();
    const caddyfile = compose.configs?.[proxy.configs?.[0]?.source ?? ""]?.content ?? "";
    expect(caddyfile).toContain(`:${target} {`);
    const upstreams = /reverse_proxy\s+([^{]+)\{/.exec(caddyfile)?.[1]?.trim().split(/\s+/) ?? [];
    expect(upstreams.sort()).toEqual(bots.map(([name, bot]) => `${name}:${bot.environment?.PORT}`).sort());
    expect(caddyfile).toMatch(/health_uri\s+\/healthz/);
    for (const [name] of bots) expect(proxy.depends_on?.[name]?.condition).toBe("service_healthy");
  });

  it("runs Redis with AOF persistence on a volume and noeviction, as a real redis-server takes them", async () => {
    const redis = services.redis!;
    expect(redis.volumes?.some((v) => v.endsWith(":/data"))).toBe(true);
    const [binary, ...args] = redis.command ?? [];
    expect(binary).toBe("redis-server");
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "opsbot-compose-redis-"));
    redisDirs.push(dir);
    const child = spawn("redis-server", [...args, "--port", String(port), "--bind", LOOPBACK, "--dir", dir], {
      stdio: "ignore",
    });
    const cli = (...words: string[]) =>
      spawnSync("redis-cli", ["-h", LOOPBACK, "-p", String(port), ...words], {
        encoding: "utf8",
      }).stdout.trim();
    try {
      const deadline = Date.now() + 10_000;
      while (cli("ping") !== "PONG" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(cli("config", "get", "appendonly")).toBe("appendonly\nyes");
      expect(cli("config", "get", "maxmemory-policy")).toBe("maxmemory-policy\nnoeviction");
    } finally {
      await stopChild(child, 5_000);
    }
  });
});
