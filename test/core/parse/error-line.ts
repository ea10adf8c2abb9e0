import { expect } from "vitest";
import type { ParseResult } from "../../../src/core/parse/result.js";

/**
 * The wording rules every parser error follows: one line, no control or invisible characters,
 * short, "what is wrong: what is accepted", and no echoed input longer than ~40 characters.
 */
function expectErrorLine(line: string): void {
  expect(line).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
  expect(line.length).toBeLessThanOrEqual(220);
  expect(line).toMatch(/\S: \S/);
  for (const quoted of line.match(/"[^"]*"/g) ?? [])
    expect(Array.from(quoted).length).toBeLessThanOrEqual(44);
}

/** The error of a failed result, checked against the wording rules. */
export function errorOf<T>(result: ParseResult<T>): string {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  expectErrorLine(result.error);
  return result.error;
}

/** The value of a successful result (the test fails with the parser's own line otherwise). */
export function parsed<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`);
  return result.value;
}
