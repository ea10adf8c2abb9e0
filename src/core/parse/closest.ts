/**
 * Edit distance counting a swap of two neighbours as one edit (optimal string alignment): the
 * typos people make in a chat box are mostly one missing, extra, wrong or swapped letter
 * (scren, enrgy, srceen, eht).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(rows, i - 1, j) + 1, (row[j - 1] ?? 0) + 1, at(rows, i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(rows, i - 2, j - 2) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return at(rows, a.length, b.length);
}

const at = (rows: number[][], i: number, j: number): number => rows[i]?.[j] ?? 0;

/**
 * The candidate nearest to `word`, or undefined when none is close enough to be a typo. Short
 * words allow one edit only: two edits turn "ops" into "host", which helps nobody.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length <= 3 ? 1 : 2;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
