import type { z } from "zod";

/**
 * A reply wrapper (`{code, data}`, `{detail}`, …) built once per inner schema, not once per call:
 * zod compiles every object schema on its first parse (a generated function), so a wrapper built
 * per reply is compiled per reply, and that garbage grew the heap under load.
 */
export function wrapperSchema<B extends (inner: z.ZodType) => z.ZodType>(build: B): B {
  const built = new WeakMap<z.ZodType, z.ZodType>();
  const cached = (inner: z.ZodType) => {
    let wrapper = built.get(inner);
    if (wrapper === undefined) {
      wrapper = build(inner);
      built.set(inner, wrapper);
    }
    return wrapper;
  };
  return cached as B;
}
