import { writeFileSync } from "node:fs";
import { cpus } from "node:os";

/**
 * What every figure reports: measures (value beside the baseline measured in the same run, the
 * ratio, and the targets of DESIGN.md's performance table that apply to it), plus notes that say
 * how it was measured. Printed as a table, then as one JSON object on the last line of stdout.
 */
interface Target {
  text: string;
  /** null: not measured (the figure failed). */
  met: boolean | null;
}

export interface Measure {
  name: string;
  value: number | null;
  unit: string;
  baseline?: { name: string; value: number | null };
  /** value / baseline. */
  ratio?: number | null;
  targets: Target[];
}

export interface FigureResult {
  id: string;
  title: string;
  measures: Measure[];
  notes: string[];
  /** Raw numbers behind the measures (counts, samples, scale). */
  details?: Record<string, unknown>;
  error?: string;
}

const COLUMNS = [
  { title: "fig", width: 3 },
  { title: "measure", width: 40 },
  { title: "value", width: 12 },
  { title: "baseline", width: 34 },
  { title: "ratio", width: 7 },
  { title: "target", width: 30 },
  { title: "met", width: 4 },
];

const cell = (text: string, width: number) =>
  text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);

function formatValue(value: number | null, unit: string): string {
  return value === null ? "n/a" : `${value} ${unit}`.trim();
}

const mark = (met: boolean | null) => (met === null ? "?" : met ? "yes" : "NO");

export function renderTable(figures: readonly FigureResult[]): string {
  const lines = [COLUMNS.map((c) => cell(c.title, c.width)).join(" ")];
  lines.push(COLUMNS.map((c) => "-".repeat(c.width)).join(" "));
  for (const figure of figures) {
    if (figure.error) lines.push(`${cell(figure.id, 3)} ${figure.title}: FAILED: ${figure.error}`);
    for (const m of figure.measures) {
      const baseline = m.baseline ? `${formatValue(m.baseline.value, m.unit)} (${m.baseline.name})` : "";
      const ratio = m.ratio === undefined || m.ratio === null ? "" : `${m.ratio}×`;
      const targets = m.targets.length > 0 ? m.targets : [{ text: "", met: null }];
      targets.forEach((t, i) => {
        const first = i === 0;
        const row = [
          first ? figure.id : "",
          first ? m.name : "",
          first ? formatValue(m.value, m.unit) : "",
          first ? baseline : "",
          first ? ratio : "",
          t.text,
          t.text ? mark(t.met) : "",
        ];
        lines.push(row.map((text, c) => cell(text, COLUMNS[c]?.width ?? 10)).join(" "));
      });
    }
  }
  return lines.join("\n");
}

export function renderNotes(figures: readonly FigureResult[]): string {
  const lines: string[] = [];
  for (const figure of figures) {
    if (figure.notes.length === 0) continue;
    lines.push(`${figure.id}. ${figure.title}`);
    for (const note of figure.notes) lines.push(`   - ${note}`);
  }
  return lines.join("\n");
}

export function summary(figures: readonly FigureResult[], extra: Record<string, unknown>) {
  const targets = figures.flatMap((f) => f.measures.flatMap((m) => m.targets));
  return {
    bench: "opsbot",
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, platform: process.platform },
    ...extra,
    allTargetsMet: targets.length > 0 && targets.every((t) => t.met === true),
    targetsMissed: targets.filter((t) => t.met === false).map((t) => t.text),
    figures,
  };
}

export function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
