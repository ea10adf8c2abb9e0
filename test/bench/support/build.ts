import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Figures 5 and 6 run the built program (`node dist/src/main.js`), as a container does. It is
 * built with the project's own `npm run build` when missing or older than a source file (as
 * `npm start` rebuilds it too), unless `--no-build`. tsc still emits when some other file has a
 * type error, so a failed build that left a program behind is used, and said.
 */
const MAIN_JS = "dist/src/main.js";

/** Node's arguments in `npm start` (flags, then MAIN_JS): the Dockerfile's ENTRYPOINT has the same. */
export const START_ARGS: string[] = (() => {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  };
  const [node, ...args] = pkg.scripts.start.split(/\s+/);
  if (node !== "node" || args.at(-1) !== MAIN_JS) throw new Error(`npm start is not node … ${MAIN_JS}`);
  return args;
})();
const BUILD_TIMEOUT_MS = 240_000;

export function ensureBuilt(repo: string, allowBuild: boolean): { note: string } {
  const main = join(repo, MAIN_JS);
  const builtAt = existsSync(main) ? statSync(main).mtimeMs : undefined;
  const newest = newestSource(repo);
  if (builtAt !== undefined && builtAt >= newest) return { note: "dist up to date" };
  const why = builtAt === undefined ? "missing" : "older than the sources";
  if (!allowBuild) {
    if (builtAt === undefined) throw new Error(`${MAIN_JS} is missing and --no-build was given`);
    return { note: `dist ${why}; not rebuilt (--no-build)` };
  }
  process.stderr.write(`bench: ${MAIN_JS} is ${why}: npm run build…\n`);
  const result = spawnSync("npm", ["run", "build"], {
    cwd: repo,
    encoding: "utf8",
    timeout: BUILD_TIMEOUT_MS,
  });
  if (!existsSync(main)) throw new Error(`npm run build did not produce ${MAIN_JS}: ${result.stdout}`);
  if (result.status === 0) return { note: `dist rebuilt (was ${why})` };
  const firstError = (result.stdout ?? "").split("\n").find((line) => line.includes("error TS"));
  return { note: `dist rebuilt with type errors (${firstError?.trim() ?? "see npm run build"})` };
}

function newestSource(repo: string): number {
  let newest = 0;
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ["src", "adapters"]) visit(join(repo, dir));
  return newest;
}
