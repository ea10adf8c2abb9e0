/**
 * A Dockerfile read as the builder reads it, for the tests that follow its steps without a Docker
 * engine: comments dropped, `\` continuations joined, instructions grouped by stage (`FROM … AS`).
 */
export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuations joined. */
  args: string;
  /** `--from=build`, `--chown=node:node`, … of a COPY. */
  flags: Record<string, string>;
}

export interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const [, keyword = "", rest = ""] = /^(\S+)\s*(.*)$/s.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === "FROM") {
      const [from = "", as, name] = rest.split(/\s+/);
      stages.push({ from, ...(as?.toUpperCase() === "AS" && name && { name }), instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`${upper} before any FROM`);
    stage.instructions.push({ keyword: upper, ...splitFlags(rest) });
  }
  return stages;
}

function logicalLines(text: string): string[] {
  const out: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    out.push(pending + line);
    pending = "";
  }
  if (pending.trim() !== "") out.push(pending.trim());
  return out;
}

function splitFlags(rest: string): { args: string; flags: Record<string, string> } {
  const flags: Record<string, string> = {};
  let args = rest;
  for (;;) {
    const match = /^--([a-z-]+)=(\S+)\s+/.exec(args);
    if (!match) break;
    flags[match[1] ?? ""] = match[2] ?? "";
    args = args.slice(match[0].length);
  }
  return { args, flags };
}

/** COPY's sources and destination (shell form; the JSON form is not used here). */
export function copyPaths(instruction: Instruction): { sources: string[]; dest: string } {
  const parts = instruction.args.split(/\s+/);
  const dest = parts.pop() ?? "";
  return { sources: parts, dest };
}

/** `ENV A=1 B=2` as a record. */
export function envOf(instruction: Instruction): Record<string, string> {
  return Object.fromEntries(
    instruction.args.split(/\s+/).map((pair) => {
      const at = pair.indexOf("=");
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** The argv of an exec-form (`["node", …]`) ENTRYPOINT or CMD. */
export function execForm(instruction: Instruction): string[] {
  const parsed = JSON.parse(instruction.args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === "string")) {
    throw new Error(`${instruction.keyword} is not in exec form: ${instruction.args}`);
  }
  return parsed;
}
