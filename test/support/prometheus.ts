/**
 * Reading the Prometheus text exposition format the way a scraper does: one sample per line,
 * `name{label="value",…} number`. Enough for tests to find a series and its value.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(LABEL)) labels[key ?? ""] = value ?? "";
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** The samples of `name` whose labels include every given label. */
export function series(text: string, name: string, labels: Record<string, string> = {}): Sample[] {
  return parseSamples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** The value of the one sample of `name` with these labels; undefined when there is none. */
export function sampleValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = series(text, name, labels);
  if (found.length > 1) throw new Error(`${found.length} series of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

export async function scrape(origin: string): Promise<{ contentType: string; text: string }> {
  const response = await fetch(`${origin}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return { contentType: response.headers.get("content-type") ?? "", text: await response.text() };
}
