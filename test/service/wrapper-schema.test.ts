import { describe, expect, it } from "vitest";
import { z } from "zod";
import { wrapperSchema } from "../../src/service/wrapper-schema.js";

describe("wrapperSchema", () => {
  const detail = wrapperSchema(<S extends z.ZodType>(inner: S) => z.object({ detail: inner }));
  const a = z.object({ id: z.string() });
  const b = z.object({ n: z.number() });

  it("builds one wrapper per inner schema, so zod compiles it once, not once per reply", () => {
    expect(detail(a)).toBe(detail(a));
    expect(detail(b)).not.toBe(detail(a));
  });

  it("parses as the wrapper it built", () => {
    expect(detail(a).parse({ detail: { id: "x" } })).toEqual({ detail: { id: "x" } });
    expect(detail(b).safeParse({ detail: { id: "x" } }).success).toBe(false);
  });
});
