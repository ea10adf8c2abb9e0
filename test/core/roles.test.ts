import { describe, expect, it } from "vitest";
import { can, refusalLine, roleOf } from "../../src/core/roles.js";
import { baseSettings } from "../support/settings.js";
import { admin, operator, viewer } from "./support.js";

describe("roles", () => {
  it("reads roles from OPS_ADMINS / OPS_OPERATORS by platform:id", () => {
    expect(roleOf(admin, baseSettings)).toBe("admin");
    expect(roleOf(operator, baseSettings)).toBe("operator");
    expect(roleOf(viewer, baseSettings)).toBe("viewer");
    // The same id on another platform is another person.
    expect(roleOf({ platform: "telegram", userId: "U0OPER" }, baseSettings)).toBe("viewer");
    expect(roleOf({ platform: "slack", userId: "4242" }, baseSettings)).toBe("viewer");
  });

  it("orders viewer < operator < admin", () => {
    expect(can("admin", "operator")).toBe(true);
    expect(can("operator", "operator")).toBe(true);
    expect(can("operator", "admin")).toBe(false);
    expect(can("viewer", "operator")).toBe(false);
    expect(can("viewer", "viewer")).toBe(true);
  });

  it("names the role needed and the exact entry to add", () => {
    expect(refusalLine("energy", "operator", "viewer", { platform: "slack", userId: "U123" })).toBe(
      "energy needs the operator role; you are a viewer. Ask an admin to add slack:U123 to OPS_OPERATORS.",
    );
    expect(refusalLine("audit", "admin", "operator", operator)).toBe(
      "audit needs the admin role; you are an operator. Ask an admin to add slack:U0OPER to OPS_ADMINS.",
    );
  });
});
