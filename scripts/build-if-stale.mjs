#!/usr/bin/env node
/**
 * `prestart`: `npm start` runs the program built when installing (`prepare`), so starting costs
 * no compile (about 10 s of tsc). Only when a source or a tsconfig is newer than the build (an
 * edit, a pull) is it rebuilt first, so `npm start` never runs stale code. Walking the sources'
 * modification times takes a few milliseconds.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const main = join(root, "dist", "src", "main.js");

function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ["src", "adapters"]) if (existsSync(join(root, dir))) visit(join(root, dir));
  for (const file of ["tsconfig.json", "tsconfig.build.json"]) {
    if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  }
  return newest;
}

const builtAt = existsSync(main) ? statSync(main).mtimeMs : undefined;
if (builtAt === undefined || builtAt < newestSource()) {
  const why = builtAt === undefined ? "no build yet" : "the sources changed since the last build";
  process.stderr.write(`opsbot: ${why}: building (npm run build)…\n`);
  const result = spawnSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
