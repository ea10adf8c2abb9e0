import { spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SIGNING_SECRET } from "../adapters/slack/payloads.js";
import { createFakeSlackApi, FAKE_SLACK_BOT_TOKEN } from "../fakes/slack-api.js";
import { startChildBot } from "../support/child-bot.js";
import {
  copyPaths,
  envOf,
  execForm,
  type Instruction,
  parseDockerfile,
  type Stage,
} from "../support/dockerfile.js";

/**
 * The container build without a Docker engine: the Dockerfile's own steps, read from it and run
 * in a temporary directory. The build stage gets only what its COPY lines name and runs its RUN
 * lines (npm ci with dev dependencies, the build, npm prune --omit=dev); the run stage gets only
 * what its COPY lines name (from the build, or the context), then its ENTRYPOINT is started with
 * its ENV, a Slack configuration pointed at a fake (so the console is off) and a free PORT. It
 * must answer /healthz 200, pass the HEALTHCHECK command, and exit 0 on SIGTERM.
 *
 * `scripts/check-image.sh` (run by .ci/run) is the same check in shell, with the console demo instead
 * of the Slack fake and as a non-root account; keep the two following the same instructions.
 *
 * npm: node:24.21.0 ships npm 11.19.0, which is what `npm ci` runs with in the image; the RUN
 * lines get that npm through a shim on PATH, whatever npm this machine has.
 */
const ROOT = process.cwd();
const IMAGE_NPM = "npm@11.19.0";
const dockerfile = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "opsbot-container-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const only = (stage: Stage, keyword: string): Instruction[] =>
  stage.instructions.filter((i) => i.keyword === keyword);

function stages(): { build: Stage; run: Stage } {
  const [build, run] = dockerfile;
  if (!build || !run || dockerfile.length !== 2) throw new Error("expected a build stage and a run stage");
  return { build, run };
}

describe("Dockerfile", () => {
  it("builds in two stages on an exact Node 24 (the Active LTS) and runs the compiled program with node itself, as a non-root user", () => {
    const { build, run } = stages();
    expect(build.from).toMatch(/^node:24\.\d+\.\d+-[a-z]+-slim$/);
    expect(run.from).toBe(build.from);
    const runLines = only(build, "RUN")
      .map((i) => i.args)
      .join(" && ");
    expect(runLines).toMatch(/\bnpm ci\b(?! --omit)/);
    expect(runLines.indexOf("npm run build")).toBeGreaterThan(runLines.indexOf("npm ci"));
    expect(runLines.indexOf("npm prune --omit=dev")).toBeGreaterThan(runLines.indexOf("npm run build"));

    // npm does not pass SIGTERM on: the entry point is node on the built main, not `npm start`.
    const [entrypoint] = only(run, "ENTRYPOINT");
    const argv = execForm(entrypoint!);
    expect(argv[0]).toBe("node");
    expect(argv.at(-1)).toBe("dist/src/main.js");
    expect(only(run, "CMD")).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toContain("dist/src/main.js");
    // The container runs node with the flags of `npm start` (the heap ceiling among them).
    expect(argv.join(" ")).toBe(pkg.scripts.start);

    const users = only(run, "USER").map((i) => i.args);
    expect(users).toHaveLength(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
    const [healthcheck] = only(run, "HEALTHCHECK");
    expect(healthcheck?.args).toMatch(/\bCMD\b.*\/healthz/);
    // The run stage takes the pruned dependencies and the build, not the sources.
    const fromBuild = only(run, "COPY").filter((c) => c.flags.from === build.name);
    expect(fromBuild.flatMap((c) => copyPaths(c).sources).sort()).toEqual(["/app/dist", "/app/node_modules"]);
    expect(only(run, "COPY").flatMap((c) => copyPaths(c).sources)).not.toContain("src");
  });

  it("builds from its own COPY lines, prunes, and the run stage answers /healthz and stops on SIGTERM", async () => {
    const { build, run } = stages();
    const buildDir = join(work, "build", "app");
    mkdirSync(buildDir, { recursive: true });
    const npmShim = imageNpm(join(work, "bin"));
    for (const instruction of build.instructions) {
      if (instruction.keyword === "COPY") copyInto(instruction, ROOT, buildDir);
      else if (instruction.keyword === "RUN") await sh(instruction.args, buildDir, npmShim);
    }
    expect(existsSync(join(buildDir, "dist/src/main.js"))).toBe(true);
    // Pruned: no dev dependency is left for the run stage.
    for (const dev of ["typescript", "vitest", "tsx", "@biomejs/biome"]) {
      expect(existsSync(join(buildDir, "node_modules", dev)), dev).toBe(false);
    }

    const runDir = join(work, "run", "app");
    mkdirSync(runDir, { recursive: true });
    let env: Record<string, string> = {};
    for (const instruction of run.instructions) {
      if (instruction.keyword === "ENV") env = { ...env, ...envOf(instruction) };
      if (instruction.keyword !== "COPY") continue;
      if (instruction.flags.from === build.name) moveFromBuild(instruction, buildDir, runDir);
      else copyInto(instruction, ROOT, runDir);
    }
    expect(existsSync(join(runDir, "src"))).toBe(false);

    const slack = await createFakeSlackApi();
    try {
      const [, ...args] = execForm(only(run, "ENTRYPOINT")[0]!);
      const bot = await startChildBot({
        args,
        cwd: runDir,
        env: {
          ...env,
          SLACK_BOT_TOKEN: FAKE_SLACK_BOT_TOKEN,
          SLACK_SIGNING_SECRET: SIGNING_SECRET,
          SLACK_API_URL: slack.apiUrl,
        },
        readyWithinMs: 15_000,
      });
      expect(slack.calls("auth.test")).toHaveLength(1);
      const check = only(run, "HEALTHCHECK")[0]!.args.replace(/^.*?\bCMD\s+/, "");
      await sh(check, runDir, undefined, { PORT: String(bot.port) });
      expect(await bot.signal("SIGTERM")).toBe(0);
      expect(bot.output()).toContain('"msg":"stopped"');
    } finally {
      await slack.close();
    }
  }, 180_000);
});

/** `dir/npm`: the image's npm, fetched by npx (cached after the first run). */
function imageNpm(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const npx = npxOnPath();
  const shim = join(dir, "npm");
  writeFileSync(shim, `#!/bin/sh\nexec "${npx}" --yes ${IMAGE_NPM} "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

/**
 * npx from PATH, not from beside the running node: the Node 24 the tests also run on is the npm
 * registry's `node` package, a lone binary (scripts/test.sh puts its folder first on PATH, so npx
 * runs on it too).
 */
function npxOnPath(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, "npx"))) return join(dir, "npx");
  }
  throw new Error("npx is not on PATH");
}

/** COPY from the context: every source (files or directories) into `dest` under `root`. */
function copyInto(instruction: Instruction, context: string, root: string): void {
  const { sources, dest } = copyPaths(instruction);
  const target = join(root, dest.replace(/^\/app\/?/, ""));
  for (const source of sources) {
    const into = dest.endsWith("/") || sources.length > 1 ? join(target, source) : target;
    cpSync(join(context, source), into, { recursive: true });
  }
}

/** COPY --from=build: the stage's files (under WORKDIR /app) moved, not copied: the stage is done. */
function moveFromBuild(instruction: Instruction, buildDir: string, root: string): void {
  const { sources, dest } = copyPaths(instruction);
  for (const source of sources) {
    renameSync(join(buildDir, source.replace(/^\/app\/?/, "")), join(root, dest.replace(/^\.\/?/, "")));
  }
}

function sh(command: string, cwd: string, binDir?: string, extraEnv: Record<string, string> = {}) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn("sh", ["-c", command], {
      cwd,
      env: {
        ...process.env,
        ...(binDir && { PATH: `${binDir}:${process.env.PATH ?? ""}` }),
        // The cache serves what it has; the registry is asked for the rest.
        npm_config_prefer_offline: "true",
        npm_config_audit: "false",
        npm_config_fund: "false",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`\`${command}\` exited ${code}:\n${output.slice(-3_000)}`)),
    );
  });
}
